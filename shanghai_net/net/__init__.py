"""Networked play's I/O, in trio: the host (`host`, `tables`: listeners, connections, the
sequencer's timers, the transcript), a seat's connection (`peer`), discovery on the LAN, and the
per-game secret on disk (`resume`).  The game protocol they carry is `shanghai_net.table`."""
