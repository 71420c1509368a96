"""``shanghai host``, ``join`` and ``bot``, and the table ``shanghai play`` hosts: the networked
table from the command line (``tables`` is in lan.py, the records and ``verify`` in records.py).  The console is not imported here: the command line
above (`shanghai_net.cli`) hands it in, so the network layer never depends on the console.

A console seat and a table hosted here run in one trio run (the console's guest run): the host,
then the console's own `NetSession` seat, then the bot peers (after it, so that it gets the
first free seat).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import getpass
import logging
import os
import random
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from ..identity import Identity, config_dir, load_or_create
from ..rules import PRESETS
from ..net.config import BOT_THINK, BOT_VOID_AFTER
from ..rules.ruleset import parse_rules
from .lan import add_tables_command, address, browse_options, find_table
from .options import (JOIN_CODE, SHARING_HELP, HelpWithDefaults, count, level_option, name, port,
                      seat_options, seconds, sharing, to_a_table)
from .records import KEEP_RECORDS, add_verify_command, check_record, new_record, recording

__all__ = ["BOT_THINK", "HostedTable", "add_net_commands", "person",
           "seat_options", "HelpWithDefaults"]



def _fresh_identity() -> Identity:
    return Identity(os.urandom(32), os.urandom(32))


def person() -> str:
    """The name a player joins with unless ``--name`` says otherwise: the login name."""
    try:
        return getpass.getuser()[:32] or "player"
    except (KeyError, OSError):
        return "player"


def _bot_home(index: int) -> Path:
    """Where a bot the host starts keeps its keys and game secrets (so it can rejoin)."""
    return config_dir() / "host-bots" / f"bot{index + 1}"


def _bots_in(transcript: Path) -> int:
    """How many of this host's own bots (bot1, bot2, ... by their kept keys) sit in the game a
    transcript records: the host resumed from it starts them again."""
    from ..identity import FILE_NAME
    from ..wire import ProtocolError
    from ..net.transcript import read_record

    try:  # a transcript torn by the crash too: its start_game is whole
        seated = {seat.sign_key for seat in read_record(transcript)[0][0].seats}
    except (OSError, ProtocolError, IndexError, AttributeError):
        return 0  # the host itself reports what is wrong with the file
    count = 0
    while (_bot_home(count) / FILE_NAME).exists() and \
            load_or_create(_bot_home(count)).sign_public in seated:
        count += 1
    return count


class HostedTable:
    """A table hosted in this trio run with a console seat at it: the `Host`, the seat's
    `NetSession` (``session``) and the bot peers, which sit down after the seat so that it has
    the first free seat.  `serve` is the trio service to run beside the session
    (``ConsoleApp(session, services=[table.serve])``).

    ``bots``: how many bots of ``level`` (`shanghai_net.bots.BOTS`), or the players themselves (`BotPlayer`s).
    ``seed``: every party's keys and randomness are derived from it (the same deal for the same
    seed).  ``keep``: the seat and the bots keep their keys and game secrets under the config
    directory (``config.identity`` is the seat's), so that they rejoin a host resumed from its
    transcript.  ``auto_ready``: no lobby wait, the game starts once every seat is filled.
    ``think``: seconds each bot waits before a decision (`BOT_THINK` for a person to follow).
    ``tables``, ``max_tables``, ``announce``: the host's tables (`tables.TableServer`); the seat
    and the bots sit at the first.
    """

    def __init__(self, config, *, bots: int | Sequence = 3, level: str = "basic",
                 bind: str = "127.0.0.1", port: int = 0, name: str = "you",
                 auto_ready: bool = False, seed: int | None = None, keep: bool = False,
                 think: float = 0.0, tables: Sequence[str] = ("table1",), max_tables: int = 1,
                 announce: bool = False) -> None:
        from ..deal import seeded
        from ..net.player import BotPlayer
        from ..net.tables import TableServer
        from ..net.resume import GameSecrets
        from ..net.session import NetSession

        def randomness(who: str):
            return os.urandom if seed is None else seeded(f"shanghai play {seed} {who}".encode())

        self._randomness, self.keep = randomness, keep
        if isinstance(bots, int):
            bots = [BotPlayer(level, random.Random(None if seed is None else f"{seed} bot {i}"),
                              think=think) for i in range(bots)]
        self.bots = list(bots)
        self.server = TableServer(dataclasses.replace(config, random=randomness("host")), tables,
                                  max_tables=max_tables, announce=announce)
        self.host = self.server.first_host
        """The table the seat and the bots sit at (the first of ``tables``)."""
        if not len(self.bots) < self.host.players:
            raise ValueError(f"{len(self.bots)} bots leave no seat for you at a table of "
                             f"{self.host.players}")
        self.config, self.bind, self.port = config, bind, port
        you = randomness("you")
        identity = config.identity if config.identity is not None else Identity(you(32), you(32))
        resumed = self.host.public
        self.watching = resumed is not None and resumed.seat_of_key(identity.sign_public) is None
        """A game resumed whose seat we played is someone else's now (handed over, or voted
        gone): this console follows the game as a spectator while the table is hosted here."""
        self._watched = self.host.game
        """The number of the last game at the first table that the console was shown."""
        self.session = NetSession(None, identity, name=name, join_code=config.join_code,
                                  auto_ready=auto_ready, random=you, spectate=self.watching,
                                  next_game=self.next_game,
                                  store=GameSecrets(config_dir() / "games") if keep else None)

    async def serve(self, task_status) -> None:
        """Listen, point the session at the table, seat the bots once the session is seated."""
        import trio

        session, join_code = self.session, self.config.join_code
        listeners = await listen(self.port, self.bind)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(self.server.run, listeners)
            session.address = ("127.0.0.1", port)
            free = self.host.players - 1 - len(self.bots)
            if not free:
                session.notice(f"hosting {self.host.rules.name} on port {port}: you and "
                               f"{len(self.bots)} bot{'s' if len(self.bots) != 1 else ''}, "
                               "every seat taken")
            else:
                session.notice(f"hosting {self.host.rules.name} on port {port}: "
                               + how_to_join(self.bind, port, join_code))
            if self.config.record is not None:
                session.notice(recording(self.config.record))
            if self.watching:
                session.notice("you host this game and watch it: the seat you played is "
                               "someone else's now")
            seated = trio.Event()
            unsubscribe = session.subscribe(
                lambda: seated.set() if session.lobby and session.lobby.you is not None else None)
            task_status.started(port)
            if not self.watching:
                await seated.wait()
            unsubscribe()
            for i, bot in enumerate(self.bots):
                nursery.start_soon(_quiet_bot, ("127.0.0.1", port), bot, i, join_code,
                                   _bot_home(i) if self.keep else None,
                                   self.host.config.host_run, self._randomness(f"bot {i}"))
                with trio.move_on_after(5):  # one at a time, so that bot1 sits first
                    while sum(c is not None for c in self.host.seats) < i + 2 and \
                            self.host.start is None:
                        await trio.sleep(0.01)


    def people_at_stake(self) -> list[str]:
        """The people whose game ends if this process does: at every table it hosts, the seats
        a person's connection holds, but for this console's own."""
        own = self.session.identity.sign_public
        return [client.hello.name for table in self.server.tables.values()
                for client in table.host.seats
                if client is not None and client.connected and client.hello is not None
                and client.hello.role == "player" and client.hello.sign_key != own]

    async def next_game(self) -> bool:
        """Wait until the first table opens its next game, a rematch (True), or every table
        here is closed (False): a console that watches shows each game the table plays."""
        import trio

        name = self.server.names[0]
        while not self.done:
            table = self.server.tables.get(name)
            if table is not None and table.host.game > self._watched:
                self._watched = table.host.game
                return True
            await trio.sleep(0.1)
        return False

    @property
    def done(self) -> bool:
        """Every table hosted here is closed: its game and any rematch are over."""
        return bool(self.server.opened) and not self.server.tables


async def listen(port: int, bind: str) -> list[trio.SocketListener]:
    """The host's listeners on ``bind:port``; one it cannot have (in use, no such address) is
    a ValueError saying so in a line."""
    import trio

    try:
        return await trio.open_tcp_listeners(port, host=bind)
    except socket.gaierror as error:
        raise ValueError(f"--bind {bind}: no such address ({error.strerror})") from None
    except OSError as error:
        taken = " (is a table hosted there already?)" if error.errno == errno.EADDRINUSE else ""
        raise ValueError(f"cannot listen on {bind}:{port}: {error.strerror or error}{taken}; "
                         "choose another --port (0: any free one)") from None


def how_to_join(bind: str, port: int, join_code: str) -> str:
    """What to tell the others at a host listening on ``bind:port``: the command, with this
    machine's address (on loopback, for a second player on this machine)."""
    code = f" --join-code {join_code}" if join_code else ""
    if bind.startswith("127.") or bind in ("localhost", "::1"):
        return f"others on this machine join with `shanghai join {bind}:{port} --fresh-identity" \
               f"{code}`"
    return f"others join with `shanghai join {address_to_give(bind)}:{port}{code}`"


def address_to_give(bind: str) -> str:
    """The address others reach a host listening on ``bind`` at: that address, or for every
    interface (0.0.0.0) the one this machine's route out leaves from (a UDP socket's connect
    picks it, sending nothing), else the machine's name."""
    if bind not in ("0.0.0.0", "", "::"):
        return bind
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never sent to
        return probe.getsockname()[0]
    return socket.gethostname()








def table_names(names: list[str], count: int) -> list[str]:
    """The names of a host's tables: those given with ``--table``, then ``table2``, ``table3``
    ... up to ``count`` tables in all."""
    out = list(names)
    number = 1
    while len(out) < count:
        while f"table{number}" in out:
            number += 1
        out.append(f"table{number}")
    return out or ["table1"]


def _cmd_host(args: argparse.Namespace) -> int:
    import trio

    from ..net.host import HostConfig
    from ..net.player import BotPlayer
    from ..net.tables import TableServer
    from .spectate import game_over

    if args.bots > args.players:
        raise ValueError(f"--bots {args.bots} is more than --players {args.players}")
    identity = _fresh_identity() if args.fresh_identity else load_or_create()
    resume = Path(args.resume) if args.resume else None
    if resume is not None and not resume.is_file():
        raise ValueError(f"--resume {resume}: no such file (give the transcript that host "
                         "--record wrote)")
    if resume is not None and not args.fresh_identity:  # its own bots sit down again too
        args.bots = max(args.bots, _bots_in(resume))
    record = Path(args.record) if args.record else resume if resume is not None else \
        None if args.no_record else new_record()
    check_record(record, resume)
    config = HostConfig(players=args.players, preset=args.preset, rules=parse_rules(args.rule),
                        join_code=args.join_code, claim_timeout=args.claim_timeout,
                        record=record, resume=resume, identity=identity,
                        stand_in=None if args.no_stand_in else args.level,
                        sharing=args.sharing)
    names = table_names(args.table, args.tables)
    if resume is not None and len(names) > 1:
        raise ValueError("--resume takes up one table's game: give no --tables with it")
    tables = dict(tables=names, max_tables=max(args.max_tables, len(names)),
                  announce=not args.no_announce)
    if not args.no_console:
        return args.console(config, bots=args.bots, level=args.level, bind=args.bind,
                            port=args.port, name=args.name or person(), ascii=args.ascii,
                            keep=not args.fresh_identity, auto_pass=not args.no_auto_pass,
                            **tables)
    server = TableServer(config, names, max_tables=tables["max_tables"],
                         announce=tables["announce"],  # checks the preset, rules and seats
                         rematch=args.bots < _seats(config))
    host = server.first_host

    async def main() -> int:
        listeners = await listen(args.port, args.bind)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            if resume is not None:
                print(f"resuming {resume} at message {host.sequenced}: waiting for the seats to "
                      "rejoin", flush=True)
            print(f"hosting {host.rules.name} for {host.players} on port {port} at "
                  f"{', '.join(names)}; host key {identity.fingerprint}"
                  + ("" if args.no_announce else " (announced on the LAN)") + "; "
                  + how_to_join(args.bind, port, args.join_code), flush=True)
            print(recording(record), flush=True)
            for i in range(args.bots):  # they think only while a person sits at the table
                bot = BotPlayer(args.level, random.Random(), think=BOT_THINK)
                home = None if args.fresh_identity else _bot_home(i)
                nursery.start_soon(_quiet_bot, ("127.0.0.1", port), bot, i, args.join_code, home,
                                   config.host_run)
        failed = False
        for table in server.opened:
            public = table.host.public
            where = f"{table.name}: " if len(server.opened) > 1 else ""
            if public is None or public.fault is not None or not public.finished:
                why = table.crash or (public.fault if public else "never started")
                print(f"{where}game stopped: {why}", file=sys.stderr)
                failed = True
            else:
                print(where + game_over([s.name for s in table.host.start.seats],
                                        public.public.result), flush=True)
        return 1 if failed else 0

    return trio.run(main)


def _seats(config) -> int:
    """The seats of the table ``config`` hosts (a resumed game's, from its record)."""
    from ..wire import ProtocolError
    from ..net.transcript import read_record

    try:
        return len(read_record(config.resume)[0][0].seats) if config.resume else config.players
    except (OSError, ProtocolError, IndexError, AttributeError):
        return config.players  # the host itself says what is wrong with the file


async def _quiet_bot(address, bot, index, join_code, home: Path | None, host_run: set[bytes],
                     randomness=os.urandom) -> None:
    """A bot the host starts; with a ``home`` it keeps its keys and game secrets there, so the
    host resumed from its transcript starts it again in the same seat; without, its keys and
    its deal's randomness come from ``randomness`` (seeded for a reproducible table).  Its key
    is put in ``host_run`` (the host's `HostConfig.host_run`) before it says hello: the host
    runs its seat, which holds no seed share, and the bot knows it (`started_by_host`)."""
    from ..net.peer import Peer
    from ..net.resume import GameSecrets
    from ..net.seat_rematch import play_on

    if home is not None:
        identity, options = load_or_create(home), dict(store=GameSecrets(home / "games"))
    else:
        identity, options = Identity(randomness(32), randomness(32)), dict(random=randomness)
    name = bot_name(bot, index)
    host_run.add(identity.sign_public)
    peer = Peer(address, identity, bot, name=name, join_code=join_code,
                void_after=BOT_VOID_AFTER, rematch=True, **options)
    peer.started_by_host = True
    try:
        await play_on(peer)
    except Exception as error:  # a bot's failure is reported, the host goes on
        print(f"{name}: {error}", file=sys.stderr)


def bot_name(bot, index: int) -> str:
    """A hosted bot's name at the table, which the lobby shows: ``bot2``, or its level when it
    is not the basic one (``expert2``)."""
    level = getattr(bot, "level", "basic")
    return f"{'bot' if level == 'basic' else level}{index + 1}"


def _cmd_join(args: argparse.Namespace) -> int:
    from ..net.resume import GameSecrets
    from ..net.session import NetSession

    if args.fresh_identity:  # a second player on this machine, for one game
        identity, store = _fresh_identity(), None
    else:
        home = Path(args.identity) if args.identity else config_dir()
        identity, store = load_or_create(home), GameSecrets(home / "games")
    target = find_table(args)
    if target is None:
        print("shanghai join: no table chosen", file=sys.stderr)
        return 1
    address, table = target
    if args.open and not table:
        raise ValueError("--open needs the new table's name: --table NAME")
    from .spectate import may_watch_instead, offer_to_watch

    session = NetSession(address, identity, name=args.name or person(),
                         join_code=args.join_code, table=table, open_table=args.open,
                         store=store, take_over=args.take_over)
    code = args.console(session, args.ascii, auto_pass=not args.no_auto_pass)
    if session.status:
        print(f"shanghai join: {session.status}", file=sys.stderr)
        if session.view is None:  # never sat down at a game: a failure, not a quit
            if may_watch_instead(session.status):
                return offer_to_watch(address, table, args.join_code, args.ascii)
            return 1
    return code


def _cmd_bot(args: argparse.Namespace) -> int:
    import trio

    from ..net.peer import PeerError, run_peer
    from ..net.player import BotPlayer
    from ..net.resume import GameSecrets

    host = address(args.address)
    if args.identity:  # a bot with a home: it can rejoin after a crash, like a person
        identity = load_or_create(Path(args.identity))
        store = GameSecrets(Path(args.identity) / "games")
    else:
        identity, store = _fresh_identity(), None
    player = BotPlayer(args.level, random.Random(), think=args.think)
    try:
        result = trio.run(lambda: run_peer(host, identity, player, name=args.name,
                                           join_code=args.join_code, store=store,
                                           void_after=args.void_after, table=args.table,
                                           rematch=True))
    except PeerError as error:
        print(f"shanghai bot: {error}", file=sys.stderr)
        return 1
    # the public replica's totals, every party's: a seat's own replica stops where the table
    # gave its seat to someone else (voted gone while alive, say), with no result
    print(f"seat {result.seat}: game over, totals {list(result.table.public.result.totals)}"
          + (f" (this bot's seat was given to another: {result.unseated})"
             if result.unseated else ""))
    return 0


def add_net_commands(sub: argparse._SubParsersAction, *, hosted_console, run_console,
                     pick_table) -> None:
    """``host``, ``tables``, ``join``, ``bot`` and ``verify``; the console comes from above
    this package: ``hosted_console(config, **table)`` sits at a table hosted here,
    ``run_console(session, ascii, auto_pass=)`` plays a joined one, ``pick_table(listings)``
    chooses a table found on the LAN (`shanghai_net.cli` passes them)."""
    from ..net.config import HostConfig

    options = dict(formatter_class=HelpWithDefaults)
    host = sub.add_parser("host", help="host a table on the LAN (lobby, relay and sequencer)", **options)
    host.add_argument("--port", type=port, default=7777,
                      help="TCP port to listen on (0: any free one)")
    host.add_argument("--bind", default="0.0.0.0", help="address to listen on")
    host.add_argument("--preset", default="davis", choices=sorted(PRESETS), help="rule system")
    host.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                      help="house rule overriding one RuleSet field (repeatable; default: none)")
    host.add_argument("--players", type=count(1), default=4, help="seats at the table")
    host.add_argument("--bots", type=count(0), default=0,
                      help="bot peers started here, over loopback (--resume starts the game's own "
                           "again by itself)")
    level_option(host, "the bots' level")
    host.add_argument("--no-stand-in", action="store_true",
                      help="leave a seat the table voted gone empty (default: a bot of --level "
                           "plays it from the next deal, so that the game goes on)")
    host.add_argument("--no-console", action="store_true",
                      help="only host: start when every seat is filled and ready, exit 0 when "
                           "the game is over")
    host.add_argument("--record", metavar="FILE",
                      help="append the transcript to FILE (default: a new file in "
                           "~/.local/share/shanghai-net/records, which keeps the last "
                           f"{KEEP_RECORDS})")
    host.add_argument("--no-record", action="store_true",
                      help="keep no transcript: a crashed host cannot --resume")
    host.add_argument("--resume", metavar="FILE",
                      help="take up the game of a transcript where it stopped (the host crashed);"
                           " the seats rejoin with their keys, the host's own bots too; the "
                           "transcript goes on in FILE (default: a new game)")
    host.add_argument("--join-code", type=JOIN_CODE, default="",
                      help="the code players must give to join (default: none)")
    host.add_argument("--claim-timeout", type=seconds(), default=HostConfig.claim_timeout,
                      help="seconds a claim window waits for silent seats")
    host.add_argument("--sharing", type=sharing, default="off", metavar="default|off|T",
                      help=SHARING_HELP)
    host.add_argument("--fresh-identity", action="store_true",
                      help="a throwaway host key instead of the user's identity")
    host.add_argument("--table", action="append", default=[], metavar="NAME",
                      help="name a table (repeatable; default: table1, table2, ...)")
    host.add_argument("--tables", type=count(1), default=1, metavar="N",
                      help="tables to open, each with its own lobby and game (you and the bots "
                           "sit at the first)")
    host.add_argument("--max-tables", type=count(1), default=8, metavar="N",
                      help="tables held at once, counting those players open with `join --open`")
    host.add_argument("--no-announce", action="store_true",
                      help="do not announce the tables on the LAN (DNS-SD); players then join "
                           "by address")
    seat_options(host)
    host.set_defaults(func=_cmd_host, console=hosted_console)

    add_tables_command(sub, **options)

    join = sub.add_parser("join", help="sit at a table on the LAN, in the console", **options)
    join.add_argument("address", metavar="NAME|HOST[:PORT]", nargs="?",
                      help="a table's name as `shanghai tables` lists it, or the host's address "
                           "(port 7777 unless given); none: choose from the tables on the LAN")
    join.add_argument("--join-code", type=JOIN_CODE, default="",
                      help="the code the host gave (default: none)")
    join.add_argument("--table", metavar="NAME", help="the table at HOST to sit at (default: its "
                                                      "first)")
    join.add_argument("--open", action="store_true",
                      help="open the --table NAME at the host if it has none (another game, with "
                           "the host's preset and seats)")
    browse_options(join)
    join.add_argument("--identity", metavar="DIR",
                      help="keep your keys and game secrets in DIR (default: the config directory, "
                           "the one `host` uses: a second player on one machine needs another)")
    join.add_argument("--fresh-identity", action="store_true",
                      help="throwaway keys for this game (no rejoin after a crash)")
    join.add_argument("--take-over", action="store_true",
                      help="watch the game and offer to take a seat: a player hands you theirs "
                           "(H in their console, after comparing your key out loud) and you play "
                           "on with their hand")
    seat_options(join)
    join.set_defaults(func=_cmd_join, console=run_console, pick=pick_table)

    bot = sub.add_parser("bot", help="a bot peer joining a table over the network", **options)
    to_a_table(bot)
    bot.add_argument("--table", default="", metavar="NAME",
                     help="the table at HOST to sit at (default: its first)")
    level_option(bot, "how well the bot plays")
    bot.add_argument("--name", type=name, default="bot", help="the bot's name at the table")
    bot.add_argument("--identity", metavar="DIR",
                     help="keep the bot's keys in DIR (default: a throwaway identity)")
    bot.add_argument("--think", type=seconds(zero=True), default=BOT_THINK, metavar="SECONDS",
                     help="wait before each decision, so people at the table can follow")
    bot.add_argument("--void-after", type=seconds(), default=BOT_VOID_AFTER, metavar="SECONDS",
                     help="vote to void the round when a player has been away this long")
    bot.set_defaults(func=_cmd_bot)

    add_verify_command(sub, **options)
    logging.getLogger("shanghai_net").addHandler(logging.NullHandler())
