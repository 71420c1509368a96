"""Shanghai contract rummy over a LAN: rules engine, trustless dealing, networking, console."""
