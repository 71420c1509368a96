"""A small shanghai-net bot, written from docs/protocol.md, docs/security.md and docs/rules.md.

    python clients/simple_bot.py HOST:PORT [--name N] [--join-code C] [--quiet] [--vote-after S]

It joins a table as a bot, says it is ready and plays its game to its end; at a table that
stays (protocol.md 6.6) it asks for a rematch at once and plays every game the table plays. It imports nothing
from ``shanghai_net``: only msgpack, PyNaCl (Ed25519, X25519, the Ed25519 group), cryptography
(HKDF, ChaCha20-Poly1305) and the standard library, with one blocking TCP socket.  It is read
top to bottom with its parts beside it: simple_bot_wire.py (frames, the fields it reads, the
faults that stop it), simple_bot_deal.py (the deal's byte layouts, one shuffle, a pick),
simple_bot_sharing.py (version 10's seed sharing, docs/dealing.md) and simple_bot_seats.py (the
seats that change hands, a part of the game's ``Table``); this file holds the game (``Table``),
the seat (``Seat``) and ``main``.

What it does:
- the handshake (a fresh nonce in its hello, checked in the game id), the lobby, framing,
  signing every game message (its counter; a move's basis), and checking every relayed one
  against the chain (seq, counter, basis, signature);
- its whole part of the mental-poker deal: the first-dealer pick, seed commitments, both passes
  of every shuffle (including empty-stock reshuffles), sealed key shares for every card dealt or
  drawn to another seat, the own-key reveal of the upturned card, the reveal of every card it
  shows, the picks of SHANGHAI calls (its own discards get called: it never declares), and at
  each round's end the reveal of its hand and its seeds;
- enough of the game to know what is owed and when (docs/protocol.md 11.1-11.4): every hand as
  tokens in arrival order, the stock, the pile, claim windows, rounds and their end (a round
  whose seeds the host timed out cannot be audited: each absent seat pays ``leave_penalty``
  and the round is dealt again; a seat silent a second time in the game is vacant, 11.6);
- bad input (protocol.md 2 and 9): a frame that is not one map with a string ``type`` is
  answered ``malformed_frame``, an unknown type ``unknown_message``, a field it reads of the
  wrong type ``bad_message``, and it reads on; a length over the cap closes the connection;
- a dropped connection (11.5): it connects again with the same keys and ``resume``, signs the
  host's challenge (``proof``) and takes the game up from its replica;
- seats that change hands (11.5, 11.8): it votes that a seat left (``void_round``) at once when
  the seat's ``leave`` is sequenced (version 10: its last message; a later one of its key names
  the host) or ``lobby_state`` says its player said ``bye``, or once it has been away ``--vote-after``
  seconds (a newcomer that has signed nothing since it took the seat: 60 s more, and not for
  its predecessor's ``bye``); at a table sharing seeds only on the signed stream (11.10): a
  seat whose ``leave`` is sequenced, at once, or one that owes the deal a step, or that the
  host timed out as silent and still holds the table up, with nothing of its own sequenced for
  ``--vote-after`` seconds; it counts every vote per (round, seat), a vote lapsing (and its
  voter free to vote again) once the seat it named sends a deal step, a move or an approval;
  and when more than half the seats named the same seat (or, for seats the host timed out as
  silent, more than half
  the seats that can vote named one or another of them: the one named most, ties to the first
  timed out) the round is void, that seat pays ``leave_penalty`` (not for a
  stand-in's leave, nor twice for one absence) and is vacant, and the round's contract is dealt
  again by the same dealer under the next round number; it approves by itself
  every host ``replace`` of a vacant seat or of one a stand-in bot plays (a ``replace`` with
  role ``bot`` seated it), its own seat's too when it plays as such a stand-in (``approve``);
  it names a host that proposes one key for two seats; and at the start of a round's deal
  seats every replacement approved by every seat not vacant: from then on it checks that seat's
  messages with the new signing key and seals its key shares to the new box key.  If the
  stream gives its own seat to another key, it says ``bye`` and stops (exit status 3).  It can
  also be the replacement: a hello the host answers with a rejoin challenge for a seat of a
  running game makes it prove its key, follow the game signing nothing, and play the seat from
  the deal at which its keys take it (or, a seat lost mid-round at a table sharing seeds, from
  the approval that seats it);
- a seat handed over (11.9): from the message after another seat's ``hand_over`` it checks that
  seat with the successor's signing key, and from the next round's deal seals its shares to the
  successor's box key (it never hands its own seat over);
- the dropout-tolerant deal (docs/dealing.md, protocol version 10), at a table whose
  ``start_game`` sets ``share_threshold`` ``t`` (it refuses one its holders cannot bear, or that
  marks its own seat ``host_run``): its seeds are scalars, each of its commits carries the
  Feldman commitments of its seed's sharing and one sealed share for each holder (rules 1-4:
  not the host's, not vacant, not replaced since the start); as a holder it checks each share
  dealt to it when the commit is sequenced and complains of a bad one (``complaint`` with
  ``share``, before anything else, sending nothing more of that generation); its ``seeds``
  carry the shares it holds (nil for one it complained of); a pick's nonce is read from its
  seed of the latest generation every seat committed to (a lost party's from its rebuilt
  seed); and a seat whose seeds the host timed
  out is rebuilt from the shares in the others' ``seeds`` (R2): every share checked against its
  commitments (one off names its author), the seed against its digest (off names the seat), and
  the round stands, or the game is over;
- a complaint (11.6): the round stops and it sends its seeds of every generation every seat
  committed to; once every seat's are in (or rebuilt) the audit names a seat and the game is
  over;
- the score: every round's hands, ``winner_bonus``, the leave penalty; at the end it logs the
  totals and the winners (and why the game ended early, when an audit named a seat);
- the next game (6.6): at a table that stays (its ``welcome`` says ``rematch``) it asks for a
  rematch at once when the game is over, and at the host's ``next_game`` joins the table it
  names with the same signing key and a fresh box key and nonce, and plays that game too; a
  host's ``bye`` (no rematch) ends it;
- a minimal legal strategy: it draws from the stock, lets every claim window pass
  (``pass_claim``) when its answer matters, and discards its highest card.  It never takes the
  discard, claims, goes down or calls SHANGHAI; rounds end when another seat goes out or the
  round stops (nothing left to draw, or the ``max_turns`` safeguard).

What it does not do:
- verify the deal: it does not audit the seeds at a round's end or check other seats' passes,
  shares or shown cards beyond opening them, nor the game's rules (it trusts the sequenced
  stream for moves: the reference peers check them); so it does not decide a complaint (it
  takes it that the audit names someone) and names no cheat of a seat rebuilt in R2 beyond
  its shares and its seed;
- all of R1 (a seat lost mid-round, rebuilt from its holders' ``share_reveal``s, the round
  going on; on, as in the reference, ``LostSeats.rebuilds_lost``): it follows the vote's bar
  with sharing on, the loss (claim windows leave the seat out while it is vacant, 11.4), the
  ``share_reveal``s (sending its own, checking each), the rebuild, the ``"shares"`` and
  ``"vote"`` timeouts and the replacement seated mid-round
  (sending it the keys of the seat's hidden cards in handed boxes), and from the rebuild takes
  the lost seat's key of every card, drawn or turned up, from its seed, and makes its passes
  not yet sequenced itself, each at its turn, and a lost party's nonce of a pick (checked
  against its ``pick_commit``), and at the round's end with the lost seat vacant shows its own
  key of each hidden card of the lost hand (11.10); it can be that replacement (let in as a newcomer, 11.8): seated
  at the approval, it takes the lost seat's keys from its rebuilt seeds and every other seat's
  from the handed boxes, plays the seat from the turn it was at, and shows its seeds with
  ``"shares": []``; but it does not rebuild at the audit a lost seat whose rebuild did not
  complete (a round stopped by a complaint meanwhile, which it takes to end the game), nor
  commit afresh to a generation restarted for its seat;
- marcelle's big tables and money, progression, carousel, spectating, rejoining after a crash
  (its secrets live in memory only), a vote against a seat that stays connected but silent
  (the reference bots vote against one that owes the deal a step for long; this bot waits for
  the others to), a first-dealer pick voided and held again (never seen: untested), and taking
  back a seat it played before (a ``welcome`` with ``replacing``: it plays only a seat whose
  keys the start gave it, or one it follows from the start as a newcomer).

Exit status: 0 when the game ended and the host answered nothing but ``stale``; 1 when the host
answered another error; 2 when the bot stopped on a fault or an unhandled situation; 3 when the
table gave its seat to another player.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from nacl.public import PrivateKey
from nacl.signing import SigningKey, VerifyKey

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its parts, beside it in clients/
from simple_bot_deal import (Generation, Pick, box_associated_data, box_cipher,  # noqa: E402
                             context, pick_digest, pick_result, seed_commitment)
from simple_bot_seats import Proposal, SeatChanges  # noqa: E402,F401
from simple_bot_sharing import (LostSeats, Rebuild, commit_sharing,  # noqa: E402,F401
                                open_share, pick_nonce, seed_from_shares, seed_scalar,
                                share_fits)
from simple_bot_wire import (FIELDS, HOST_AUTHOR, BadInput, BotStopped, Link,  # noqa: E402,F401
                             LinkLost, Named, SeatTaken, canonical, check_fields,
                             decode_frame, pack)

VERSION = 10
"""The protocol version this client speaks (docs/protocol.md, section 5)."""
MOVE_KINDS = frozenset({"draw_stock", "take_discard", "may_i", "pass_claim", "call_shanghai",
                        "go_down", "lay_off", "swap_joker", "buy_joker", "discard", "rearrange"})
"""Bodies that are moves: they name their basis (docs/protocol.md 8.2)."""
ALIVE_KINDS = MOVE_KINDS | {"deal", "approve"}
"""Bodies that show their seat is not gone: a vote that it left lapses (11.5)."""
GAME_DOMAIN = "shanghai-net/v4/game"
CHAIN_DOMAIN = "shanghai-net/v4/chain"
START_DOMAIN = "shanghai-net/v1/start"
GAME_ID_DOMAIN = b"shanghai-net v1 game id"


PROOF_DOMAIN = b"shanghai-net v1 rejoin"
RETRY_DELAYS = (0.5, 1, 2, 4, 8, 15, 30, 30, 30, 30)
"""Seconds between attempts to get back to a host after the connection broke (11.5)."""
VOTE_AFTER = 180.0
"""Seconds another seat may be away (``lobby_state``: not connected) before this bot votes
that it left; it votes at once for a seat whose player said ``bye`` (``left``).  Longer than a
client's whole reconnection schedule, so a seat whose link blinks is never voted out."""
NEWCOMER_GRACE = 60.0
"""Seconds more a newcomer has (a seat whose holder changed at this deal and that has signed
nothing since) before this bot counts it away: it reads the whole game first (11.5)."""


# --------------------------------------------------------------------------------------------
# Cards (protocol.md section 3) and the rules this bot needs (rules.md).

def card_ids(decks: int, jokers: int) -> list[int]:
    """The game's physical cards in id order: the order a round's first shuffle lists them."""
    return [*range(52 * decks), *range(208, 208 + jokers)]


def card_points(card: int, rules: dict) -> int:
    """A card's penalty points left in a hand (rules.md "scoring"): 2-7 low, 8-K high, ace,
    joker."""
    if card >= 208:
        return rules["points_joker"]
    rank = card % 13 + 1
    return rules["points_ace"] if rank == 1 else \
        rules["points_low"] if rank <= 7 else rules["points_high"]


def card_value(card: int) -> tuple[int, int]:
    """(penalty points, rank) for picking the highest card; a joker is kept, so ranks lowest."""
    if card >= 208:
        return (-1, 0)
    rank = card % 13 + 1
    points = 20 if rank == 1 else 10 if rank >= 8 else 5
    return (points, rank)


PRESETS_FILE = Path(__file__).resolve().parent.parent / "protocol" / "presets.json"
"""Every preset's full field values (protocol/presets.json)."""
SUPPORTED = ("davis", "good-miller")
"""The presets this bot can follow: no big tables, money, progression or carousel."""


def read_rules(preset: str, house_rules: dict) -> dict:
    """The table's rules: the preset's fields from protocol/presets.json, with the house rules
    of ``start_game.rules`` over them (each value already in its type: a boolean is a boolean)."""
    if preset not in SUPPORTED:
        raise BotStopped(f"preset {preset!r} is not supported (only {', '.join(SUPPORTED)})")
    rules = {**json.loads(PRESETS_FILE.read_text())[preset], **house_rules}
    if rules["progression"] or rules["big_table_players"] is not None or rules["money"]:
        raise BotStopped("progression play, big tables and money are not supported")
    rules["rounds"] = len(rules["contracts"])  # one round per contract
    return rules


# --------------------------------------------------------------------------------------------
# The table: this seat's model of the game, fed every sequenced game message in order.

class Window:
    """A claim window (rules.md "Claims"): the seats that may claim, in priority order."""

    def __init__(self, drawer: int, order: list[int]) -> None:
        self.drawer, self.order = drawer, order
        self.decided: dict[int, str] = {}
        self.chose_stock = False

    def matters(self, seat: int) -> bool:
        """Whether ``seat`` must still answer: every seat before it in priority has passed."""
        if seat not in self.order or seat in self.decided:
            return False
        return all(self.decided.get(s) == "pass" for s in self.order[:self.order.index(seat)])

    def winner(self) -> tuple[bool, int | None]:
        """(known, winner): the first claimer in priority, once every seat before it passed."""
        for seat in self.order:
            decision = self.decided.get(seat)
            if decision is None:
                return False, None
            if decision == "claim":
                return True, seat
        return True, None


class Table(LostSeats, SeatChanges):
    """What the sequenced stream has done so far, and what this seat owes next.

    A hand is a list of tokens in the order the cards entered it (the order a SHANGHAI pick
    indexes): ``(generation, position)`` for a card from the deck, ``(-1, card)`` for one that
    entered face up (a taken discard, a freed joker).

    ``seat`` is None while this client follows the game as a replacement whose keys do not
    play a seat yet (protocol.md 11.8, "The newcomer"); ``taking`` is then the seat it waits
    for, and ``sign_key`` the key that takes it."""

    def __init__(self, start: dict, seat: int | None, box_secret: bytes, box_public: bytes,
                 random, sign_key: bytes, taking: int | None = None) -> None:
        self.game_id: bytes = start["game_id"]
        self.seat, self.taking, self.sign_key = seat, taking, sign_key
        self.box_secret, self.box_public = box_secret, box_public
        self.random = random
        """``random(n)``: n fresh random bytes (seeds, nonces)."""
        self.n = len(start["seats"])
        self.sign_keys = {entry["seat"]: entry["sign_key"] for entry in start["seats"]}
        """Who signs for each seat now (the host too, author 8): a seat's key changes when a
        replacement takes it (11.8)."""
        if start.get("host_key") is not None:
            self.sign_keys[HOST_AUTHOR] = start["host_key"]
        self.box_keys = {entry["seat"]: entry["box_key"] for entry in start["seats"]}
        """Each seat's box key now: its key shares are sealed to it."""
        if len(set(self.box_keys.values())) != self.n:
            raise BotStopped("start_game gives two seats one box key: one box key, one seat")
        self.box_keys_held = {seat: {key} for seat, key in self.box_keys.items()}
        """Every box key each seat has held in the game (6.2, 11.8, 11.9): no other seat may
        take one."""
        self.roles = {entry["seat"]: "player" for entry in start["seats"]}
        """Each seat's holder's role now (a ``replace``'s role once one seated it): a seat a
        bot plays as a stand-in may be handed on without a person's word (11.8)."""
        self.keys_before: dict[int, set[bytes]] = {s: set() for s in self.roles}
        """The keys that played each seat before its holder now."""
        self.given_back: set[int] = set()
        """Seats a ``replace`` gave to anyone but a stand-in (a bot with a key new to the
        seat): its player coming back, or a late arrival; once a game (11.8)."""
        self.charged_silent: set[int] = set()
        """Seats charged for their silence that have signed nothing since (11.5, 11.6)."""
        self.unheard: set[int] = set()
        """Newcomers: seats whose holder changed at a deal and that have signed nothing since
        (11.5: a vote against one waits `NEWCOMER_GRACE` more; a left status is its
        predecessor's)."""
        self.silenced: set[int] = set()
        """Seats whose seeds the host timed out once in this game: a second time, the seat is
        vacant (11.6)."""
        self.rules = read_rules(start["preset"], start.get("rules") or {})
        self.share_threshold = start.get("share_threshold")
        """Sharing on (docs/dealing.md): ``t``, the seed shares that rebuild a seat; None: off,
        the deal of version 9."""
        self.host_run = {e["seat"] for e in start["seats"] if e.get("host_run") is True}
        """Seats the host runs in its own process: they hold no share (rule 2)."""
        self.dealt_keys = {e["seat"]: (e["sign_key"], e["box_key"]) for e in start["seats"]}
        self.replaced: set[int] = set()
        """Seats played since a ``replace`` that did not give them back both their
        ``start_game`` keys: they hold no share (rule 4)."""
        if self.share_threshold is not None:
            self.check_sharing(seat)
        self.complaint: list[tuple[int, int]] = []
        """Seed shares dealt to this seat that it found bad, (dealer, generation): it complains
        of them before anything else and sends nothing more of their generation."""
        self.verdict = ""
        """Why the game ended early: the round's audit names a seat (11.6)."""
        self.quit: set[int] = set()
        """Seats whose ``leave`` is sequenced (version 10: its player quit), until a ``replace``
        seats a player there: its key's later messages have no place; we vote it gone at once."""
        self.holder_votes: dict[tuple[int, int], set[int]] = {}
        """(round, seat) -> the votes naming it cast by share holders (R1's bar)."""
        self.finished = False
        self.round_no = 0
        """The deal's number, from 1 (0: the first-dealer pick): it names the deal's context,
        so a round voided and dealt again gets the next one (11.5)."""
        self.contract = 0
        """The contract being played, from 1 (``contracts[contract - 1]``): a voided round's
        contract is dealt again."""
        self.scores = [0] * self.n
        self.waiting_seats = False
        """The next round's deal waits for a seat voted gone to be played again (11.8)."""
        self.vacant: dict[int, int] = {}
        """Seats the table voted gone -> the round they were voted gone in."""
        self.votes: dict[tuple[int, int], set[int]] = {}
        """(round, seat that left) -> the seats that voted so."""
        self.voters: dict[int, set[int]] = {}
        """round -> the seats that voted to void it (one vote a seat a round)."""
        self.silent: dict[int, int] = {}
        """Seat -> seq of the host's ``silent`` timeout of it, until it signs again (11.5)."""
        self.idle: set[int] = set()
        """Of ``silent``, the seats timed out while they owed nothing (v10, 11.5): no voters
        while every seat the table waits on is silent; forgotten when the round is void."""
        self.proposals: dict[int, Proposal] = {}
        """seq of a host ``replace`` still waiting -> its approvals."""
        self.to_approve: list[int] = []
        """The ``replace`` seqs this seat approves and has not yet seen its approval of."""
        self.vote: tuple[int, int] | None = None
        """A vote to send: (round, seat that left); the seat sets it (it sees who is away)."""
        self.changes = 0
        """Rounds voided or stopped by a complaint, proposals dropped and seats lost or seated
        mid-round so far: what was owed before may be owed no more (a message of ours in flight
        then may be refused through no fault of ours, 11.6, 11.10)."""
        self.rekeyed: list[int] = []
        """Seats a replacement took, for the seat to note (who is away there is news)."""
        self.boxes_due: dict[int, bytes] = {}
        """Seat -> the box key its shares are sealed to from the next round's deal (the
        successor's, after a ``hand_over``)."""
        self.voided: set[int] = set()
        """The rounds the table voted void."""
        self.news: list[str] = []
        """What the stream did that the seat tells its user (it logs and clears them)."""
        self.reset()
        pick = start["first_dealer_pick"]
        if pick["method"] == "fixed":
            self.first_dealer(pick["seat"])
        else:
            self.begin_deal()  # round 0: the first-dealer pick (every seat is played)

    def check_sharing(self, seat: int | None) -> None:
        """A ``share_threshold`` the holders can bear (docs/dealing.md, "Version 10 messages"):
        ``floor(h/2)+1 <= t <= h-1`` with ``h >= 3`` holders; and our own seat is not the
        host's (the host did not start this bot)."""
        t, holders = self.share_threshold, self.n - len(self.host_run)
        if not isinstance(t, int) or isinstance(t, bool) or holders < 3 \
                or not holders // 2 + 1 <= t <= holders - 1:
            raise BotStopped(f"start_game's share_threshold {t!r} is not one {holders} holders "
                             "can bear")
        if seat in self.host_run:
            raise BotStopped(f"start_game marks our seat {seat} host_run: the host did not "
                             "start this bot")

    def share_holders(self) -> list[int]:
        """The seats that hold shares now (docs/dealing.md, rules 1-4): sharing on, not the
        host's, not vacant, played by their ``start_game`` keys (or a hand-over from them),
        and not lost this round: a first player given its seat back mid-round holds no share
        of the round's seeds, only from the next deal (its table took the seat afresh)."""
        if self.share_threshold is None:
            return []
        return [s for s in range(self.n) if s not in self.host_run and s not in self.vacant
                and s not in self.replaced and s not in self.rebuilds]

    def reset(self) -> None:
        """The state of a round (round 0: only the first-dealer pick)."""
        n = self.n
        self.gens: dict[int, Generation] = {}
        self.stopped = False
        """A complaint stopped the round: every seat shows its seeds, the audit decides (11.6)."""
        self.published: list[tuple[int, list]] = []
        """Sharing on: each sequenced ``seeds``' shares, (author, entries), in stream order."""
        self.nil_shares: set[tuple[int, int]] = set()
        """(dealer, generation) our sequenced complaint names: our seeds show nil for them."""
        self.rebuilds: dict[int, Rebuild] = {}
        """Seats lost this round (R1) -> their rebuild."""
        self.handing: dict[tuple[int, int], set[int]] = {}
        """(Seat replaced mid-round (R1), generation of its hidden cards) -> the seats that
        still owe its replacement a handed box of them."""
        self.shuffling: int | None = None
        self.pick: Pick | None = None
        self.picks = 0
        self.hands: dict[int, list[tuple[int, int]]] = {s: [] for s in range(n)}
        self.faces: dict[tuple[int, int], int] = {}
        """Tokens whose card this seat knows: its own cards and every card shown."""
        self.shown: set[tuple[int, int]] = set()
        self.owed: dict[tuple[int, int, int], set[int]] = {}
        """(recipient, generation, position) -> seats that still owe it their key."""
        self.public_owed: dict[tuple[int, int], set[int]] = {}
        """The upturned card: seats that still owe their own key for it."""
        self.claims_left = {s: self.rules["claims_per_round"] for s in range(n)}
        self.down: set[int] = set()
        self.pile: list[int] = []
        self.shanghaied: set[int] = set()
        self.discarder: int | None = None
        self.stock_gen, self.top, self.stock_size = 0, 0, 0
        self.waiting_stock: list[int] = []
        """Seats owed a stock card, in order, once the stock can give it."""
        self.reshuffles = self.turns = 0
        self.turn, self.phase, self.window = -1, "", None
        self.over = False
        self.winner: int | None = None
        """The seat that went out (None: nobody, or not yet)."""
        self.seeds_in: set[int] = set()
        self.seeds_missing: set[int] = set()
        """Seats the host timed out for their seeds (11.6): the round cannot be audited."""

    # ---- rounds and shuffles -----------------------------------------------------------

    def first_dealer(self, seat: int) -> None:
        self.dealer = seat - 1  # start_round moves the deal on by one seat
        self.start_round(1)

    def start_round(self, round_no: int, again: bool = False) -> None:
        """Deal round ``round_no``: the next contract by the next dealer, or (``again``) the
        voided round's contract by the same dealer.  Its first shuffle waits while a seat is
        vacant; approved replacements take their seats first (11.8)."""
        self.round_no = round_no
        if not again:
            self.contract, self.dealer = self.contract + 1, (self.dealer + 1) % self.n
        self.reset()
        self.waiting_seats = True
        self.begin_deal()

    def begin_deal(self) -> None:
        """At the start of a round's deal (round 0: of the first-dealer pick, held again after
        a void), and after each message while it waits: seat every fully approved replacement,
        in the order of its ``replace``; then deal (or pick, as the round's next pick, with a
        fresh nonce) unless a seat is still vacant (11.3, 11.8)."""
        if self.round_no:  # a hand-over's box key takes effect at a deal, not at the pick
            self.box_keys.update(self.boxes_due)
            self.boxes_due.clear()
        for seq in sorted(self.proposals):
            if not self.needed(self.proposals[seq]):
                self.take_seat(seq)
        if self.vacant:
            return
        self.waiting_seats = False
        if self.round_no == 0:
            self.pick = self.begin_pick(self.n, list(range(self.n)), self.first_dealer)
            return
        self.begin_shuffle(0, card_ids(self.rules["decks"], self.rules["jokers"]))

    def needed(self, proposal: Proposal) -> set[int]:
        """The seats whose approval ``proposal`` still waits for: every seat not vacant (the
        replaced seat too, when it is not vacant)."""
        return set(range(self.n)) - set(self.vacant) - proposal.approvals

    def begin_shuffle(self, number: int, cards: list[int]) -> None:
        """The shuffle is asked for: its holders are fixed here (its due message)."""
        if self.share_threshold is None:
            seed, holders = self.random(32), None
        else:
            seed, holders = seed_scalar(self.random), self.share_holders()
        self.gens[number] = Generation(self.game_id, self.round_no, number, cards, self.seat,
                                       seed, holders)
        self.shuffling = number

    def shuffled(self) -> None:
        number, self.shuffling = self.shuffling, None
        self.stock_gen, self.stock_size = number, len(self.gens[number].cards)
        self.top = 0
        if number > 0:
            self.deliver()
            return
        size = self.rules["last_round_hand_size" if self.contract == self.rules["rounds"]
                          else "hand_size"]
        for _ in range(self.n * size):  # one at a time, starting left of the dealer
            self.give((self.dealer + 1 + self.top) % self.n)
        self.public_owed[(0, self.top)] = self.keys_owed((0, self.top), set(range(self.n)))
        self.top += 1
        self.turn, self.phase = (self.dealer + 1) % self.n, "draw"

    def give(self, seat: int) -> None:
        """The stock's top card to ``seat``: every other seat owes it a key (but a lost seat
        whose seed is public: its key is everyone's)."""
        token = (self.stock_gen, self.top)
        self.top += 1
        self.hands[seat].append(token)
        self.owe_key(seat, token)

    def owe_key(self, seat: int, token: tuple[int, int]) -> None:
        owers = self.keys_owed(token, set(range(self.n)) - {seat})
        if owers:
            self.owed[(seat, *token)] = owers

    def deliver(self) -> None:
        """Hand out the stock cards owed, reshuffling the pile when the stock runs out."""
        while self.waiting_stock:
            if self.top >= self.stock_size:
                self.reshuffle()
                return
            self.give(self.waiting_stock.pop(0))

    def reshuffle(self) -> None:
        limit = self.rules["max_reshuffles"]  # None: no limit (the presets)
        keep = 0 if self.rules["turn_pile_over"] else 1  # davis turns the whole pile over
        if len(self.pile) <= keep or (limit is not None and self.reshuffles >= limit):
            self.end_round()  # nothing left to draw: the round is stuck
            return
        self.reshuffles += 1
        cut = len(self.pile) - keep
        cards, self.pile = self.pile[:cut], self.pile[cut:]  # bottom to top; the top stays or not
        self.shanghaied &= set(self.pile)
        if not self.pile:
            self.window, self.discarder = None, None
        self.begin_shuffle(max(self.gens) + 1, cards)

    def end_round(self) -> None:
        self.over, self.window, self.phase, self.waiting_stock = True, None, "", []
        self.show_vacant_hands()

    def hidden(self, seat: int) -> list[tuple[int, int]]:
        """The cards of ``seat`` that have not been shown to everyone."""
        return [t for t in self.hands[seat] if t[0] >= 0 and t not in self.shown]

    # ---- claim windows and the pile ------------------------------------------------------

    def open_window(self) -> Window | None:
        """After a discard (and the upturned card): the seats after the drawer may claim, but
        a seat vacant (lost this round, R1: until its replacement is seated; protocol.md 11.4)."""
        if not self.pile or self.pile[-1] in self.shanghaied:
            return None
        order = [s for s in ((self.turn + k) % self.n for k in range(1, self.n))
                 if s != self.discarder and s not in self.vacant
                 and self.claims_left[s] != 0  # None: no limit
                 and (self.rules["claim_when_down"] or s not in self.down)]
        return Window(self.turn, order) if order else None

    def settle_window(self) -> None:
        """Once the drawer chose the stock and the winner is known: the winner takes the card
        and its penalty cards, then the drawer draws; with ``reopen_after_claim`` (davis) the
        card the claim uncovered gets a fresh window and the drawer chooses again instead."""
        window = self.window
        if window is None or not window.chose_stock:
            return
        known, winner = window.winner()
        if not known:
            return
        self.window, self.phase = None, "play"
        if winner is not None:
            if self.claims_left[winner] is not None:
                self.claims_left[winner] -= 1
            self.hands[winner].append((-1, self.expose_top()))
            self.waiting_stock += [winner] * self.rules["claim_penalty"]
            if self.rules["reopen_after_claim"] and self.pile:
                self.phase, self.window = "draw", self.open_window()
                self.deliver()
                return
        self.waiting_stock.append(window.drawer)
        self.deliver()

    def expose_top(self) -> int:
        """Take the top discard off the pile; the card under it may be taken again."""
        card = self.pile.pop()
        if self.pile:
            self.shanghaied.discard(self.pile[-1])
        self.discarder = None
        return card

    # ---- applying the sequenced stream ----------------------------------------------------

    def apply(self, seq: int, author: int, body: dict) -> None:
        """One sequenced message, its signature checked; then, while the next deal waits for
        a seat to be played again, whether it can begin now."""
        kind = body["kind"]
        if author in self.vacant and kind != "protest":  # it may protest its timeout (11.6)
            raise BotStopped(f"the host relayed seq {seq} of seat {author}, which the table "
                             f"voted gone: its key plays no more (11.8)")
        if (kind in ("timeout", "replace")) != (author == HOST_AUTHOR):
            raise BotStopped(f"seq {seq}: a {kind!r} body by author {author}")
        if author in self.quit:
            raise BotStopped(f"the host relayed seq {seq} of seat {author}, whose player left "
                             "(its leave was its last message)")
        if kind == "leave":  # no sign of life: its votes stand, its silence stays
            self.quit.add(author)
            return
        self.charged_silent.discard(author)  # it signed again: a later leave is a new one
        self.unheard.discard(author)  # a newcomer heard: it has read the game up to here
        self.silent.pop(author, None)  # a seat timed out as silent is back
        if kind in ALIVE_KINDS:
            self.lapse(author)
        try:
            self.apply_body(seq, author, body)
        except Named as named:  # the round is void and the game over (11.6)
            self.verdict, self.finished = f"round {self.round_no}: {named}", True
            return
        if self.silent and not self.finished:
            self.count_votes()  # the table may wait for a silent seat again
        if self.waiting_seats and not self.finished:
            self.begin_deal()

    def apply_body(self, seq: int, author: int, body: dict) -> None:
        kind = body["kind"]
        if kind == "deal" and body["data"]["round"] in self.voided:
            return  # a step of a round voided before it was sequenced: nothing depends on it
        if kind == "deal":
            follow = getattr(self, "deal_" + str(body["step"]), None)
            if follow is None:  # share_reveal among them: R1 is not on yet (11.10)
                raise BotStopped(f"seq {seq}: the host sequenced a deal step "
                                 f"{body['step']!r:.40}, which has no place here")
            follow(author, body["data"])
        elif kind == "void_round":
            self.voted(author, body["round"], body["seat"])
        elif kind == "replace":
            self.proposed(seq, body)
        elif kind == "approve":
            self.approved(author, body["seq"])
        elif kind == "hand_over":
            self.handed(seq, author, body)
        elif kind == "timeout" and body.get("what", "claim") == "seeds":
            self.seeds_missing.add(body["seat"])
            self.seeds_done()
        elif kind == "timeout" and body.get("what") == "silent":
            seat, stalled = body["seat"], self.stalled_by()
            timed_out = self.silent.keys() - self.idle
            idle = seat not in stalled and stalled and not stalled - timed_out and \
                seat < self.n and seat not in self.vacant and seat not in self.silent
            if self.auditing() or not idle and (seat not in stalled or seat in timed_out):
                raise BotStopped(f"seq {seq}: the host timed out seat {seat} as silent, which "
                                 "owed the table nothing while it waited on a seat not silent, "
                                 "or was timed out already")
            self.idle.discard(seat)
            if idle:  # the votes against it lapse: they could carry by the majority alone
                self.idle.add(seat)
                self.lapse(seat)
            self.silent[seat] = seq
            self.count_votes()
        elif kind == "timeout" and body.get("what") == "shares":
            self.shares_timed_out(seq, body["seat"])
        elif kind == "timeout" and body.get("what") == "vote":
            self.vote_timed_out(seq, body["seat"])
        elif kind == "timeout":
            self.claim_answer(body["seat"], "pass")
        elif kind == "protest":
            return  # a seat's word against a host timeout: it changes nothing (11.4, 11.6)
        elif kind == "complaint":
            self.complained(seq, author, body)
        elif kind in ("may_i", "pass_claim"):
            self.claim_answer(author, "claim" if kind == "may_i" else "pass")
        elif kind == "draw_stock":
            if self.window is not None:
                self.window.chose_stock = True
                self.settle_window()
            else:
                self.phase = "play"
                self.waiting_stock.append(author)
                self.deliver()
        elif kind == "take_discard":
            self.window, self.phase = None, "play"
            self.hands[author].append((-1, self.expose_top()))
        elif kind == "call_shanghai":
            self.call_shanghai(author)
        elif kind == "go_down":
            self.down.add(author)
            self.played(author, [card for meld in body["melds"] for card in meld])
        elif kind == "lay_off":
            self.played(author, [body["card"]])
        elif kind in ("swap_joker", "buy_joker"):  # the joker comes to the hand face up
            self.hands[author].append((-1, body["joker"]))
            self.played(author, [body["replacement"]]
                        + ([body["extension"]] if kind == "swap_joker" else []))
        elif kind == "discard":
            self.discarded(author, body["card"], body["shanghai"])
        else:
            raise BotStopped(f"this bot cannot follow a {kind!r} move")

    def claim_answer(self, seat: int, decision: str) -> None:
        if self.window is not None:
            self.window.decided[seat] = decision
            self.settle_window()

    def face(self, token: tuple[int, int]) -> int | None:
        return token[1] if token[0] < 0 else self.faces.get(token)

    def take_card(self, seat: int, card: int) -> None:
        """``card`` leaves ``seat``'s hand.  The sequenced stream is trusted for moves (the
        reference peers check them): a card in no token of the hand we track is our tracking
        gone astray, and we stop, saying so."""
        hand = self.hands[seat]
        token = next((t for t in hand if self.face(t) == card), None)
        if token is None:
            raise BotStopped(f"round {self.round_no}: seat {seat} played card {card}, which is "
                             "in no token of its hand as this bot tracks it")
        hand.remove(token)

    def played(self, seat: int, cards: list[int]) -> None:
        """``seat`` put ``cards`` from its hand on the table; an empty hand ends the round."""
        for card in cards:
            self.take_card(seat, card)
        if not self.hands[seat]:
            self.winner = seat
            self.end_round()

    def discarded(self, seat: int, card: int, shanghai: bool) -> None:
        self.pile.append(card)
        if shanghai:
            self.shanghaied.add(card)
        self.discarder = seat
        self.played(seat, [card])
        if self.over:
            return
        self.turns += 1
        if self.rules["max_turns"] is not None and self.turns >= self.rules["max_turns"]:
            self.end_round()  # the turn limit, so that every game ends
            return
        self.turn, self.phase = (seat + 1) % self.n, "draw"
        self.window = self.open_window()

    def call_shanghai(self, caller: int) -> None:
        """The top discard goes onto a meld; the discarder then gets a card of the caller's
        hand, picked at random between the two, and the card uncovered may be claimed."""
        victim = self.discarder
        self.expose_top()
        self.window = None

        def penalty(index: int) -> None:
            token = self.hands[caller].pop(index)
            self.hands[victim].append(token)
            if token[0] >= 0 and token not in self.shown:
                self.owe_key(victim, token)
            if not self.hands[caller]:  # a one-card caller (`shanghai_caller_min_cards` 1) went out
                return self.end_round()
            self.window = self.open_window()

        self.pick = self.begin_pick(len(self.hands[caller]), sorted({caller, victim}), penalty)

    def begin_pick(self, n: int, parties: list[int], then) -> Pick:
        """A pick begun now (protocol.md 11.10, "Pick nonces come from the seed"): with sharing
        on its nonce generation is the latest of the round whose every commit is in, and our
        nonce is read from our seed of it, unless that seed is public or being rebuilt."""
        pick = Pick(self.round_no, self.picks, n, parties, then, b"")
        self.picks += 1
        complete = [gen.number for gen in self.gens.values()
                    if gen.holders is not None and len(gen.commits) == self.n]
        if complete:
            pick.generation = max(complete)
            pick.public = {s for s, rebuild in self.rebuilds.items()
                           if pick.generation in rebuild.generations()}
        from_seed = pick.generation is not None and self.seat is not None \
            and self.seat not in pick.public
        gen = self.gens.get(pick.generation)
        pick.nonce = pick_nonce(gen.ctx, self.seat, pick.number, gen.seed) if from_seed \
            else self.random(32)
        return pick

    def deal_pick_commit(self, author: int, data: dict) -> None:
        self.pick.commits[author] = data["digest"]

    def deal_pick_reveal(self, author: int, data: dict) -> None:
        self.take_nonce(author, data["nonce"])

    def take_nonce(self, author: int, nonce: bytes) -> None:
        """A party's nonce (revealed, or rebuilt with its seed); with every party's the pick is
        decided."""
        pick = self.pick
        pick.nonces[author] = nonce
        if len(pick.nonces) == len(pick.parties):
            self.pick = None
            pick.then(pick_result(context(self.game_id, pick.round_no, 0), pick.number, pick.n,
                                  [pick.nonces[s] for s in pick.parties]))

    def deal_commit(self, author: int, data: dict) -> None:
        """A seed commitment; with sharing on also its dealer's sharing, whose shape every
        party checks, and whose share for us we check at once (docs/dealing.md, "The holder's
        check, at once"): one that does not open, or is off the commitments, we complain of."""
        gen = self.gens[data["generation"]]
        gen.commits[author] = data["digest"]
        if gen.holders is None:
            return
        holders = [h for h in gen.holders if h != author]
        feldman, boxes = data.get("feldman"), data.get("shares")
        if len(holders) < self.share_threshold:  # a commit below t carries no sharing
            if feldman is not None or boxes is not None:
                raise BotStopped(f"the host sequenced seat {author}'s commit of generation "
                                 f"{gen.number} with a sharing among fewer than t holders")
            return
        if not isinstance(feldman, list) or len(feldman) != self.share_threshold \
                or not isinstance(boxes, list) \
                or [b.get("to") if isinstance(b, dict) else None for b in boxes] != holders:
            raise BotStopped(f"the host sequenced seat {author}'s commit of generation "
                             f"{gen.number} without {self.share_threshold} commitments and a "
                             f"share box for each of seats {holders}")
        gen.feldman[author] = feldman
        if self.seat in holders:
            share = open_share(gen.ctx, author, self.seat, self.share_threshold,
                               boxes[holders.index(self.seat)], feldman, self.box_secret,
                               self.box_public)
            if share is None:
                self.complaint.append((author, gen.number))
            else:
                gen.held[author] = share

    def deal_pass(self, author: int, data: dict) -> None:
        gen = self.gens[data["generation"]]
        gen.outputs.append(data["points"])
        self.passes_made(gen)

    def passes_made(self, gen: Generation) -> None:
        """Make each next pass of a lost seat whose seed of ``gen`` is public, at its turn in
        the chain (nobody sends it: protocol.md 11.10, "The rebuild"); the shuffle is done at
        the last pass."""
        while len(gen.outputs) < 2 * self.n:
            seat = len(gen.outputs) % self.n
            seed = self.public_seed(seat, gen.number)
            if seed is None:
                return
            gen.outputs.append(gen.pass_of(seat, seed, 1 + len(gen.outputs) // self.n))
        if self.shuffling == gen.number:
            self.shuffled()

    def deal_shares(self, author: int, data: dict) -> None:
        number = data["generation"]
        gen = self.gens[number]
        for box in data["boxes"]:
            for position in box["positions"]:
                owers = self.owed.get((box["to"], number, position), set())
                owers.discard(author)
                if not owers:
                    self.owed.pop((box["to"], number, position), None)
            if box["to"] == self.seat:
                self.open_box(author, gen, box)
        self.handed_sent(author, data)
        self.open_hand()

    def open_hand(self) -> None:
        """Open each card of our hand whose every other key is here (playing a seat lost this
        round: once its seeds are rebuilt and every handed box of the card's generation is in)."""
        rebuild = self.rebuilds.get(self.seat)
        for token in self.hands[self.seat] if self.seat is not None else ():
            if token[0] < 0 or token in self.faces or (self.seat, *token) in self.owed \
                    or self.handed_due(self.seat, token[0]) or rebuild is not None \
                    and rebuild.seeds is None and token[0] in rebuild.generations():
                continue
            gen = self.gens[token[0]]
            self.keys_owed(token, set(range(self.n)) - {self.seat})  # lost seats' keys: public
            keys = {**gen.keys.get(token[1], {}), self.seat: gen.card_key(token[1])}
            self.faces[token] = gen.open(token[1], list(keys.values()))

    def open_box(self, author: int, gen: Generation, box: dict) -> None:
        """A sealed key share for us (32 bytes a position, in the box's order): keep its keys."""
        cipher = box_cipher(self.box_secret, box["epk"], box["epk"], self.box_public)
        positions = box["positions"]
        plain = cipher.decrypt(bytes(12), box["box"], box_associated_data(
            gen.ctx, author, self.seat, positions))
        if len(plain) != 32 * len(positions):
            raise BotStopped(f"seat {author} sealed {len(plain)} bytes for {len(positions)} keys")
        keys = [plain[i:i + 32] for i in range(0, len(plain), 32)]
        for position, key in zip(positions, keys):
            gen.keys.setdefault(position, {})[author] = key

    def deal_reveal(self, author: int, data: dict) -> None:
        for reveal in data["reveals"]:
            token = (reveal["generation"], reveal["position"])
            gen = self.gens[token[0]]
            owers = self.public_owed.get(token)
            if owers is None:  # a holder shows its own card, with every seat's key
                self.shown.add(token)
                if token not in self.faces:
                    self.faces[token] = gen.open(token[1], [key for _, key in reveal["keys"]])
                continue
            self.upturned_key(token, author, reveal["keys"][0][1])

    def upturned_key(self, token: tuple[int, int], seat: int, key: bytes) -> None:
        """``seat``'s own key of the upturned card; with every seat's, the pile starts with it."""
        gen, owers = self.gens[token[0]], self.public_owed[token]
        owers.discard(seat)
        gen.keys.setdefault(token[1], {})[seat] = key
        if not owers:
            del self.public_owed[token]
            self.faces[token] = gen.open(token[1], list(gen.keys[token[1]].values()))
            self.shown.add(token)  # a later reveal of it (a lost seat's key, say) is news to no one
            if not any(token in hand for hand in self.hands.values()):  # (not a lost hand's)
                self.pile.append(self.faces[token])
                self.window = self.open_window()

    def deal_seeds(self, author: int, data: dict) -> None:
        self.seeds_in.add(author)
        shares = data.get("shares")
        if self.share_threshold is not None:
            self.published.append((author, [e for e in shares if isinstance(e, dict)]
                                   if isinstance(shares, list) else []))
        self.seeds_done()

    def complained(self, seq: int, author: int, body: dict) -> None:
        """A complaint stops the round: no move or deal step more, every seat shows its seeds
        (11.6).  Ours names the seed shares we found bad: our seeds show nil for those."""
        if self.finished or self.auditing() or body.get("round") != self.round_no:
            raise BotStopped(f"the host sequenced seat {author}'s complaint at seq {seq}, which "
                             "has no place now")
        self.stopped, self.window, self.phase = True, None, ""
        self.changes += 1  # a move or deal step of ours in flight is refused: owed no more
        if author == self.seat:
            self.nil_shares.update(self.complaint)
            self.complaint = []

    def rebuild_silent(self) -> set[int]:
        """R2 (docs/dealing.md, "R2, silent at its seeds"): each seat whose seeds the host
        timed out, rebuilt in seat order from the shares in the seeds that came, in every
        generation the audit opens; then each seat lost this round whose rebuild the round's
        stop cut short (R1), in its rebuilt generations (protocol.md 11.10, "The rebuild").
        Every share of it is checked, in stream order: the first off its commitments names its
        author; else the first ``t`` of each generation give its seed, which must be on its
        digest (else it is named).  The seats rebuilt; below ``t`` shares a seat stays absent."""
        audited = {gen.number: gen for gen in self.audited()}
        wanted = [(seat, sorted(audited)) for seat in sorted(self.seeds_missing)]
        wanted += [(seat, sorted(rebuild.generations() & audited.keys()))
                   for seat, rebuild in sorted(self.rebuilds.items()) if rebuild.seeds is None]
        return {seat for seat, numbers in wanted
                if all([self.seed_from_seeds(seat, audited[n]) for n in numbers])}

    def seed_from_seeds(self, seat: int, gen: Generation) -> bytes | None:
        """``seat``'s seed of ``gen`` from the shares in the sequenced seeds (None below ``t``,
        or its commit carried no sharing); Named for a share off its commitments or a seed off
        its digest."""
        if seat not in gen.feldman:  # its commit carried no sharing (below t)
            return None
        shares: dict[int, bytes] = {}
        for author, entries in self.published:
            for entry in entries:
                if (entry.get("generation"), entry.get("dealer")) != (gen.number, seat) \
                        or entry.get("share") is None:
                    continue
                if not share_fits(gen.feldman[seat], author, entry["share"]):
                    raise Named(author, f"its share of seat {seat}'s seed of generation "
                                        f"{gen.number} is off its commitments")
                shares.setdefault(author, entry["share"])
        if len(shares) < self.share_threshold:
            return None
        seed = seed_from_shares(dict(list(shares.items())[:self.share_threshold]))
        if seed_commitment(gen.ctx, seat, seed) != gen.commits[seat]:
            raise Named(seat, f"its seed of generation {gen.number}, rebuilt from its shares, "
                              "is not on its commitment")
        return seed

    def audited(self) -> list[Generation]:
        """The generations the round's audit opens: those every seat committed to (11.6)."""
        return [gen for gen in self.gens.values() if len(gen.commits) == self.n]

    def seeds_done(self) -> None:
        """Once every seat's seeds are in (or timed out): the round is audited and scored, and
        the next round begins or the game is over.  A round whose seeds the host timed out
        cannot be audited: it is void and dealt again, each absent seat paying as one that
        left and, silent a second time in the game, vacant (11.6)."""
        if len(self.seeds_in | self.seeds_missing) < self.n - len(self.rebuilds.keys()
                                                                   & self.vacant.keys()):
            return  # (a seat lost this round owes none while it is vacant; its replacement does)
        if self.share_threshold is not None:
            self.seeds_missing -= self.rebuild_silent()
        if self.stopped and not self.seeds_missing:  # the audit names a seat: the game is over
            self.finished = True
            self.verdict = f"round {self.round_no} was stopped by a complaint, which the audit " \
                           "decides (this bot does not audit)"
            return
        if self.seeds_missing:  # the round cannot be audited: each absent seat left it (11.6)
            missing, self.seeds_missing = sorted(self.seeds_missing), set()
            self.forget_idle()
            # the round is dealt again, past the number the next round would have had (the
            # reference engine began it), unless it was the game's last or stopped mid-way
            skip = 1 if self.over and self.contract < self.rules["rounds"] else 0
            for seat in missing:
                self.charge(seat)
                if seat in self.silenced:  # silent a second time: vacant, as voted gone
                    self.vacant[seat] = self.round_no
                else:
                    self.charged_silent.add(seat)
                    self.silenced.add(seat)
                self.voided.add(self.round_no)
                self.start_round(self.round_no + 1 + skip, again=True)
                skip = 0
            return
        self.score_round()
        if self.contract == self.rules["rounds"]:
            self.finished = True
        else:
            self.start_round(self.round_no + 1)

    def score_round(self) -> None:
        """Each hand's points (every card is shown by now): the winner scores ``winner_bonus``,
        the others their cards; a round nobody went out of scores every hand only with
        ``dead_round_scores`` (rules.md "Scoring")."""
        for seat in range(self.n):
            if seat == self.winner:
                self.scores[seat] += self.rules["winner_bonus"]
            elif self.winner is not None or self.rules["dead_round_scores"]:
                self.scores[seat] += sum(card_points(self.face(t), self.rules)
                                         for t in self.hands[seat])

    def result(self) -> tuple[list[int], list[int]]:
        """(totals, winners): the lowest total wins; ties share the win."""
        best = min(self.scores)
        return list(self.scores), [s for s in range(self.n) if self.scores[s] == best]

    # ---- what this seat owes next ---------------------------------------------------------

    def settled(self) -> bool:
        """No key owed, no shuffle, pick or round end under way: a move may be made."""
        return not (self.owed or self.public_owed or self.waiting_stock or self.over
                    or self.shuffling is not None or self.pick is not None
                    or not self.handed_all())

    def next_body(self) -> dict | None:
        """The next game body this seat must send at this point of the stream, if any."""
        if self.finished or self.seat is None or self.seat in self.vacant:
            return None  # not (or no longer) a seat: its messages would be refused
        if self.complaint and not self.stopped and not self.auditing():
            return self.complaint_body()  # before anything else (11.6)
        if self.stopped:
            return None if self.seat in self.seeds_in else self.seeds()
        if self.vote is not None:
            if self.vote[0] == self.round_no and not self.auditing() \
                    and self.seat not in self.voters.get(self.round_no, ()):
                return {"kind": "void_round", "round": self.vote[0], "seat": self.vote[1]}
            self.vote = None
        if self.to_approve:
            return {"kind": "approve", "seq": self.to_approve[0]}
        published = self.share_reveal() or self.handed_shares()
        if published is not None:
            return published
        if self.pick is not None:
            return self.pick_step(self.pick)
        if self.shuffling is not None:
            gen = self.gens[self.shuffling]
            if self.seat not in gen.commits:
                return self.commit(gen)
            done = len(gen.outputs)
            if len(gen.commits) == self.n and done % self.n == self.seat \
                    and gen.number not in self.complained_of():
                return self.pass_step(gen, 1 + done // self.n)
        mine = sorted((g, recipient, position) for (recipient, g, position), owers
                      in self.owed.items()
                      if self.seat in owers and g not in self.complained_of())
        if mine:
            return self.shares(mine)
        upturned = [token for token, owers in self.public_owed.items() if self.seat in owers]
        if upturned:
            return self.reveal(upturned, own_only=True)
        if self.over:
            mine = [token for token in self.hidden(self.seat) if token not in self.public_owed]
            if mine:  # (a card the others show without its holder is not ours to show)
                return self.reveal(mine)
            if not any(map(self.hidden, range(self.n))) and self.seat not in self.seeds_in:
                return self.seeds()
            return None
        if not self.settled():
            return None
        if self.window is not None and self.window.matters(self.seat):
            return {"kind": "pass_claim"}
        if self.turn != self.seat:
            return None
        if self.phase == "draw" and not (self.window and self.window.chose_stock):
            return {"kind": "draw_stock"}
        if self.phase == "play":
            token = max(self.hands[self.seat], key=lambda t: card_value(self.face(t)))
            if token not in self.shown and token[0] >= 0:
                return self.reveal([token])  # show the card before discarding it
            return {"kind": "discard", "card": self.face(token), "shanghai": False}
        return None

    def deal(self, step: str, **data) -> dict:
        return {"kind": "deal", "step": step, "data": {"round": self.round_no, **data}}

    def pick_step(self, pick: Pick) -> dict | None:
        if self.seat not in pick.parties:
            return None
        if self.seat not in pick.commits:
            digest = pick_digest(context(self.game_id, pick.round_no, 0), pick.number, pick.n,
                                 pick.parties, self.seat, pick.nonce)
            return {"kind": "deal", "step": "pick_commit", "data": {
                "round": pick.round_no, "pick": pick.number, "n": pick.n,
                "parties": pick.parties, "digest": digest}}
        if len(pick.commits) == len(pick.parties) and self.seat not in pick.nonces:
            return {"kind": "deal", "step": "pick_reveal", "data": {
                "round": pick.round_no, "pick": pick.number, "nonce": pick.nonce}}
        return None

    def complained_of(self) -> set[int]:
        """The generations of the seed shares we found bad: we send nothing more of them."""
        return {number for _, number in self.complaint}

    def complaint_body(self) -> dict:
        """Our complaint of the seed shares dealt to us that we found bad (docs/dealing.md, "A
        bad share stops its holder's generation")."""
        dealer, number = self.complaint[0]
        return {"kind": "complaint", "round": self.round_no,
                "reason": f"seat {dealer}'s seed share for seat {self.seat} of generation "
                          f"{number} does not open, or is off its commitments",
                "share": [{"dealer": d, "generation": g} for d, g in self.complaint]}

    def commit(self, gen: Generation) -> dict:
        """Our seed commitment; with sharing on, the seed's sharing among the commit's holders
        beside it (docs/dealing.md, "Sharing at the commit")."""
        data = {"generation": gen.number, "digest": seed_commitment(gen.ctx, self.seat, gen.seed)}
        if gen.holders is not None and \
                len(set(gen.holders) - {self.seat}) >= self.share_threshold:
            data.update(commit_sharing(gen.ctx, self.seat, self.share_threshold, gen.seed,
                                       {h: self.box_keys[h] for h in gen.holders
                                        if h != self.seat}))
        return self.deal("commit", **data)

    def pass_step(self, gen: Generation, phase: int) -> dict:
        points = gen.my_pass(phase)
        return self.deal("pass", generation=gen.number, phase=phase, points=points, proof=b"")

    def shares(self, owed: list[tuple[int, int, int]]) -> dict:
        """One body with a sealed box for every seat owed keys of the first generation owed;
        ``owed`` is sorted (generation, recipient, position)."""
        number = owed[0][0]
        gen = self.gens[number]
        by_recipient: dict[int, list[int]] = {}
        for g, recipient, position in owed:
            if g == number:
                by_recipient.setdefault(recipient, []).append(position)
        boxes = [gen.sealed_keys(recipient, positions, self.box_keys[recipient],
                                 gen.box_secret(recipient, positions))
                 for recipient, positions in sorted(by_recipient.items())]
        return self.deal("shares", generation=number, boxes=boxes)

    def reveal(self, tokens: list[tuple[int, int]], own_only: bool = False) -> dict:
        """Keys that open ``tokens`` for everyone: this seat's own (the upturned card) or every
        seat's (a card of this seat's hand)."""
        reveals = []
        for number, position in tokens:
            gen = self.gens[number]
            keys = {**gen.keys.get(position, {}), self.seat: gen.card_key(position)}
            pairs = [[self.seat, keys[self.seat]]] if own_only else \
                [[s, keys[s]] for s in range(self.n)]
            reveals.append({"generation": number, "position": position, "keys": pairs})
        return self.deal("reveal", reveals=reveals)

    def seeds(self) -> dict:
        """Our seeds of every generation the audit opens; with sharing on, the shares we hold
        of the others' seeds beside them, by generation then dealer, nil for one our complaint
        named (docs/dealing.md, "The shares ride in seeds")."""
        audited = sorted(self.audited(), key=lambda g: g.number)
        lost = self.rebuilds.get(self.seat)  # we play a seat lost this round: no shares
        if lost is not None and lost.seeds is None:  # (a rebuild cut short: its seeds unknown)
            audited = [gen for gen in audited if gen.number not in lost.generations()]
        data = {"seeds": [{"generation": gen.number, "seed": gen.seed} for gen in audited]}
        if lost is not None:
            data["shares"] = []
        elif self.share_threshold is not None:
            data["shares"] = [
                {"generation": gen.number, "dealer": dealer,
                 "share": None if (dealer, gen.number) in self.nil_shares else gen.held.get(dealer)}
                for gen in audited if gen.holders is not None and self.seat in gen.holders
                for dealer in sorted(gen.commits) if dealer in gen.feldman and dealer != self.seat]
        return self.deal("seeds", **data)


# --------------------------------------------------------------------------------------------
# The seat: the connection, the chain, and sending what the table says we owe.

class Seat:
    """One bot seat: handshake, lobby, then the game loop (protocol.md sections 5-8)."""

    def __init__(self, address: tuple[str, int], name: str, join_code: str, log,
                 random=os.urandom, table: str = "", sign_key: SigningKey | None = None) -> None:
        self.address, self.name, self.join_code, self.log = address, name, join_code, log
        self.table_name = table
        """The host's table to sit at (``hello.table``; empty: its first)."""
        self.link = Link(address)
        self.random = random
        self.sign_key = sign_key or SigningKey(random(32))
        self.stays = False
        """The host keeps the table once the game is over (its welcome's ``rematch``, 6.6)."""
        box = PrivateKey(random(32))
        self.box_secret, self.box_public = bytes(box), bytes(box.public_key)
        self.table: Table | None = None
        self.taking: int | None = None
        """The seat the host let us in to take as a replacement (11.8), until the game starts."""
        self.next_seq, self.head = 0, bytes(32)
        self.links: list[bytes] = []
        """The chain hash after each seq: a move's basis names one (8.2)."""
        self.counters: dict[int, int] = {}
        """Each author's last counter in the chain."""
        self.counter = 0
        """Our next message's counter."""
        self.pending: int | None = None
        """The counter of our game message on its way, until it is sequenced or refused."""
        self.sent: dict | None = None
        """That message itself: the host answers it with ``placed`` (6.3), not a copy."""
        self.hold_until = 0
        """Nothing is sent before this seq is in (rejoining: every message sequenced before we
        came back is taken first)."""
        self.moves_from = 0
        """No move is signed before this seq is in (the host said the game moved on there)."""
        self.errors: list[dict] = []
        self.sent_changes = 0
        """The table's ``changes`` when our pending message was signed: a round voided
        meanwhile makes its refusal no error of ours."""
        self.away: dict[int, float] = {}
        """Seats the host shows not connected during the game, and since when (our clock)."""
        self.left: set[int] = set()
        """Of those, the seats whose player said ``bye``: they are not coming back."""
        self.vote_after = VOTE_AFTER
        self.shown: dict | None = None
        """The last ``lobby_state`` before the game: what the lobby showed of its setting."""
        self.stalling: dict[int, float] = {}
        """Seats that owe the deal a step, or that the host timed out as silent and still hold
        the table up, and since when (our clock) nothing of theirs was sequenced: with sharing
        on, the only seats this bot votes gone besides one whose ``leave`` is sequenced."""

    def join(self, resume: int | None = None) -> None:
        """Hello, and the welcome; ``resume``: rejoining our seat of the running game (5, 11.5)."""
        # a fresh nonce in every hello: the game id commits to it (protocol.md 6.2)
        self.nonce = self.random(32)
        self.link.send({"type": "hello", "protocol": "shanghai-net", "version": VERSION,
                        "name": self.name, "sign_key": bytes(self.sign_key.verify_key),
                        "box_key": self.box_public, "join_code": self.join_code,
                        "role": "bot", "nonce": self.nonce, "resume": resume,
                        "table": self.table_name})
        answer = self.receive(30)
        if answer is None or answer["type"] != "welcome":
            raise BotStopped(f"not seated: {answer}")
        if answer["version"] != VERSION or answer["seat"] is None:
            raise BotStopped(f"unexpected welcome: {answer}")
        self.stays = isinstance(answer.get("table"), dict) and answer["table"].get("rematch") is True
        if resume is None and isinstance(answer.get("challenge"), bytes):
            # the game has begun and the host proposed our keys for a seat (11.8): prove them,
            # then follow the game until the stream gives them the seat
            if not isinstance(answer.get("game_id"), bytes):
                raise BotStopped(f"a challenge that names no game: {answer}")
            self.seat = self.taking = answer["seat"]
            proof = self.sign_key.sign(PROOF_DOMAIN + answer["game_id"]
                                       + answer["challenge"]).signature
            self.link.send({"type": "proof", "sig": proof})
            self.log(f"let in to take seat {self.seat} once the table approves it")
            return
        if resume is None:
            self.seat = answer["seat"]
            self.log(f"seated at {self.seat}")
            self.link.send({"type": "ready", "ready": True})
            return
        if answer["seat"] != self.seat or not isinstance(answer.get("challenge"), bytes):
            raise BotStopped(f"the host did not give our seat back: {answer}")
        # prove we hold the seat's key, for the game we know (not the one the welcome names)
        proof = self.sign_key.sign(PROOF_DOMAIN + self.game_id + answer["challenge"]).signature
        self.link.send({"type": "proof", "sig": proof})
        self.pending = self.sent = None  # in flight when the link broke: sequenced or not, we
        # will see it in full (the host places only what this connection sent)
        self.hold_until = max(self.hold_until, answer.get("sequenced", 0))
        self.log(f"rejoined seat {self.seat} at seq {resume}")

    def rejoin(self, lost: LinkLost) -> None:
        """Connect again with the same keys, with backoff, and take the game up from the first
        message we lack (protocol.md 11.5)."""
        self.log(f"connection lost ({lost}); rejoining")
        for delay in RETRY_DELAYS:
            time.sleep(delay)
            try:
                self.link.close()
                self.link = Link(self.address)
                self.join(resume=self.next_seq)
                return
            except LinkLost as again:
                self.log(f"not back yet: {again}")
            except BotStopped as refused:
                if self.table is not None and self.seat in self.table.vacant:
                    raise SeatTaken(f"the table voted seat {self.seat} gone, and the host no "
                                    f"longer takes our key for it ({refused})") from None
                raise
        raise BotStopped("could not get back to the host")

    def receive(self, timeout: float) -> dict | None:
        """The next message we can read; bad input is answered with ``error`` and skipped
        (protocol.md 9: not fatal), so one bad frame costs nothing but itself."""
        while True:
            try:
                message = self.link.receive(timeout)
                if message is not None:
                    check_fields(message)
                return message
            except BadInput as bad:
                self.log(f"answering bad input: {bad}")
                self.link.send({"type": "error", "code": bad.code, "reason": bad.reason[:500]})

    def play(self, idle_timeout: float = 120.0) -> None:
        """Read and answer until the game is over: act once everything that has arrived is
        read, so that we sign against the newest head we can know.  Nothing is read past the
        game's last message: the host's bye and its close follow it, often in the same read,
        and that close is the game's end, not a lost link to rejoin through (issue 28)."""
        while self.table is None or not self.table.finished:
            try:
                message = self.receive(idle_timeout)
                if message is None:
                    raise BotStopped(f"the host was silent for {idle_timeout} s")
                while message is not None:
                    self.handle(message)
                    if self.table is not None and self.table.finished:
                        break
                    message = self.receive(0)
                self.act()
            except LinkLost as lost:
                if self.table is None:
                    raise  # in the lobby there is no seat to take back
                self.rejoin(lost)
            except SeatTaken:
                try:
                    self.link.send({"type": "bye", "reason": "our seat went to another player"})
                except LinkLost:
                    pass  # the host had closed this connection already
                self.link.close()
                raise

    def next_game(self, wait: float = 900.0) -> Seat | None:
        """The game is over.  At a table that stays (6.6) a bot agrees at once: ask for the
        rematch and wait for the host's word; the seat of the next game (the same signing key,
        a fresh box key and nonce, at the table ``next_game`` names), or None when the table
        closes (its ``bye``) or does not stay (we say ``bye``)."""
        try:
            if not self.stays:
                self.link.send({"type": "bye", "reason": "game over"})
                return None
            self.link.send({"type": "rematch"})
            while True:
                message = self.receive(wait)
                kind = None if message is None else message["type"]
                if kind == "ping":
                    self.link.send({"type": "pong", "nonce": message["nonce"]})
                elif kind == "next_game":
                    self.log(f"rematch: game {message['game']} at table {message['table']}")
                    return Seat(self.address, self.name, self.join_code, self.log, self.random,
                                message["table"], self.sign_key)
                elif kind in (None, "bye"):
                    return None
        except LinkLost:
            return None  # the host closed the table: the game was over

    def handle(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "ping":
            self.link.send({"type": "pong", "nonce": message["nonce"]})
        elif kind == "start_game":
            if self.table is None:
                self.as_shown(message)
            self.start(message)
        elif kind == "game":
            self.sequenced(message)
        elif kind == "placed":  # ours, sequenced at seq: chain it as if relayed in full
            if self.sent is None or message["counter"] != self.pending:
                raise BotStopped(f"the host placed a message we did not send, or that it "
                                 f"refused: {message}")
            self.sequenced({**self.sent, "seq": message["seq"]})
        elif kind == "error":
            self.answered(message)
        elif kind == "bye" and self.table is not None and self.table.finished:
            return  # the host says goodbye after the game's last message: the normal end
        elif kind in ("bye", "refused"):
            raise BotStopped(f"the host left: {message}")
        elif kind == "lobby_state" and self.table is not None:
            self.lobby(message)
        elif kind == "lobby_state":
            self.shown = message
        # chat and pong need nothing from a bot

    def as_shown(self, start: dict) -> None:
        """A ``start_game`` whose ``share_threshold`` or ``host_run`` flags differ from what the
        last ``lobby_state`` showed is refused (docs/dealing.md, "Version 10 messages")."""
        if self.shown is None:
            return
        seats = self.shown.get("seats")
        shown = {e.get("seat"): e.get("host_run") is True for e in seats
                 if isinstance(e, dict)} if isinstance(seats, list) else {}
        differ = [e["seat"] for e in start["seats"]
                  if (e.get("host_run") is True) != shown.get(e["seat"], e.get("host_run") is True)]
        if differ or self.shown.get("share_threshold") != start.get("share_threshold"):
            raise BotStopped(f"start_game's share_threshold {start.get('share_threshold')!r} or "
                             f"host_run flags (seats {differ}) are not what the lobby showed")

    def lobby(self, state: dict) -> None:
        """Who is away during the game (``connected`` false), and who of them said ``bye``
        (``left``): the seats this bot may vote gone (11.5)."""
        now = time.monotonic()
        away, left = {}, set()
        for entry in state.get("seats") or ():
            if not isinstance(entry, dict) or not isinstance(entry.get("seat"), int) \
                    or entry.get("connected", True) is not False:
                continue
            away[entry["seat"]] = self.away.get(entry["seat"], now)
            if entry.get("left") is True:
                left.add(entry["seat"])
        self.away, self.left = away, left

    def start(self, start: dict) -> None:
        if self.table is not None:  # rejoining: the same game goes on from our replica
            if start["game_id"] != self.game_id:
                raise BotStopped("the host sent another game's start_game when we rejoined")
            return
        nonces = start["nonces"]
        game_id = hashlib.sha256(GAME_ID_DOMAIN + start["host_nonce"] + b"".join(nonces)).digest()
        if len(nonces) != len(start["seats"]) or start["game_id"] != game_id[:16]:
            raise BotStopped("the host's game id does not commit to the seats' nonces")
        if self.taking is None:  # a seat from the start: our key and our hello's nonce
            mine = next(entry for entry in start["seats"] if entry["seat"] == self.seat)
            if mine["sign_key"] != bytes(self.sign_key.verify_key):
                raise BotStopped("start_game does not carry our key for our seat")
            if nonces[self.seat] != self.nonce:
                raise BotStopped("start_game does not carry the nonce of our hello for our seat")
        self.game_id = start["game_id"]
        # the chain starts at the start digest (8.2): every message vouches for this start_game
        self.start_digest = hashlib.sha256(pack([START_DOMAIN, canonical(start)])).digest()
        self.head = self.start_digest
        self.table = Table(start, None if self.taking is not None else self.seat,
                           self.box_secret, self.box_public, self.random,
                           bytes(self.sign_key.verify_key), self.taking)
        self.log(f"game starts: {start['preset']}, {len(start['seats'])} seats")

    def signed_bytes(self, author: int, counter: int, basis_seq: int | None,
                     basis_head: bytes | None, body: dict) -> bytes:
        return pack([GAME_DOMAIN, self.start_digest, author, counter, basis_seq, basis_head,
                     canonical(body)])

    def sequenced(self, message: dict) -> None:
        """Check a relayed game message against the chain (8.3), then apply it."""
        seq, author, body = message["seq"], message["author"], message["body"]
        counter, basis_seq, basis_head = (message["counter"], message.get("basis_seq"),
                                          message.get("basis_head"))
        if seq != self.next_seq:
            raise BotStopped(f"broken_chain at seq {seq} (expected {self.next_seq})")
        if counter <= self.counters.get(author, -1):
            raise BotStopped(f"seq {seq}: author {author}'s counter {counter} does not rise")
        if basis_seq is not None and (basis_seq >= seq or self.links[basis_seq] != basis_head):
            raise BotStopped(f"broken_chain: seq {seq}'s basis is not a link of our chain")
        signed = self.signed_bytes(author, counter, basis_seq, basis_head, body)
        try:  # with the key the stream gave the seat last (11.8)
            VerifyKey(self.table.sign_keys[author]).verify(signed, message["sig"])
        except Exception:
            raise BotStopped(f"bad_signature at seq {seq} by {author}") from None
        link = pack([CHAIN_DOMAIN, seq, self.head])
        self.head = hashlib.sha256(link + signed + message["sig"]).digest()
        self.links.append(self.head)
        self.counters[author] = counter
        self.next_seq = seq + 1
        if author == self.seat and counter == self.pending:
            self.pending = self.sent = None  # ours was sequenced
        was = self.table.seat
        self.table.apply(seq, author, body)
        now, table = time.monotonic(), self.table
        self.stalling = {s: now if author == s else self.stalling.get(s, now)
                         for s in table.waiting_for() | table.still_silent() if s != table.seat}
        for seat in self.table.rekeyed:  # a new holder: its predecessor's absence is not its own
            self.left.discard(seat)
            self.away.pop(seat, None)
            self.stalling.pop(seat, None)
        self.table.rekeyed.clear()
        for line in self.table.news:
            self.log(line)
        self.table.news.clear()
        if was is None and self.table.seat is not None:
            self.taking = None
            self.log(f"our keys play seat {self.table.seat} from round {self.table.round_no}")

    def answered(self, error: dict) -> None:
        """An error about our pending message: it was not sequenced.  ``stale`` is expected
        (a move raced the game's moving on): decide again once the chain has brought the
        message it names."""
        if error.get("ref_counter") is not None and error["ref_counter"] == self.pending:
            self.pending = self.sent = None
            if error["code"] == "stale" and error.get("ref_seq") is not None:
                self.moves_from = error["ref_seq"] + 1
            table = self.table
            if table is not None and (table.changes != self.sent_changes
                                      or self.seat in table.vacant):
                # a round voided or stopped (or a proposal dropped, a seat lost or seated
                # mid-round, our seat voted gone) after we signed it: what we sent is owed
                # no more
                self.log(f"our message was overtaken: {error['code']}: {error['reason']}")
                return
        if error["code"] != "stale":
            if error.get("ref_counter") is not None:  # refused: not again before the stream
                self.hold_until = max(self.hold_until, self.next_seq + 1)  # has moved on
            self.errors.append(error)
            self.log(f"error from the host: {error['code']}: {error['reason']}")

    def act(self) -> None:
        """Sign and send what we owe now, one message at a time (the host fills in seq); a
        move names the chain's head as its basis."""
        if self.table is None or self.pending is not None or self.next_seq < self.hold_until:
            return
        self.consider_vote()
        body = self.table.next_body()
        if body is None:
            return
        is_move = body["kind"] in MOVE_KINDS
        if is_move and (self.next_seq < self.moves_from or not self.links):
            return
        basis_seq, basis_head = (self.next_seq - 1, self.head) if is_move else (None, None)
        self.counter = max(self.counter, self.counters.get(self.seat, -1) + 1)
        signed = self.signed_bytes(self.seat, self.counter, basis_seq, basis_head, body)
        self.sent = {"type": "game", "author": self.seat, "counter": self.counter, "body": body,
                     "sig": self.sign_key.sign(signed).signature}
        if is_move:  # nil fields are left off (6.3)
            self.sent.update(basis_seq=basis_seq, basis_head=basis_head)
        self.link.send(self.sent)
        self.pending, self.sent_changes = self.counter, self.table.changes
        self.counter += 1

    def consider_vote(self) -> None:
        """Vote that a seat left (11.5): at once for one whose ``leave`` is sequenced (version
        10) or whose player said ``bye``, else once
        it has been away ``vote_after`` seconds (a newcomer: `NEWCOMER_GRACE` more, and its
        predecessor's ``bye`` is not its own); one vote a round (again once it lapsed), none
        while the round's audit waits for its seeds (the seeds decide it).  At a table sharing
        seeds (11.10) only on the signed stream: a seat `stalling` for ``vote_after`` (a
        newcomer: `NEWCOMER_GRACE` more), or whose ``leave`` is sequenced; never on the
        lobby's word."""
        table = self.table
        if table.vote is not None or table.seat is None or table.seat in table.vacant \
                or table.finished or table.auditing() \
                or table.seat in table.voters.get(table.round_no, ()):
            return
        now = time.monotonic()
        shared = table.share_threshold is not None
        away, left = (self.stalling, set()) if shared else (self.away, self.left)
        grace = {s: NEWCOMER_GRACE if s in table.unheard else 0.0 for s in away}
        gone = [s for s in sorted(set(away) | table.quit)
                if s != table.seat and s not in table.vacant and 0 <= s < table.n
                and (s in table.quit or s in left - table.unheard
                     or now - away[s] >= self.vote_after + grace[s])]
        if gone:  # the first the host timed out as silent, else one the table waits for (11.5)
            stalled = table.stalled_by()
            timed_out = {s: q for s, q in table.silent.items() if s not in table.idle}
            seat = min(gone, key=lambda s: (timed_out.get(s, 1 << 62), s not in stalled, s))
            table.vote = (table.round_no, seat)
            self.log(f"voting that seat {seat} left round {table.round_no}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("address", help="HOST:PORT of the table")
    parser.add_argument("--name", default="simple bot")
    parser.add_argument("--join-code", default="")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--vote-after", type=float, default=VOTE_AFTER,
                        help="seconds a seat may be away before this bot votes that it left")
    args = parser.parse_args(argv)
    host, _, port = args.address.rpartition(":")

    def log(text: str) -> None:
        if not args.quiet:
            print(f"[{args.name}] {text}", file=sys.stderr, flush=True)

    try:
        seat = Seat((host, int(port)), args.name, args.join_code, log)
        seat.vote_after = args.vote_after
        while True:
            seat.join()
            seat.play()
            totals, winners = seat.table.result()
            if seat.table.verdict:
                log(f"the game ended early: {seat.table.verdict}")
            log(f"result: totals {totals}, winners {winners}")
            following = seat.next_game()
            if following is None:
                break
            following.vote_after, following.errors = seat.vote_after, seat.errors
            seat.link.close()
            seat = following
    except SeatTaken as taken:
        log(f"stopped: {taken}")
        return 3
    except BotStopped as stop:
        log(f"stopped: {stop}")
        return 2
    log("game over" + (f" with {len(seat.errors)} errors" if seat.errors else ", no errors"))
    return 1 if seat.errors else 0


if __name__ == "__main__":
    sys.exit(main())
