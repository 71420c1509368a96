"""Seats and the way into a game: `Lobby`.

Before the game: seats (lowest free seat first), names, a join code, ready flags; the game starts
when every seat is filled and ready, with a game id that commits to every seat's hello nonce and
the host's.  During the game: a seat's key comes back only with a `proof` that it holds the key
(a rejoin), only to a seat whose connection is gone (a live one keeps its seat: one key, one
seat) and never to a seat closed for abuse; spectators, up to a cap, follow from the start.
Everyone hears who sits where (`lobby_state`).

A seat that changes hands (protocol.md 11.8): a key that played a seat before (its first
holder) says hello while the table voted the seat gone or a stand-in bot plays it, and the lobby
asks the host to propose it back (`on_hello` returns the ``replace``); a person (role
``player``) who arrives once the game has started is offered the first such seat the same way,
if a ``replace`` has not given it to anyone but a stand-in yet (once a game: `Roster.given_back`).
Once the proposal is sequenced the hello is answered as a rejoin; a proposed key whose seat is
still played by a live connection waits (``waiting``) and follows the game until its keys take
the seat at a deal's start, when it becomes the seat's connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..identity import Identity, fingerprint
from ..rules.ruleset import RuleSet
from ..table.roster import Roster
from ..table.sharing_setting import SharingSetting, resolve_sharing
from ..wire import RemoteProtocolError, check_proof
from ..wire.messages import (MAX_OFFERS, NOTICES, PROTOCOL_VERSION, Bye, DealerPick, Hello,
                             LobbyState, Offer, PlayerSeat, Proof, Replace, SeatInfo, StartGame,
                             Welcome, game_id_of)
from ..wire.state import State
from .client import Client
from .config import HostConfig
from .history import History
from .rematch import KeptSeats, RematchVotes

__all__ = ["Lobby"]

log = logging.getLogger("shanghai_net.host")


_ELSEWHERE = ": sit at another table of this host (shanghai join HOST --table NAME), or open " \
    "one (--table NAME --open)"
"""What a person refused a seat can do instead."""

_WATCH = "; you may watch the game: shanghai watch HOST (add --table NAME at a named table)"
"""How a person refused a seat may still follow the game (``shanghai join`` offers it too)."""

_ONE_BOX_KEY = "one box key, one seat (a client draws a fresh box key for every join)"
"""Why a hello whose box key is a seat's is refused: a second seat would take a second share of
every seed (docs/dealing.md)."""


class Lobby:
    def __init__(self, config: HostConfig, identity: Identity, rules: RuleSet, players: int,
                 clients: set[Client], history: History, barred: set[bytes],
                 start: StartGame | None, on_start: Callable[[StartGame], None],
                 note_owed: Callable[[], None], roster: Callable[[], Roster | None]) -> None:
        self.config = config
        self.identity = identity
        self.rules = rules
        self.players = players
        self.clients = clients
        self.history = history
        self.start = start
        self.on_start = on_start
        """Told of the game's ``start_game`` before any client is sent it."""
        self.note_owed = note_owed
        """Called when a client may now want the ``owed`` notice."""
        self.roster = roster
        """Who plays the running game's seats (the host's public table), and who is proposed
        to (protocol.md 11.8): a replacement comes in as a seat's key does after a crash."""
        self.seats: list[Client | None] = [None] * players
        self.waiting: dict[int, Client] = {}
        """Seat -> the connection of the key proposed for it, while another key's connection
        plays it: it follows the game, and takes the seat's place in ``seats`` once the
        stream gives its key the seat (`_promote`)."""
        self.offering: dict[int, Client] = {}
        """Seat -> the connection whose key the host is proposing for it now (one at a time)."""
        self.barred = barred
        """Keys of seats of the running game closed for abuse: they may not come back to it (a
        replacement with keys of its own may play the seat on)."""
        self.rematch = False
        """Once the game is over the table stays, and its seats may ask for a rematch (the
        host has somewhere to open it: `tables.TableServer`)."""
        self.votes: RematchVotes | None = None
        """Once the game is over at a table that stays: who asked for the next game."""
        self.result: tuple[int, ...] = config.previous.totals if config.previous else ()
        """The final totals of the last game at this table, which the lobby shows."""
        self.kept = KeptSeats(config.previous.keys) if config.previous is not None else None
        """A rematch's lobby: the seats kept for the last game's keys, until the host's wait
        is over (`Host._release_kept`)."""

    def on_hello(self, client: Client, hello: Hello, offered: bool = False) -> Replace | None:
        """Answer ``hello``; or, during the game, the ``replace`` the host is to propose first
        (a first holder coming back, a late arrival: see the module), after which it calls
        again with ``offered``."""
        client.hello = hello
        if self.config.join_code and hello.join_code != self.config.join_code:
            client.refuse("join_code", "the join code is wrong")
            return None
        if hello.offer is not None and hello.role != "spectator":
            client.refuse("bad_message", "hello.offer: only a spectator offers to take a seat "
                          "(role \"spectator\"): a seat is handed to someone watching the game")
            return None
        if hello.role != "spectator" and hello.nonce is None:
            client.refuse("bad_message", "hello.nonce: a player's or bot's hello needs 32 fresh "
                          "bytes (the game id commits to them)")
            return None
        seat = challenge = None
        if self.start is not None and hello.role != "spectator":
            roster = self.roster()
            seat = roster.seat_of_key(hello.sign_key)
            played = seat if seat is not None else next(
                (s for s in range(self.players) if roster.played_before(s, hello.sign_key)), None)
            if played is not None and self._barred(client, played):
                return None
            taken = roster.box_key_taken(hello.box_key, played)
            if taken is not None:
                client.refuse("table_full", f"this box key is one {taken}: {_ONE_BOX_KEY}")
                return None
            offer = None if offered else self._offer(roster, hello, seat)
            if offer is not None:
                self.offering[offer.seat] = client
                return offer
            if seat is None or self._kept_out(roster, hello, seat):
                client.refuse("table_full", self._no_seat(roster, hello))
                return None
            # its public key is no secret: the seat is handed over only on a `proof`
            challenge = self.config.random(32)
            client.rejoining = (seat, challenge)  # proved with its hello's key
            client.replacing = roster.holders[seat].sign_key != hello.sign_key or (
                not hello.resume and roster.changed_hands(seat, hello.sign_key))
        elif hello.role != "spectator":
            twin = self._twin(client, hello)
            if twin is not None:
                client.refuse("table_full", twin)
                return
            kept = self._kept_for(hello.sign_key)  # a rematch: its seat of the last game
            free = [kept] if kept is not None else [
                s for s, c in enumerate(self.seats) if c is None and self._kept(s) is None]
            if not free:
                also = ", some kept for the last game's players" if self.config.previous \
                    else ""
                client.refuse("table_full", f"no free seat at this table (its {self.players} seats "
                              f"are taken{also}){_ELSEWHERE}")
                return
            seat = free[0]
            self.seats[seat] = client
            client.seat = seat
        elif sum(1 for c in self.clients if c is not client and c.connected and c.hello is not None
                 and c.hello.role == "spectator") >= self.config.max_spectators:
            client.refuse("table_full", f"this table has its {self.config.max_spectators} "
                          "spectators already")
            return
        client.queue(Welcome(version=PROTOCOL_VERSION, seat=seat, table={
            "preset": self.rules.name, "players": self.players,
            "host_fingerprint": self.identity.fingerprint,
            "claim_timeout": self.claim_timeout, "started": self.start is not None,
            **({"stand_in": self.config.stand_in} if self.config.stand_in else {}),
            **({"replacing": True} if client.replacing else {}), **_notices_sent(hello),
            **({"rematch": True} if self.rematch else {}),
            **({"game": self.config.previous.game} if self.config.previous else {})},
            sequenced=len(self.history), challenge=challenge,
            game_id=None if challenge is None else self.start.game_id))
        if challenge is None:
            self.changed()
            if self.start is not None:  # a spectator: the start, then the history
                self._follow_game(client)
        return None

    def _twin(self, client: Client, hello: Hello) -> str | None:
        """Why ``hello`` may not sit in the lobby beside the other seated connections (None:
        it may): one key, one seat (else a rejoin could not tell them apart), and one box key,
        one seat (a second seat would take a second share of every seed, docs/dealing.md)."""
        for seat, other in enumerate(self.seats):
            if other is None or other is client or other.hello is None:
                continue
            if other.hello.sign_key == hello.sign_key:
                return (f"this key already sits at seat {seat}: a second player needs an "
                        "identity of their own (shanghai join --fresh-identity, or --identity "
                        "DIR)")
            if other.hello.box_key == hello.box_key:
                return f"this box key already sits at seat {seat}: {_ONE_BOX_KEY}"
        return None

    def _kept(self, seat: int) -> bytes | None:
        """The key ``seat`` is kept for: a rematch keeps each seat for the key that asked for
        it, so the seats play again in the same order (until the host's wait is over)."""
        return self.kept.kept(seat) if self.kept is not None else None

    @property
    def held(self) -> set[int]:
        """The seats someone sits in (before the game: in the lobby)."""
        return {s for s, c in enumerate(self.seats) if c is not None}

    @property
    def people(self) -> int:
        """How many seats a person (role ``player``) sits in."""
        return sum(c is not None and c.hello is not None and c.hello.role == "player"
                   for c in self.seats)

    def _kept_for(self, key: bytes) -> int | None:
        """The seat of this rematch kept for ``key``, if any."""
        return next((s for s in range(self.players) if self._kept(s) == key), None)

    def _offer(self, roster: Roster, hello: Hello, seat: int | None) -> Replace | None:
        """The ``replace`` to propose before answering ``hello`` during the game, if any: its
        key played a seat that is now voted gone or played by a stand-in bot (its first holder
        comes back); or, a person who never played here, the lowest such seat not given back
        yet (a late arrival: once a game, protocol.md 11.8).  A seat a person is being
        proposed for is not offered again, nor one the table's rule gives to no player now
        (`Roster.replace_refused`: a seat given back once a game), which the host would only
        sign to see its sequencer refuse."""
        key = hello.sign_key
        if seat is not None:  # its own seat, voted gone, and no other key proposed yet for it
            if seat in roster.vacant and roster.holders[seat].sign_key == key and not any(
                    p.body.sign_key == key for p in roster.proposals.values()) and \
                    seat not in self.offering and \
                    roster.replace_refused(_replace(seat, hello)) is None:
                return _replace(seat, hello)
            return None
        taken = set(self.offering) | {p.body.seat for p in roster.proposals.values()
                                      if p.body.role != "bot"}
        open_seats = [s for s in range(self.players)
                      if roster.up_for_taking(s) and s not in taken]
        before = [s for s in range(self.players) if roster.played_before(s, key)]
        back = [s for s in before if s in open_seats and
                roster.replace_refused(_replace(s, hello)) is None]
        if back:
            return _replace(back[0], hello)
        late = [s for s in open_seats if not roster.given_back(s)]
        if hello.role == "player" and not before and late:
            return _replace(late[0], hello)
        return None

    @staticmethod
    def _kept_out(roster: Roster, hello: Hello, seat: int) -> bool:
        """Whether ``hello``'s key, which played ``seat`` until the table voted it gone, may
        not have it back: the table's rule refuses it (a seat given back once a game)."""
        return seat in roster.vacant and roster.holders[seat].sign_key == hello.sign_key and \
            roster.replace_refused(_replace(seat, hello)) is not None

    def _no_seat(self, roster: Roster, hello: Hello) -> str:
        """Why a key that has no seat of the running game gets none."""
        before = [s for s in range(self.players) if roster.played_before(s, hello.sign_key)]
        if before:
            seat = before[0]
            if roster.up_for_taking(seat) and roster.given_back(seat):
                return (f"no free seat for you: seat {seat}, which you played, was given back "
                        "to a player once already this game, so the host's bot plays it to the "
                        f"game's end{_WATCH}")
            return (f"seat {seat}, which you played, is played by "
                    f"{roster.holders[seat].describe()[:64]} now: a person's seat is theirs "
                    "until they hand it on (or another is being proposed for it)")
        given = [s for s in range(self.players) if roster.up_for_taking(s) and
                 roster.given_back(s)]  # a bot plays it, and only a stand-in may take it
        if given:
            return ("the game at this table has started without you, and no seat of it is free "
                    f"for you: {_seats(given)} given back to a player once already this game, "
                    f"so only the host's bots take {'it' if len(given) == 1 else 'them'} now"
                    f"{_WATCH}, or{_ELSEWHERE[1:]}")
        return f"the game at this table has started without you{_ELSEWHERE}"  # and no seat
        # of it is a stand-in's that a person could take

    @property
    def claim_timeout(self) -> float:
        """The table's one claim timeout: the running game's (a resumed host's own setting may
        differ), else the one the game will start with."""
        return self.start.claim_timeout if self.start is not None else self.config.claim_timeout

    def on_proof(self, client: Client, proof: Proof) -> None:
        """The answer to a rejoin challenge: the seat is this connection's if it signed it and
        no live connection holds it (the host would drop that one only after its silence)."""
        if client.rejoining is None:
            client.error(RemoteProtocolError("wrong_state", "no rejoin challenge to answer"))
            return
        (seat, challenge), client.rejoining = client.rejoining, None
        if self._barred(client, seat):  # closed for abuse after it was challenged
            return
        try:
            check_proof(client.hello.sign_key, self.start.game_id, challenge, proof)
        except RemoteProtocolError as error:
            log.warning("%s failed to prove it holds seat %d's key", client.name, seat)
            client.refuse(error.code, error.reason)
            return
        roster = self.roster()
        if roster.holders[seat].sign_key != client.hello.sign_key and seat not in roster.vacant:
            self._wait(client, seat)  # proposed for a seat another key plays until the deal
            return
        held = self.seats[seat]
        if held is not None and held is not client and held.connected and not held.closing \
                and not (held.hello.sign_key != client.hello.sign_key
                         and self.roster().displaces(client.hello.sign_key, seat)):
            # one key, one seat: a live connection keeps it (a gone one is dropped by its silence)
            log.warning("%s proved seat %d's key while %s holds it live: refused", client.name,
                        seat, held.name)
            client.refuse("table_full", f"seat {seat} ({held.name[:32]}) is played with this key "
                          "on a live connection: a second player needs an identity of their own "
                          "(shanghai join --fresh-identity, or --identity DIR); if that seat is "
                          "yours and its program is gone, join again once the host has missed "
                          f"it (within {self.config.silence_timeout:g} s)")
            return
        self._rejoin(client, seat)
        self._follow_game(client)  # the start first: a client reads who is away in its game
        self.changed()

    def _barred(self, client: Client, seat: int) -> bool:
        """Refuse ``client`` the running game's ``seat`` if its key was closed for abuse."""
        if client.hello.sign_key in self.barred:
            client.refuse("abuse", f"seat {seat} was closed for abuse: it may not come back to "
                          "this game")
            return True
        return False

    def on_ready(self, client: Client, ready: bool) -> None:
        client.ready = ready
        self.changed()
        self._maybe_start()

    def closed(self, client: Client) -> None:
        """``client``'s connection ended: in the lobby its seat is free again; in a game the
        seat waits for its key to come back."""
        if client.seat is not None and self.waiting.get(client.seat) is client:
            del self.waiting[client.seat]
        if client.seat is not None and self.seats[client.seat] is client:
            if self.start is None:
                self.seats[client.seat] = None
                if self.kept is not None and self.kept.left(client.seat):
                    log.info("seat %d is open: its player left the rematch's lobby after the "
                             "wait for the kept seats", client.seat)
            self.changed()
        elif client.hello is not None and client.hello.offer is not None:
            self.changed()  # its offer is gone with it

    def _rejoin(self, client: Client, seat: int) -> None:
        """Give ``seat`` of the running game to ``client``, which proved it holds its key; its
        old connection, if any, is no longer live (it said ``bye``, or is closing), and is
        closed."""
        _in_place_of(self.seats[seat], client, seat, "the seat rejoined on a new connection")
        self.seats[seat] = client
        log.info("seat %d (%s) rejoined from seq %d", seat, client.name, client.hello.resume or 0)

    def _wait(self, client: Client, seat: int) -> None:
        """``client``'s key is proposed for ``seat``, which another key's connection plays
        until the next deal: it follows the game meanwhile (`_promote` seats it)."""
        _in_place_of(self.waiting.get(seat), client, seat,
                     "the seat's newcomer came back on a new connection")
        self.waiting[seat] = client
        log.info("%s follows the game to take seat %d at a deal's start", client.name, seat)
        self.changed()
        self._follow_game(client)

    def _promote(self) -> None:
        """A waiting connection whose key the stream gave its seat is the seat's connection
        now (the old one's messages are refused: its key plays no more); one whose proposal
        another took the place of is told so, after the history it was sent."""
        roster = self.roster()
        if roster is None:
            return
        for seat, client in list(self.waiting.items()):
            key = client.hello.sign_key
            if roster.holders[seat].sign_key == key:
                del self.waiting[seat]
                old = self.seats[seat]
                if old is not None and old is not client:
                    old.seat = None
                self.seats[seat] = client
                log.info("%s plays seat %d from round %d's deal", client.name, seat,
                         roster.holders[seat].since)
            elif roster.seat_of_key(key) != seat:
                del self.waiting[seat]
                client.seat = None
                client.finish(Bye(reason=f"the host proposed another for seat {seat}"))

    def _follow_game(self, client: Client) -> None:
        """Send the running game to ``client``: the start, then the history from its cursor."""
        client.cursor = min(client.hello.resume or 0, len(self.history))
        client.in_game = client.queue(self.start)
        client.owed_sent = None
        self.note_owed()

    def lobby_state(self) -> LobbyState:
        """Who sits where; in a game every seat is listed, a seat nobody holds as not connected
        (after a restart from the transcript, until its player rejoins)."""
        seats = []
        roster = self.roster()
        for s, c in enumerate(self.seats):
            holder = roster.holders[s] if roster is not None else None
            if c is not None and holder is not None and c.hello is not None and \
                    roster.seat_of_key(c.hello.sign_key) != s:
                c = None  # the connection of a key the seat is no longer played with
            if c is not None and c.hello is not None:
                name = holder.describe() if holder is not None and \
                    holder.sign_key == c.hello.sign_key else c.name
                seats.append(SeatInfo(seat=s, name=name[:32] or "?",
                                      fingerprint=fingerprint(c.hello.sign_key), ready=c.ready,
                                      connected=c.connected, left=c.left,
                                      kind="bot" if c.hello.role == "bot" else "player",
                                      host_run=c.hello.sign_key in self.config.host_run))
            elif holder is not None:
                seats.append(SeatInfo(seat=s, name=holder.describe()[:32], ready=True,
                                      connected=False, fingerprint=fingerprint(holder.sign_key),
                                      kind=holder.kind,
                                      host_run=holder.sign_key in self.config.host_run))
        rules = self.start.rules if self.start is not None else self.config.rules
        return LobbyState(seats=tuple(seats), preset=self.rules.name, rules=dict(rules),
                          join_code=self.config.join_code, offers=self._offers(roster),
                          result=self.result, rematch=None if self.votes is None
                          else tuple(sorted(self.votes.votes)),
                          share_threshold=self.sharing.threshold)

    @property
    def sharing(self) -> SharingSetting:
        """The table's sharing setting: the running game's, or ``config.sharing`` resolved
        over the seats the host does not run (a free seat counts as a holder: the person who
        takes it), which the lobby shows and start_game carries."""
        if self.start is not None:
            host_seats = len(self.start.host_run)
            return SharingSetting(self.start.share_threshold, self.players - host_seats)
        host_seats = sum(c is not None and c.hello is not None and
                         c.hello.sign_key in self.config.host_run for c in self.seats)
        return resolve_sharing(self.config.sharing, self.players - host_seats, host_seats)

    def _offers(self, roster: Roster | None) -> tuple[Offer, ...]:
        """The watchers connected now who offer to take a seat (`Hello.offer`), oldest first,
        one a key: only keys a ``hand_over`` may name (protocol.md 11.9), so that no seat is
        shown an offer the host would refuse to sequence: none that plays a seat or sits in the
        lobby, is proposed for a seat, or is the host's own, nor one whose box key is a seat's
        (one box key, one seat)."""
        hellos = [c.hello for c in self.seats if c is not None and c.hello is not None]
        seated = {h.sign_key for h in hellos} | {h.box_key for h in hellos}
        taken = {self.identity.sign_public}
        offers = []
        for client in sorted(self.clients, key=lambda c: c.number):
            hello = client.hello
            if hello is None or hello.offer is None or not client.connected or client.closing:
                continue
            key = hello.sign_key
            if key in taken or key in seated or hello.box_key in seated or (
                    roster is not None and (roster.seat_of_key(key) is not None or
                                            roster.box_key_taken(hello.box_key, None))):
                continue
            taken.add(key)
            offers.append(Offer(name=hello.name, fingerprint=fingerprint(key), sign_key=key,
                                box_key=hello.box_key, kind=hello.offer))
        return tuple(offers[:MAX_OFFERS])

    def changed(self) -> None:
        """Everyone hears who sits where and who is connected (in a game: who left or came back,
        and who plays a seat that changed hands)."""
        self._promote()
        state = self.lobby_state()
        for client in list(self.clients):
            if client.hello is not None and client.conn.our_state in (State.ANSWER, State.LOBBY,
                                                                     State.GAME):
                client.queue(state)

    def _maybe_start(self) -> None:
        if self.start is not None or not all(c is not None and c.ready and c.connected
                                             for c in self.seats):
            return
        for seat, client in reversed(list(enumerate(self.seats))):  # the latest seat leaves
            twin = self._twin(client, client.hello)
            if twin is not None:  # every seat would refuse the start_game
                log.warning("%s at seat %d: %s", client.name, seat, twin)
                client.refuse("table_full", twin)
                self.seats[seat] = client.seat = None
                self.changed()
                return
        players = tuple(PlayerSeat(seat=s, name=c.name, sign_key=c.hello.sign_key,
                                   box_key=c.hello.box_key,
                                   host_run=c.hello.sign_key in self.config.host_run)
                        for s, c in enumerate(self.seats))
        # no one party chooses the game id: it commits to every seat's hello nonce and ours
        host_nonce, nonces = self.config.random(32), tuple(c.hello.nonce for c in self.seats)
        self.start = StartGame(game_id=game_id_of(host_nonce, nonces), host_nonce=host_nonce,
                               nonces=nonces, seats=players, preset=self.rules.name,
                               rules={k: v for k, v in self.config.rules.items()},
                               first_dealer_pick=DealerPick(method="coin_flip"),
                               claim_timeout=self.config.claim_timeout,
                               audit_timeout=self.config.audit_timeout,
                               host_key=self.identity.sign_public,
                               share_threshold=self.sharing.threshold)
        self.on_start(self.start)
        for client in list(self.clients):
            if client.hello is not None and client.connected:
                client.in_game = client.queue(self.start)
        self.note_owed()
        log.info("game %s started: %d seats", self.start.game_id.hex(), len(players))


def _in_place_of(old: Client | None, client: Client, seat: int, why: str) -> None:
    """``client`` is ``seat``'s connection (or waits for it) in place of ``old``, which is
    closed if it is another."""
    if old is not None and old is not client:
        old.drop(why)
        old.closing = True
    client.seat = seat
    client.ready = True


def _replace(seat: int, hello: Hello) -> Replace:
    """The host's proposal that ``hello``'s keys play ``seat``."""
    return Replace(seat=seat, name=hello.name, role=hello.role, sign_key=hello.sign_key,
                   box_key=hello.box_key)


def _seats(seats: list[int]) -> str:
    """"seat 1 was", "seats 1 and 2 were": the seats a refusal names."""
    if len(seats) == 1:
        return f"seat {seats[0]} was"
    return f"seats {', '.join(map(str, seats[:-1]))} and {seats[-1]} were"


def _notices_sent(hello: Hello) -> dict[str, list[str]]:
    """The welcome's word on which notices the client asked for will come (none asked: none)."""
    sent = [name for name in NOTICES if name in hello.notices]
    return {"notices": sent} if hello.notices else {}
