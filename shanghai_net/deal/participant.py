"""One seat's side of the deal, as a sans-IO state machine.

The driver (the network layer, or :class:`~shanghai_net.deal.table.MentalTable` in one process)
hands every broadcast message to :meth:`Participant.receive` and every sealed share addressed to
this seat to :meth:`Participant.receive_share`, and asks the participant for its own messages
when the protocol says it is its turn.  Nothing here does I/O or reads a clock; all randomness
comes from the injected ``random`` source.

A point is validated where it is used: this seat's multiplication of a pass output (its pass, a
draw, a reveal check) rejects any point outside the prime-order subgroup, and the failure names
the seat that produced it.  Every pass output is also checked by every seat for its size and for
repeated points.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import msgpack
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..cards import Card
from .audit import Verdict, audit, made_pass, opened_deck
from .box import SealedShare, raw_public, seal, share_in, unseal
from .errors import CheatDetected, GenerationStopped
from .generation import Generation
from .handed import HandingOn
from .holding import ShareHolding
from .lost import LostSeat, LostSeats
from .picking import Pick, Picking
from .group import InvalidPoint, invert, is_scalar, multiply, scalar_product
from .messages import (Commitment, Context, KeyReveal, KeyShare, Message, PassOutput,
                       PickCommitment, PickReveal, SeedReveal, SharedCommitment,
                       ShareReveal, SharedSeedReveal)
from .proof import prove_shuffle, verify_shuffle
from .randomness import RandomBytes
from .seeds import SEED_BYTES, commitment_digest
from .shares import GenerationShares, check_commit, shared_commit
from .silent import check_seeds_shares, owed_shares, rebuild_silent
from .sharing import seed_scalar

Token = tuple[int, int]
"""How the engine names a hidden card: (generation, position)."""


class Participant(ShareHolding, LostSeats, HandingOn, Picking):
    """One seat in the deal of one round of one game."""

    own_when_sequenced = False
    """Whether this seat's own passes, key-share boxes and share reveals join the deal's
    public state when the stream sequences them (`receive`, `record_box`), not when
    `make_pass`, `share_keys` and `share_reveal` make them: a driver whose stream is sequenced
    by another (the table) sets it, so that this seat's view of the deal is the stream's, as
    every other party's is.  A pass made and not sequenced is no step of the generation here:
    a seat lost meanwhile restarts a generation whose passes had not begun at every party
    alike (docs/dealing-review.md, review of the code (session 18) #4), and every party keeps
    one order of boxes, by which a box to a seat replaced mid-round is audited (review of the
    code #12).  In one process (MentalTable) a message is sequenced as it is made."""

    def __init__(self, seat: int, boxes: Sequence[X25519PublicKey], game_id: bytes, round: int,
                 box_key: X25519PrivateKey, random: RandomBytes,
                 shuffle_proof: bool = False, share_threshold: int | None = None) -> None:
        if not 2 <= len(boxes) <= 255 or not 0 <= seat < len(boxes):
            raise ValueError(f"seat {seat} of {len(boxes)} seats: need 2..255 seats")
        if share_threshold is not None and not 2 <= share_threshold < len(boxes):
            raise ValueError(f"a share threshold of {share_threshold} at {len(boxes)} seats")
        self.seat = seat
        self.seats = len(boxes)
        self.game_id = game_id
        self.round = round
        self.shuffle_proof = shuffle_proof
        self.share_threshold = share_threshold
        """Sharing on: ``t``, the table's threshold of seed shares; ``None``: sharing off."""
        self._roster = tuple(boxes)
        """Every seat's X25519 key at ``start_game``: a holder's (no replacement holds shares)."""
        self._boxes = list(boxes)
        """Every seat's X25519 key, in seat order: what a share for it is sealed to (a
        replacement's from the message that seats it)."""
        self._box_key = box_key
        self._random = random
        self._generations: dict[int, Generation] = {}
        self._picks: dict[int, _Pick] = {}
        self._lost: dict[int, LostSeat] = {}
        """Sharing on: the seats lost this round (R1), and what their rebuild waits for."""
        self._successors: dict[int, bytes] = {}
        """Sharing on: seat -> the box key of the replacement seated in it this round."""
        self._made: dict[int, PassOutput] = {}
        """generation -> this seat's pass made and not yet sequenced (`own_when_sequenced`):
        made again, it is the same message, its proof's randomness not drawn twice.  Kept when
        its generation restarts at a loss (`lose`), where the table's record of it being sent,
        `PeerTable._passes_sent`, is wiped so that it goes again."""
        Context(game_id, round, 0)  # validates game_id and round

    def outgoing(self, message: Message) -> Message:
        """Last look at each message before it leaves this seat: the honest seat changes nothing.

        Tests model a cheat by overriding this in a subclass."""
        return message

    # -- shuffling ---------------------------------------------------------------------------

    def start_generation(self, generation: int, cards: Sequence[Card],
                         holders: Iterable[int] | None = None) -> Commitment:
        """Draw a fresh seed for a new shuffle of ``cards`` and commit to it (broadcast it).

        With sharing on, ``holders`` are the generation's holders (the table's rules 1 to 4 at
        the message that asks for the shuffle): the seed is a scalar, and the commit carries its
        sharing, one sealed share for each holder but this seat; ``None``: the generation is
        dealt without sharing (so at a table with too few holders left)."""
        g = self._new_generation(generation, cards, holders)
        g.seed = seed_scalar(self._random) if g.sharing else self._random(SEED_BYTES)
        return self._commit(g)

    def _new_generation(self, generation: int, cards: Sequence[Card],
                        holders: Iterable[int] | None) -> Generation:
        if generation in self._generations:
            raise ValueError(f"generation {generation} was already started")
        if not cards or len(set(cards)) != len(cards) or len(cards) > 0xFFFF:
            raise ValueError(f"a shuffle needs 1 or more distinct cards, got {list(cards)!r:.200}")
        if holders is not None and self.share_threshold is None:
            raise ValueError("a generation has holders only when the table shares seeds")
        sharing = None if holders is None else GenerationShares.at(self.share_threshold, holders,
                                                                    self.seats)
        if sharing:
            sharing.successors.update(self._successors)
            sharing.replaced_at.update(dict.fromkeys(self._successors, 0))
        g = Generation(Context(self.game_id, self.round, generation), tuple(cards), self.seats,
                       self.seat, None, sharing=sharing)
        self._generations[generation] = g
        return g

    def _commit(self, g: Generation) -> Commitment:
        if g.sharing is None or not g.sharing.commit_holders(self.seat):  # below t: no sharing
            commitment = Commitment(g.context, self.seat,
                                    commitment_digest(g.context, self.seat, g.seed))
        else:
            commitment = shared_commit(g.context, self.seat, g.seed, g.sharing.threshold,
                                       {h: self._roster[h]
                                        for h in g.sharing.commit_holders(self.seat)})
        commitment = self.outgoing(commitment)
        g.commitments[self.seat] = commitment
        return commitment

    def generation(self, generation: int) -> Generation:
        try:
            return self._generations[generation]
        except KeyError:
            raise ValueError(f"generation {generation} was never started here") from None

    def next_step(self, generation: int) -> tuple[int, int] | None:
        """(phase, seat) of the pass the generation waits for, or ``None`` once it is shuffled."""
        g = self.generation(generation)
        return g.step_of(len(g.passes)) if len(g.passes) < 2 * self.seats else None

    def make_pass(self, generation: int) -> PassOutput:
        """This seat's next pass (broadcast it): pass 1 keys and permutes, pass 2 re-keys.
        With `own_when_sequenced` it is a step of the generation once the stream brings it
        back, and asked again before (the host refused it, or the generation restarted), the
        same message."""
        g = self.generation(generation)
        step = len(g.passes)
        if self.next_step(generation) is None or g.step_of(step)[1] != self.seat:
            raise ValueError(f"generation {generation} does not wait for seat {self.seat}'s pass")
        self._require_commitments(g)
        self._require_not_stopped(g)
        phase = g.step_of(step)[0]
        made = self._made.get(generation)
        if made is not None and made.phase == phase:
            return made
        points = made_pass(g, step, g.keys)
        proof = b""
        if phase == 1 and self.shuffle_proof:
            proof = prove_shuffle(g.context, self.seat, g.step_input(step), points, g.keys.pass_key,
                                  g.keys.permutation, self._random)
        output = self.outgoing(PassOutput(g.context, self.seat, phase, tuple(points), proof))
        if self.own_when_sequenced:
            self._made[generation] = output
        else:
            g.passes.append(output)
            self._advance_rebuilt(g)
        return output

    def final_deck(self, generation: int) -> tuple[bytes, ...]:
        return self.generation(generation).final_deck

    def _require_not_stopped(self, g: Generation) -> None:
        """A holder that complained of a share of ``g`` sends nothing more of it."""
        if g.sharing and self.seat in g.sharing.complaints:
            raise GenerationStopped(f"seat {self.seat} complained of seat "
                                    f"{g.sharing.complaints[self.seat][0]}'s share of generation "
                                    f"{g.context.generation}: it sends nothing more of it")

    def _require_commitments(self, g: Generation) -> None:
        missing = [s for s in range(self.seats) if s not in g.commitments]
        if missing:
            raise ValueError(f"generation {g.context.generation}: no seed commitment yet from "
                             f"seats {missing}")

    # -- receiving broadcasts ----------------------------------------------------------------

    def receive(self, message: Message) -> None:
        """Take in one broadcast message from another seat (or, with `own_when_sequenced`, a
        pass or share reveal of this seat's as the stream brings it back); raises
        CheatDetected or ValueError.

        The caller vouches for ``message.author``: on the network, the game message that carried
        it verified with that seat's key."""
        context = message.context
        if (context.game_id, context.round) != (self.game_id, self.round):
            raise ValueError(f"message for game {context.game_id!r} round {context.round}, "
                             f"not game {self.game_id!r} round {self.round}")
        if not 0 <= message.author < self.seats:
            raise ValueError(f"message from seat {message.author}, not one of {self.seats} seats")
        if message.author in self._lost and message.author not in self._successors:
            raise ValueError(f"message from seat {message.author}: seat {message.author} is vacant "
                             "(lost this round, not yet replaced), and sends nothing")
        handlers = {Commitment: self._on_commitment, SharedCommitment: self._on_commitment,
                    SharedSeedReveal: self._on_seed_reveal, PassOutput: self._on_pass,
                    KeyReveal: self._on_reveal, SeedReveal: self._on_seed_reveal,
                    ShareReveal: self._on_share_reveal,
                    PickCommitment: self._on_pick_commitment, PickReveal: self._on_pick_reveal}
        if type(message) not in handlers:
            raise ValueError(f"a {type(message).__name__} is not broadcast")
        handlers[type(message)](message)

    def _on_commitment(self, commitment: Commitment) -> None:
        g = self.generation(commitment.context.generation)
        if g.sharing:
            check_commit(g.sharing, commitment)
        elif isinstance(commitment, SharedCommitment):
            raise ValueError(f"seat {commitment.author}'s commit carries a sharing, at a table "
                             "that shares no seeds")
        before = g.commitments.setdefault(commitment.author, commitment)
        if before != commitment:
            raise CheatDetected(commitment.author, f"seat {commitment.author}: sent two different "
                                                   "seed commitments")
        if g.sharing and g.seed is not None and self.seat not in self._successors and \
                self.seat in g.sharing.commit_holders(commitment.author):
            self._take_share(g, commitment)  # a replacement holds none (its predecessor's box)

    def _on_pass(self, output: PassOutput) -> None:
        g = self.generation(output.context.generation)
        if output.phase not in (1, 2):
            raise ValueError(f"no pass {output.phase}")
        step = (output.phase - 1) * self.seats + output.author
        if step < len(g.passes):
            if g.passes[step] != output:
                raise CheatDetected(output.author, f"seat {output.author}: sent two different "
                                                   f"pass {output.phase} outputs")
            return
        if step != len(g.passes):
            phase, seat = g.step_of(len(g.passes))
            raise ValueError(f"pass {output.phase} from seat {output.author} out of turn: "
                             f"pass {phase} of seat {seat} comes first")
        self._require_commitments(g)
        made = self._made.pop(g.context.generation, None) if output.author == self.seat else None
        if output != made:  # (ours as we made it needs no check)
            self._check_pass(g, step, output)
        g.passes.append(output)
        self._advance_rebuilt(g)

    def _check_pass(self, g: Generation, step: int, output: PassOutput) -> None:
        points = output.points
        problem = None
        if len(points) != g.size:
            problem = f"has {len(points)} points, not {g.size}"
        elif set(map(type, points)) != {bytes} or set(map(len, points)) != {32}:
            problem = "holds something that is not a 32-byte point"
        elif len(set(points)) != g.size:
            problem = "repeats a point"
        elif output.phase == 1 and self.shuffle_proof:
            flaw = verify_shuffle(g.context, output.author, g.step_input(step), points, output.proof)
            problem = flaw and f"comes with a shuffle proof that does not verify: {flaw}"
        if problem:
            raise CheatDetected(output.author, f"seat {output.author}: pass {output.phase} "
                                               f"output {problem}")

    # -- private draws -----------------------------------------------------------------------

    def share_keys(self, generation: int, recipient: int, positions: Iterable[int]) -> SealedShare:
        """This seat's keys for ``positions``, sealed for ``recipient`` alone (send it there).

        Refuses a position already given to another seat: no card goes to two players."""
        g = self.generation(generation)
        g.final_deck  # noqa: B018 - raises until the shuffle is complete
        self._require_not_stopped(g)
        if g.sharing and self.seat in g.sharing.rebuilt:
            raise ValueError(f"seat {self.seat}'s keys of generation {generation} are public: "
                             "each recipient takes them from its rebuilt seed")
        positions = tuple(positions)
        if recipient == self.seat or not 0 <= recipient < self.seats:
            raise ValueError(f"seat {self.seat} cannot share keys with seat {recipient}")
        self._check_positions(g, positions)
        for p in positions:
            holder = g.given.get(p, recipient)
            if holder != recipient or p in g.mine:
                raise ValueError(f"position {p} of generation {generation} already went to seat "
                                 f"{self.seat if p in g.mine else holder}")
        for p in positions:
            g.given[p] = recipient
        share = self.outgoing(KeyShare(g.context, self.seat, recipient, positions,
                                       tuple(g.keys.card_keys[p] for p in positions)))
        sealed = self.seal(g, share)
        if not self.own_when_sequenced:
            g.boxes.append(sealed)
        return sealed

    def seal(self, g: Generation, share: KeyShare) -> SealedShare:
        """Box ``share`` for its recipient under the box secret this seat's seed gives it.

        Tests model a cheating sender by overriding this in a subclass."""
        return seal(g.keys.box_secret(share.recipient, share.positions),
                    self._boxes[share.recipient], g.context, self.seat, share.recipient,
                    share.positions, b"".join(share.keys))

    def record_box(self, sealed: SealedShare) -> None:
        """A box between two other seats, as the stream carried it: kept for the audit, which
        opens it once its sender's seed is revealed."""
        g = self.generation(sealed.context.generation)
        own = sealed.author == self.seat and self.own_when_sequenced
        if self.seat in (sealed.author, sealed.recipient) and g.seed is not None and \
                self.seat not in self._lost and not own:
            raise ValueError(f"seat {self.seat} is a party to this box: use receive_share")
        g.boxes.append(sealed)  # (or a replacement following its predecessor's boxes)

    def receive_share(self, sealed: SealedShare) -> None:
        """Take in keys another seat sealed for this one; the card opens with :meth:`open`.

        The box is kept for the audit whether or not it opens; a box that does not open, or
        holds a wrong share, raises CheatDetected naming its sender (only this seat can see it
        until the seeds are revealed: it complains, and the audit decides)."""
        if sealed.recipient != self.seat or sealed.author == self.seat \
                or not 0 <= sealed.author < self.seats:
            raise ValueError(f"share from seat {sealed.author} to seat {sealed.recipient} "
                             f"delivered to seat {self.seat}")
        g = self.generation(sealed.context.generation)
        g.boxes.append(sealed)
        try:
            share = share_in(unseal(self._box_key, sealed), sealed)
        except ValueError as error:
            raise CheatDetected(sealed.author, f"seat {sealed.author}: {error}") from None
        if not all(isinstance(p, int) and 0 <= p < g.size for p in share.positions):
            raise CheatDetected(share.author, f"seat {share.author}: key share for positions "
                                              f"{list(share.positions)}, off the deck")
        if not all(map(is_scalar, share.keys)):
            raise CheatDetected(share.author, f"seat {share.author}: key share for positions "
                                              f"{list(share.positions)} holds a malformed key")
        g.received_shares.append(share)

    def open(self, generation: int, position: int) -> Card:
        """The card at ``position``, once every other seat's key for it has arrived."""
        g = self.generation(generation)
        self._check_positions(g, (position,))
        if position in g.mine:
            return g.mine[position]
        keys = self._keys_of(g, position)
        missing = [s for s in range(self.seats) if s not in keys]
        if missing:
            raise ValueError(f"position {position} of generation {generation}: no key yet from "
                             f"seats {missing}")
        card = self._strip(g, position, keys, culprit=None)
        g.mine[position] = card
        return card

    def hand_over(self, generation: int, position: int, holder: int, recipient: int) -> None:
        """Record that ``holder``'s hidden card at ``position`` now goes to ``recipient`` (the
        public game moved it, as a SHANGHAI penalty does): the holder gives it up, and every seat
        but the recipient may then share its key for it with the recipient alone."""
        g = self.generation(generation)
        self._check_positions(g, (position,))
        if holder == recipient or not 0 <= recipient < self.seats:
            raise ValueError(f"seat {holder} cannot hand position {position} to seat {recipient}")
        held = position in g.mine if self.seat == holder else g.given.get(position) == holder
        # (R1) a replacement in a generation its predecessor was dealt in (following it, or
        # its seat rebuilt) knows neither its hand nor whom its seat's keys went to: the
        # stream's word is all it has, and its seat's keys of the generation are public
        following = g.seed is None or bool(g.sharing and self.seat in g.sharing.rebuilt)
        if not (held or following) or position in g.public:
            raise ValueError(f"position {position} of generation {generation} is not a hidden "
                             f"card of seat {holder}")
        g.mine.pop(position, None)
        if self.seat == recipient:
            g.given.pop(position, None)
        else:
            g.given[position] = recipient

    def _keys_of(self, g: Generation, position: int) -> dict[int, bytes]:
        """Every key of ``position`` this seat has: received, public (rebuilt), and its own."""
        return {**self._rebuilt_keys(g, position), **g.received(position),
                self.seat: g.keys.card_keys[position]}

    def _check_positions(self, g: Generation, positions: Sequence[int]) -> None:
        if not positions or len(set(positions)) != len(positions) or \
                any(not isinstance(p, int) or not 0 <= p < g.size for p in positions):
            raise ValueError(f"positions {list(positions)} are not distinct positions of a "
                             f"{g.size}-card deck")

    def _strip(self, g: Generation, position: int, keys: dict[int, bytes],
               culprit: int | None) -> Card:
        """Remove every layer from the final point at ``position``; the card it shows."""
        last = self.seats - 1
        try:
            point = multiply(invert(scalar_product(keys.values())), g.final_deck[position])
        except InvalidPoint:
            raise CheatDetected(last, f"seat {last}: pass 2 output position {position} is not a "
                                      "valid point") from None
        card = g.card_points.get(point)
        where = f"position {position} of generation {g.context.generation}"
        if card is None:
            if culprit is not None:
                raise CheatDetected(culprit, f"seat {culprit}: reveal of {where} carries a forged "
                                             "key: it opens to no card")
            raise CheatDetected(None, f"{where} does not open to a card of its deck: a key or a "
                                      "pass is wrong; the round-end audit names who")
        elsewhere = {p for p, c in (*g.mine.items(), *g.public.items()) if c == card}
        if elsewhere - {position}:
            raise CheatDetected(culprit, f"{where} opens to {card!r}, already at position "
                                         f"{min(elsewhere)}")
        return card

    # -- public reveals ----------------------------------------------------------------------

    def reveal(self, generation: int, position: int) -> KeyReveal:
        """Show one of this seat's cards to all (broadcast it): every key of its position."""
        g = self.generation(generation)
        card = g.mine.get(position)
        if card is None:
            raise ValueError(f"position {position} of generation {generation} is not a card of "
                             f"seat {self.seat}")
        keys = self._keys_of(g, position)
        reveal = self.outgoing(KeyReveal(g.context, self.seat, position,
                                         tuple(sorted(keys.items()))))
        g.reveals.append(reveal)
        g.public[position] = g.mine.pop(position)
        return reveal

    def reveal_own_key(self, generation: int, position: int) -> KeyReveal:
        """This seat's key for a position no one holds (turning up a stock card), or a card of
        a lost seat still vacant at the round's end (its key comes from its seed); broadcast
        it."""
        g = self.generation(generation)
        self._check_positions(g, (position,))
        holder = g.given.get(position)
        vacant = holder in self._lost and holder not in self._successors
        if (position in g.given and not vacant) or position in g.mine:
            raise ValueError(f"position {position} of generation {generation} is held by a "
                             "player: only its holder reveals it")
        reveal = self.outgoing(KeyReveal(g.context, self.seat, position,
                                         ((self.seat, g.keys.card_keys[position]),)))
        try:
            self._take_reveal(g, reveal)
        except CheatDetected:
            pass  # ours was the last key and the card does not open: public_card stays None
        return reveal

    def _on_reveal(self, reveal: KeyReveal) -> None:
        g = self.generation(reveal.context.generation)
        self._check_positions(g, (reveal.position,))
        seats = [seat for seat, _ in reveal.keys]
        whole = sorted(seats) == list(range(self.seats))
        if not (whole or seats == [reveal.author]):
            raise ValueError(f"a reveal holds every seat's key or its author's, not seats {seats}")
        if not all(is_scalar(key) for _, key in reveal.keys):
            raise CheatDetected(reveal.author, f"seat {reveal.author}: reveal of position "
                                               f"{reveal.position} holds a malformed key")
        self._take_reveal(g, reveal)

    def _take_reveal(self, g: Generation, reveal: KeyReveal) -> None:
        g.reveals.append(reveal)
        if reveal.position in g.public:
            return
        if len(reveal.keys) == self.seats:
            self._turn_up(g, reveal.position, dict(reveal.keys), reveal.author)
        else:
            self._turn_up_own_keys(g, reveal.position)

    def _turn_up_own_keys(self, g: Generation, position: int) -> None:
        """Open a card turned up once every seat's own key is in: revealed, or a rebuilt
        seat's, which is public (R1).  CheatDetected, naming no one, if it opens to nothing."""
        keys = {**self._rebuilt_keys(g, position), **g.revealed(position)}
        if len(keys) == self.seats:
            self._turn_up(g, position, keys, None)

    def _turn_up(self, g: Generation, position: int, keys: dict[int, bytes],
                 culprit: int | None) -> None:
        card = self._strip(g, position, keys, culprit)
        g.mine.pop(position, None)
        g.public[position] = card

    def public_card(self, generation: int, position: int) -> Card | None:
        """The card at ``position`` if it has been revealed to all and checked here."""
        return self.generation(generation).public.get(position)

    # -- what the engine adapter asks ----------------------------------------------------------

    def hand(self) -> dict[Token, Card]:
        """This seat's hidden cards: token -> card."""
        return {(number, p): card for number, g in sorted(self._generations.items())
                for p, card in sorted(g.mine.items())}

    def token_of(self, card: Card) -> Token:
        """The token of one of this seat's hidden cards (the one it wants to play)."""
        for token, held in self.hand().items():
            if held == card:
                return token
        raise ValueError(f"seat {self.seat} holds no hidden {card!r}")

    # -- saving and restoring ----------------------------------------------------------------

    SAVE_VERSION = 3

    def save(self) -> bytes:
        """This seat's round state, seeds included: keep it private, on this seat's own disk."""
        picks = [[number, *state.to_plain()] for number, state in sorted(self._picks.items())]
        shared = {} if self.share_threshold is None else {
            "share_threshold": self.share_threshold, "boxes": [raw_public(k) for k in self._boxes],
            "lost": [[seat, lost.to_plain()] for seat, lost in sorted(self._lost.items())],
            "successors": sorted(self._successors.items())}
        return msgpack.packb({"version": self.SAVE_VERSION, "seat": self.seat,
                              "game_id": self.game_id, "round": self.round,
                              "shuffle_proof": self.shuffle_proof,
                              "generations": [g.to_plain() for g in self._generations.values()],
                              "picks": picks, **shared})

    @classmethod
    def restore(cls, saved: bytes, boxes: Sequence[X25519PublicKey], box_key: X25519PrivateKey,
                random: RandomBytes) -> Participant:
        """A participant that carries on from :meth:`save` (after a crash, say)."""
        try:
            state = msgpack.unpackb(saved)
            if state["version"] != cls.SAVE_VERSION:
                raise ValueError(f"save format version {state['version']}, not {cls.SAVE_VERSION}")
            participant = cls(state["seat"], boxes, state["game_id"], state["round"], box_key,
                              random, state["shuffle_proof"], state.get("share_threshold"))
            participant._boxes = [X25519PublicKey.from_public_bytes(k)
                                  for k in state.get("boxes", ())] or list(boxes)
            participant._lost = {seat: LostSeat.from_plain(plain)
                                 for seat, plain in state.get("lost", ())}
            participant._successors = dict(map(tuple, state.get("successors", ())))
            for plain in state["generations"]:
                g = Generation.from_plain(plain)
                participant._generations[g.context.generation] = g
            for number, *plain in state["picks"]:
                participant._picks[number] = Pick.from_plain(plain)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a saved participant: {error}") from None
        return participant

    # -- round-end audit -----------------------------------------------------------------------

    def reveal_seeds(self, generations: Iterable[int] | None = None) -> list[SeedReveal]:
        """This seat's seed of every generation, or of ``generations`` (broadcast them at the
        round's end, or when a complaint stops the round).  With sharing on each carries the
        shares this seat holds of the generation (nil for those it complained of).  A
        replacement leaves out a generation whose seed it does not have (its seat's rebuild had
        not completed): the audit rebuilds it from the shares in the others' seeds."""
        reveals = []
        for number in sorted(self._generations if generations is None else generations):
            g = self.generation(number)
            if g.seed is None:
                continue
            if g.sharing is None:
                reveal = SeedReveal(g.context, self.seat, g.seed)
            else:
                complained = g.sharing.complaints.get(self.seat, ())
                reveal = SharedSeedReveal(g.context, self.seat, g.seed, tuple(
                    (dealer, None if dealer in complained else g.sharing.held[dealer])
                    for dealer in owed_shares(g, self.seat, self._lost)))
            reveal = self.outgoing(reveal)
            g.seed_reveals[self.seat] = reveal
            reveals.append(reveal)
        return reveals

    def _on_seed_reveal(self, reveal: SeedReveal) -> None:
        g = self.generation(reveal.context.generation)
        if g.sharing:
            check_seeds_shares(g, reveal, self._lost)
        elif isinstance(reveal, SharedSeedReveal):
            raise ValueError(f"seat {reveal.author}'s seeds carry shares, at a table that shares "
                             "no seeds")
        before = g.seed_reveals.setdefault(reveal.author, reveal)
        if before != reveal:
            raise CheatDetected(reveal.author, f"seat {reveal.author}: revealed two seeds")

    def transcript_digest(self, generation: int) -> bytes:
        """What this seat saw broadcast in ``generation``; every seat's must be the same."""
        return self.generation(generation).transcript_digest()

    def opened_decks(self) -> dict[int, tuple[Card, ...]]:
        """Every generation of the round opened from the revealed seeds (generation -> cards by
        position); only after a clean `audit`."""
        return {number: opened_deck(g) for number, g in self._generations.items()}

    def rebuild_silent(self, absent: Iterable[int],
                       generations: Iterable[int] | None = None) -> frozenset[int]:
        """R2 over every generation (or ``generations``): the ``absent`` seats (seeds timed
        out), then the seats lost this round whose rebuild the round's stop cut short, rebuilt
        from the shares in the sequenced ``seeds`` (deal/silent.py); the seats whose seeds the
        audit still lacks, for :meth:`audit`."""
        numbers = sorted(self._generations if generations is None else generations)
        return rebuild_silent({n: self.generation(n) for n in numbers}, absent,
                              {seat: lost.generations for seat, lost in sorted(self._lost.items())
                               if not lost.rebuilt})

    def audit(self, generations: Iterable[int] | None = None,
              absent: frozenset[int] = frozenset()) -> Verdict:
        """Recompute every step of every generation (or of ``generations``) from the revealed
        or rebuilt seeds, then (sharing on) every pick nonce read from one of them; the steps
        of ``absent`` seats, whose seeds the audit lacks (with sharing on, what
        :meth:`rebuild_silent` left absent), are not checked."""
        numbers = sorted(self._generations if generations is None else generations)
        verdict = audit([self.generation(n) for n in numbers], self._roster, absent)
        wrong_nonce = verdict.clean and self.audit_picks(numbers)
        return Verdict(*wrong_nonce) if wrong_nonce else verdict
