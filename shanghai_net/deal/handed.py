"""The replacement takes the hand (sharing on; docs/dealing.md, "The replacement takes the hand
from that turn").

Once a lost seat's replacement is seated, every other live seat sends it, for each generation,
its key of every hidden card of the seat's hand, sealed to the replacement's box key in a box
of deal/box.py's key-share format whose secret is read under its own label, so that a key sent
again for a position already sent to the seat's old player never reuses a box secret with
another recipient key:

    SHAKE-256(b"shanghai-net v1 key" || ctx || u8 sender || u8 10 || b"handed box"
              || u8 seat || 32-byte new box key || u16 count || u16 position... || seed)

The replacement adds the seat's own keys from the rebuilt seed and opens the hand; nobody else
learns it.  The audit opens every handed box with its sender's seed and names a sender whose
box is wrong.  A mixin of :class:`~shanghai_net.deal.participant.Participant`, which owns the
state it reads.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from .box import SealedShare, seal, share_in, unseal, unseal_with_secret
from .errors import CheatDetected
from .generation import Generation
from .group import is_scalar
from .messages import Context
from .seeds import SeedKeys
from .sharing import seed_stream


def handed_box_secret(context: Context, sender: int, seed: bytes, seat: int, box_key: bytes,
                      positions: tuple[int, ...]) -> bytes:
    """The X25519 secret of ``sender``'s box handing ``seat``'s ``positions`` to the replacement
    whose box key is ``box_key`` (raw)."""
    inputs = (bytes([seat]) + box_key + len(positions).to_bytes(2, "big")
              + b"".join(p.to_bytes(2, "big") for p in positions))
    return seed_stream(context, sender, b"handed box", inputs, seed).digest(32)


def audit_handed(g: Generation, sealed: SealedShare, sender: SeedKeys) -> None:
    """The handed box opens with its sender's secret to the sender's keys of its positions;
    else the sender is named."""
    author, seat = sealed.author, sealed.recipient
    where = f"the box handing seat {seat}'s positions {list(sealed.positions)} to its replacement"
    box_key = g.sharing.successors[seat]
    try:
        secret = handed_box_secret(g.context, author, g.seed_of(author), seat, box_key,
                                   sealed.positions)
        share = share_in(unseal_with_secret(secret, X25519PublicKey.from_public_bytes(box_key),
                                            sealed), sealed)
    except ValueError as error:
        raise CheatDetected(author, f"seat {author}: {where} is bad: {error}") from None
    if share.keys != tuple(sender.card_keys[p] for p in sealed.positions):
        raise CheatDetected(author, f"seat {author}: {where} holds keys its seed does not give")


class HandingOn:
    """The participant's side of handing a lost seat's hand to its replacement."""

    def lost_hand(self, generation: int, seat: int) -> tuple[int, ...]:
        """The positions of ``seat``'s hidden cards of ``generation``, as this seat dealt them."""
        g = self.generation(generation)
        return tuple(sorted(p for p, holder in g.given.items()
                            if holder == seat and p not in g.public))

    def hand_to_replacement(self, generation: int, seat: int) -> SealedShare | None:
        """This seat's keys of replaced ``seat``'s hidden cards of ``generation``, sealed to its
        replacement (send it there; show it to all); ``None`` if it holds none."""
        g = self.generation(generation)
        if seat not in self._successors or seat == self.seat:
            raise ValueError(f"seat {seat} has no replacement for seat {self.seat} to hand to")
        positions = self.lost_hand(generation, seat)
        if not positions:
            return None
        secret = handed_box_secret(g.context, self.seat, g.seed, seat, self._successors[seat],
                                   positions)
        sealed = self.seal_handed(g, seat, positions, secret)
        g.sharing.handed.append(sealed)
        return sealed

    def seal_handed(self, g: Generation, seat: int, positions: tuple[int, ...],
                    secret: bytes) -> SealedShare:
        """Box this seat's keys of ``positions`` for ``seat``'s replacement.

        Tests model a cheating sender by overriding this in a subclass."""
        return seal(secret, self._boxes[seat], g.context, self.seat, seat, positions,
                    b"".join(g.keys.card_keys[p] for p in positions))

    def record_handed(self, sealed: SealedShare) -> None:
        """A box handing a lost hand on, as the stream carried it: the replacement opens it
        (:meth:`receive_handed`), everyone else keeps it for the audit."""
        g = self.generation(sealed.context.generation)
        seat, where = sealed.recipient, f"a box handing seat {sealed.recipient}'s hand on"
        if seat not in self._successors or sealed.author == seat:
            raise ValueError(f"{where} from seat {sealed.author}, which is no replaced seat's")
        dealt = {p for b in g.boxes if b.recipient == seat for p in b.positions} - set(g.public)
        if not sealed.positions or not set(sealed.positions) <= dealt:
            raise ValueError(f"{where}: positions {list(sealed.positions)} are not the hand of "
                             f"seat {seat} (a box to it in the stream, not turned up)")
        if any(b.author == sealed.author and b.recipient == seat for b in g.sharing.handed):
            raise ValueError(f"{where}: seat {sealed.author} handed seat {seat}'s hand on already")
        g.sharing.handed.append(sealed)
        if sealed.recipient == self.seat and g.seed is not None:
            self._take_handed(g, sealed)

    def _take_handed(self, g: Generation, sealed: SealedShare) -> None:
        try:
            share = share_in(unseal(self._box_key, sealed), sealed)
        except ValueError as error:
            raise CheatDetected(sealed.author, f"seat {sealed.author}: {error}") from None
        if not all(isinstance(p, int) and 0 <= p < g.size for p in share.positions) or \
                not all(map(is_scalar, share.keys)):
            raise CheatDetected(sealed.author, f"seat {sealed.author}: handed keys for positions "
                                               f"{list(share.positions)} are malformed")
        g.received_shares.append(share)

    def handed_positions(self, generation: int) -> tuple[int, ...]:
        """The positions of this seat's hand that were handed to it as a replacement."""
        g = self.generation(generation)
        return tuple(sorted({p for sealed in (g.sharing.handed if g.sharing else ())
                             if sealed.recipient == self.seat for p in sealed.positions}))
