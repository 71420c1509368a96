"""Between the engine and the deal core on one side and the wire's game bodies on the other.

Moves travel as their own body kinds (card ids for cards, ``"low"``/``"high"`` for ends); the
deal's messages travel as ``deal`` bodies whose ``step`` and ``data`` are laid out here and in
docs/protocol.md, section 11.  Every conversion from the wire raises ``ValueError`` for anything
malformed, so the caller can answer ``bad_message`` (the host) or name the author (a peer).
"""

from __future__ import annotations

from typing import Any

from ..cards import Card, card_from_id
from ..deal.box import BOX_OVERHEAD, KEY_BYTES, SealedShare
from ..deal.messages import (Commitment, Context, KeyReveal, Message, PassOutput,
                             PickCommitment, PickReveal, SeedReveal, ShareReveal,
                             SharedCommitment, SharedSeedReveal)
from ..deal.sharing import SHARE_BOX_BYTES
from ..engine import moves as em
from ..rules.melds import End
from ..wire import messages as wm
from ..wire.fields import Blob, Int, ListOf, Nullable

__all__ = ["move_to_body", "body_to_move", "deal_body", "shares_body",
           "reveals_body", "seeds_body", "parse_deal", "step_body", "DealStep",
           "deal_data_schemas"]

# -- moves ---------------------------------------------------------------------------------------


def _end(end: End | None) -> str | None:
    return end.value if end is not None else None


def _parse_end(text: str | None) -> End | None:
    return End(text) if text is not None else None


def _card(card_id: int) -> Card:
    try:
        return card_from_id(card_id)
    except (ValueError, IndexError, KeyError) as error:
        raise ValueError(f"no card {card_id}: {error}") from None


def _ids(cards: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(c.id for c in cards)


def _cards(card_ids: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(_card(c) for c in card_ids)


def move_to_body(move: em.Move, top: Card | None = None) -> wm.Body:
    """The wire body of an engine move (the seat travels as the message's author); ``top`` is
    the top discard, which a ``call_shanghai`` body names."""
    if isinstance(move, em.DrawStock):
        return wm.DrawStock()
    if isinstance(move, em.TakeDiscard):
        return wm.TakeDiscard()
    if isinstance(move, em.MayI):
        return wm.MayI()
    if isinstance(move, em.PassClaim):
        return wm.PassClaim()
    if isinstance(move, em.CallShanghai):
        if top is None:
            raise TypeError("a call_shanghai body names the top discard: pass top")
        return wm.CallShanghai(card=top.id, meld=move.meld, end=_end(move.end))
    if isinstance(move, em.GoDown):
        return wm.GoDown(melds=tuple(_ids(meld) for meld in move.melds))
    if isinstance(move, em.LayOff):
        return wm.LayOff(card=move.card.id, meld=move.meld, end=_end(move.end))
    if isinstance(move, em.SwapJoker):
        return wm.SwapJoker(meld=move.meld, joker=move.joker.id, replacement=move.replacement.id,
                            extension=move.extension.id, end=_end(move.end))
    if isinstance(move, em.BuyJoker):
        return wm.BuyJoker(meld=move.meld, joker=move.joker.id, replacement=move.replacement.id)
    if isinstance(move, em.Discard):
        return wm.Discard(card=move.card.id, shanghai=move.shanghai)
    if isinstance(move, em.Rearrange):
        return wm.Rearrange(table=tuple(_ids(meld) for meld in move.table),
                            played=_ids(move.played))
    raise TypeError(f"{move!r} has no wire body")


def body_to_move(body: wm.Body, seat: int) -> em.Move:
    """The engine move a (decoded) body stands for, made by ``seat``."""
    if isinstance(body, wm.DrawStock):
        return em.DrawStock(seat)
    if isinstance(body, wm.TakeDiscard):
        return em.TakeDiscard(seat)
    if isinstance(body, wm.MayI):
        return em.MayI(seat)
    if isinstance(body, wm.PassClaim):
        return em.PassClaim(seat)
    if isinstance(body, wm.CallShanghai):
        return em.CallShanghai(seat, body.meld, _parse_end(body.end))
    if isinstance(body, wm.GoDown):
        return em.GoDown(seat, tuple(_cards(meld) for meld in body.melds))
    if isinstance(body, wm.LayOff):
        return em.LayOff(seat, _card(body.card), body.meld, _parse_end(body.end))
    if isinstance(body, wm.SwapJoker):
        return em.SwapJoker(seat, body.meld, _card(body.joker), _card(body.replacement),
                            _card(body.extension), _parse_end(body.end))
    if isinstance(body, wm.BuyJoker):
        return em.BuyJoker(seat, body.meld, _card(body.joker), _card(body.replacement))
    if isinstance(body, wm.Discard):
        return em.Discard(seat, _card(body.card), body.shanghai)
    if isinstance(body, wm.Rearrange):
        # the shape only: whether the table is a partition into melds is for the engine
        return em.Rearrange(seat, tuple(_cards(meld) for meld in body.table), _cards(body.played))
    raise ValueError(f"body kind {body.KIND!r} is not a move")


MOVE_BODIES = (wm.DrawStock, wm.TakeDiscard, wm.MayI, wm.PassClaim, wm.CallShanghai, wm.GoDown,
               wm.LayOff, wm.SwapJoker, wm.BuyJoker, wm.Discard, wm.Rearrange)

# -- deal steps ----------------------------------------------------------------------------------


def deal_body(message: Message) -> wm.Deal:
    """One deal message (not a key share, a key reveal or a seed) as a ``deal`` body; a
    `ShareReveal` (sharing on) as a ``share_reveal``."""
    c = message.context
    if isinstance(message, Commitment):
        sharing = {} if not isinstance(message, SharedCommitment) else {
            "feldman": list(message.feldman),
            "shares": [{"to": to, "epk": epk, "box": box} for to, epk, box in message.shares]}
        return wm.Deal("commit", {"round": c.round, "generation": c.generation,
                                  "digest": message.digest, **sharing})
    if isinstance(message, PassOutput):
        return wm.Deal("pass", {"round": c.round, "generation": c.generation,
                                "phase": message.phase, "points": list(message.points),
                                "proof": message.proof})
    if isinstance(message, PickCommitment):
        return wm.Deal("pick_commit", {"round": c.round, "pick": message.pick, "n": message.n,
                                       "parties": list(message.parties),
                                       "digest": message.digest})
    if isinstance(message, PickReveal):
        return wm.Deal("pick_reveal", {"round": c.round, "pick": message.pick,
                                       "nonce": message.nonce})
    if isinstance(message, ShareReveal):
        return wm.Deal("share_reveal", {"round": c.round, "seat": message.seat, "shares": [
            {"generation": generation, "share": share} for generation, share in message.shares]})
    raise TypeError(f"{type(message).__name__} travels in a bundle")


def shares_body(round_no: int, generation: int, sealed: list[SealedShare]) -> wm.Deal:
    return wm.Deal("shares", {"round": round_no, "generation": generation, "boxes": [
        {"to": s.recipient, "positions": list(s.positions), "epk": s.epk, "box": s.ciphertext}
        for s in sealed]})


def reveals_body(round_no: int, reveals: list[KeyReveal]) -> wm.Deal:
    return wm.Deal("reveal", {"round": round_no, "reveals": [
        {"generation": r.context.generation, "position": r.position,
         "keys": [[seat, key] for seat, key in r.keys]} for r in reveals]})


def seeds_body(round_no: int, seeds: list[SeedReveal]) -> wm.Deal:
    """The seeds of a round; with sharing on also the shares the author holds of
    each generation's other seeds, by generation then dealer, in one list."""
    shares = {} if not any(isinstance(s, SharedSeedReveal) for s in seeds) else {"shares": [
        {"generation": s.context.generation, "dealer": dealer, "share": share}
        for s in seeds for dealer, share in getattr(s, "shares", ())]}
    return wm.Deal("seeds", {"round": round_no, "seeds": [
        {"generation": s.context.generation, "seed": s.seed} for s in seeds], **shares})


class DealStep:
    """A decoded ``deal`` body: its step, round, and the deal messages it carries."""

    def __init__(self, step: str, round_no: int, messages: list[Message],
                 sealed: list[SealedShare], generation: int | None = None) -> None:
        self.step = step
        self.round = round_no
        self.messages = messages
        self.sealed = sealed
        self.generation = generation


def _int(data: dict, key: str, lo: int = 0, hi: int = 2**32 - 1) -> int:
    value = data.get(key)
    if type(value) is not int or not lo <= value <= hi:
        raise ValueError(f"data.{key}: expected an integer {lo}..{hi}, got {value!r:.40}")
    return value


def _bytes(data: dict, key: str, size: int | None = None) -> bytes:
    value = data.get(key)
    if not isinstance(value, bytes) or (size is not None and len(value) != size):
        raise ValueError(f"data.{key}: expected {size or 'some'} bytes, got {value!r:.40}")
    return value


def _list(data: dict, key: str, limit: int = 1024) -> list:
    value = data.get(key)
    if not isinstance(value, (list, tuple)) or len(value) > limit:
        raise ValueError(f"data.{key}: expected an array of at most {limit} items")
    return list(value)


def _map(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a map, got {value!r:.40}")
    return value


def parse_deal(body: wm.Deal, game_id: bytes, author: int) -> DealStep:
    """Decode a ``deal`` body sent by ``author``; ValueError for anything malformed."""
    data = body.data
    step = body.step
    round_no = _int(data, "round")

    def ctx(generation: int) -> Context:
        return Context(game_id, round_no, generation)

    if step == "commit":
        gen = _int(data, "generation")
        digest = _bytes(data, "digest", 32)
        if "feldman" not in data and "shares" not in data:
            return DealStep(step, round_no, [Commitment(ctx(gen), author, digest)], [], gen)
        return DealStep(step, round_no, [SharedCommitment(ctx(gen), author, digest,
                                                          *_sharing(data))], [], gen)
    if step == "pass":
        gen = _int(data, "generation")
        points = _list(data, "points", 0xFFFF)
        if not all(isinstance(p, bytes) and len(p) == 32 for p in points):
            raise ValueError("data.points: expected 32-byte points")
        return DealStep(step, round_no, [PassOutput(ctx(gen), author, _int(data, "phase", 1, 2),
                                                    tuple(points), _bytes(data, "proof"))],
                        [], gen)
    if step == "shares":
        gen = _int(data, "generation")
        sealed = []
        for i, box in enumerate(_list(data, "boxes", 255)):
            box = _map(box, f"data.boxes[{i}]")
            positions = _list(box, "positions", 0xFFFF)
            if not all(type(p) is int and 0 <= p <= 0xFFFF for p in positions):
                raise ValueError(f"data.boxes[{i}].positions: expected positions 0..65535")
            size = BOX_OVERHEAD + KEY_BYTES * len(positions)  # one key a position, and the tag
            sealed.append(SealedShare(ctx(gen), author, _int(box, "to", 0, 255), tuple(positions),
                                      _bytes(box, "epk", 32), _bytes(box, "box", size)))
        return DealStep(step, round_no, [], sealed, gen)
    if step == "reveal":
        reveals = []
        for i, item in enumerate(_list(data, "reveals", 0xFFFF)):
            item = _map(item, f"data.reveals[{i}]")
            keys = []
            for pair in _list(item, "keys", 255):
                if not (isinstance(pair, (list, tuple)) and len(pair) == 2
                        and type(pair[0]) is int and 0 <= pair[0] <= 255
                        and isinstance(pair[1], bytes)):
                    raise ValueError(f"data.reveals[{i}].keys: expected [seat, key] pairs")
                keys.append((pair[0], pair[1]))
            reveals.append(KeyReveal(ctx(_int(item, "generation")), author,
                                     _int(item, "position", 0, 0xFFFF), tuple(keys)))
        return DealStep(step, round_no, reveals, [])
    if step == "seeds":
        messages: list[Message] = []
        held = _held_shares(data) if "shares" in data else None
        for i, item in enumerate(_list(data, "seeds", 255)):
            item = _map(item, f"data.seeds[{i}]")
            generation = _int(item, "generation")
            seed = _bytes(item, "seed")
            messages.append(SeedReveal(ctx(generation), author, seed) if held is None else
                            SharedSeedReveal(ctx(generation), author, seed,
                                             tuple(held.pop(generation, ()))))
        if held:
            raise ValueError(f"data.shares: shares of generations {sorted(held)}, which carry "
                             "no seed")
        return DealStep(step, round_no, messages, [])
    if step == "pick_commit":
        parties = _list(data, "parties", 255)
        if not all(type(p) is int and 0 <= p <= 255 for p in parties):
            raise ValueError("data.parties: expected seats")
        return DealStep(step, round_no, [PickCommitment(
            ctx(0), _int(data, "pick"), _int(data, "n", 1), tuple(parties), author,
            _bytes(data, "digest", 32))], [])
    if step == "pick_reveal":
        return DealStep(step, round_no, [PickReveal(ctx(0), _int(data, "pick"), author,
                                                    _bytes(data, "nonce"))], [])
    if step == "share_reveal":
        return DealStep(step, round_no, [ShareReveal(ctx(0), author, _int(data, "seat", 0, 255),
                                                     _published_shares(data))], [])
    raise ValueError(f"unknown deal step {step!r:.64}")


def step_body(step: DealStep) -> wm.Deal:
    """The ``deal`` body the wire writes for a decoded ``step``: `parse_deal`'s inverse, but
    for the fields the step does not define (what a host counts as unknown bytes)."""
    if step.step == "shares":
        return shares_body(step.round, step.generation, step.sealed)
    if step.step == "reveal":
        return reveals_body(step.round, step.messages)
    if step.step == "seeds":
        return seeds_body(step.round, step.messages)
    return deal_body(step.messages[0])


def _sharing(data: dict) -> tuple[tuple[bytes, ...], tuple[tuple[int, bytes, bytes], ...]]:
    """A commit's sharing (sharing on): its Feldman commitments and its share boxes; whether
    they fit the table (``t`` of them, one box a holder) is the deal's check."""
    feldman = _list(data, "feldman", 255)
    if not all(isinstance(c, bytes) and len(c) == 32 for c in feldman):
        raise ValueError("data.feldman: expected 32-byte points")
    boxes = []
    for i, box in enumerate(_list(data, "shares", 255)):
        box = _map(box, f"data.shares[{i}]")
        boxes.append((_int(box, "to", 0, 255), _bytes(box, "epk", 32),
                      _bytes(box, "box", SHARE_BOX_BYTES)))
    return tuple(feldman), tuple(boxes)


def _held_shares(data: dict) -> dict[int, list[tuple[int, bytes | None]]]:
    """A ``seeds`` body's shares (sharing on): generation -> [(dealer, share or nil)], from a
    list by generation then dealer, ascending; whether they are the ones owed is the deal's
    check."""
    held: dict[int, list[tuple[int, bytes | None]]] = {}
    last = None
    for i, entry in enumerate(_list(data, "shares", 255 * 255)):
        entry = _map(entry, f"data.shares[{i}]")
        where = (_int(entry, "generation"), _int(entry, "dealer", 0, 255))
        share = entry.get("share")
        if share is not None and not (isinstance(share, bytes) and len(share) == 32):
            raise ValueError(f"data.shares[{i}].share: expected 32 bytes or nil, got "
                             f"{share!r:.40}")
        if last is not None and where <= last:
            raise ValueError(f"data.shares[{i}]: expected shares by generation then dealer, "
                             "ascending")
        last = where
        held.setdefault(where[0], []).append((where[1], share))
    return held


def _published_shares(data: dict) -> tuple[tuple[int, bytes | None], ...]:
    """A ``share_reveal``'s shares (sharing on): ``(generation, share)``; a nil share is read
    here and refused by the deal (``out_of_turn``, docs/dealing.md), as are generations that
    are not the ones the author owes."""
    shares = []
    for i, entry in enumerate(_list(data, "shares", 255)):
        entry = _map(entry, f"data.shares[{i}]")
        share = entry.get("share")
        if share is not None and not (isinstance(share, bytes) and len(share) == 32):
            raise ValueError(f"data.shares[{i}].share: expected 32 bytes, got {share!r:.40}")
        shares.append((_int(entry, "generation"), share))
    return tuple(shares)


# -- the deal steps' data, as JSON Schema (protocol/schema/body/deal.json) -----------------------


def deal_data_schemas() -> dict[str, dict[str, Any]]:
    """Each deal step's ``data`` map as `parse_deal` accepts it and `deal_body`, `shares_body`,
    `reveals_body` and `seeds_body` write it, in the JSON form of protocol/ (bin as
    ``{"$bin": hex}``).  Unknown fields are allowed (they are ignored).  What a schema cannot say
    is in ``$comment``: a box's length, and which checks come after the shape (a key that is no
    scalar, a seed or nonce of the wrong length, a step out of turn)."""
    def record(comment: str | None = None, optional: dict | None = None,
               **fields: dict) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "required": list(fields),
                                  "properties": {**fields, **(optional or {})}}
        if comment:
            schema["$comment"] = comment
        return schema

    def any_bin(comment: str) -> dict[str, Any]:
        return {"$comment": f"msgpack bin, written in JSON as {{\"$bin\": hex}}: {comment}",
                "type": "object", "required": ["$bin"], "additionalProperties": False,
                "properties": {"$bin": {"type": "string", "pattern": "^([0-9a-f]{2})*$"}}}

    u32 = Int(0, 2**32 - 1).schema()
    u16 = Int(0, 0xFFFF).schema()
    seat = Int(0, 255).schema()
    bin32 = Blob(32).schema()
    box = record("box is 32 x len(positions) + 16 bytes (else bad_message)",
                 to=seat, positions=ListOf(Int(0, 0xFFFF), 0xFFFF).schema(), epk=bin32,
                 box=any_bin("the sealed keys, 32 bytes a position and the 16-byte tag"))
    key_pair = {"type": "array", "minItems": 2, "maxItems": 2,
                "prefixItems": [seat, any_bin("a nonzero 32-byte scalar below L; another is sequenced "
                                              "as proof its author cheated (section 11.1)")]}
    reveal = record(generation=u32, position=u16,
                    keys={"type": "array", "maxItems": 255, "items": key_pair})
    seed = record(generation=u32, seed=any_bin("32 bytes; another length fails the audit"))
    sharing_on = ("the dropout-tolerant deal (docs/dealing.md), only at a table whose "
                  "start_game has a share_threshold (none yet): ")
    share_box = record(to=seat, epk=bin32, box=Blob(SHARE_BOX_BYTES).schema())
    held = record(generation=u32, dealer=seat, share=Nullable(Blob(32)).schema())
    commit_sharing = {
        "feldman": {"$comment": sharing_on + "exactly t points C_0..C_{t-1}", "type": "array",
                    "maxItems": 255, "items": bin32},
        "shares": {"$comment": sharing_on + "one box for each of the commit's holders, "
                               "ascending", "type": "array", "maxItems": 255, "items": share_box}}
    seeds_sharing = {
        "shares": {"$comment": sharing_on + "the author's share of each dealer it holds, by "
                               "generation then dealer; nil only for the one it complained of",
                   "type": "array", "maxItems": 255 * 255, "items": held}}
    return {
        "commit": record(round=u32, generation=u32, digest=bin32, optional=commit_sharing),
        "pass": record(round=u32, generation=u32, phase=Int(1, 2).schema(),
                       points={"type": "array", "maxItems": 0xFFFF, "items": bin32},
                       proof=any_bin("empty unless the rules set shuffle_proof")),
        "shares": record(round=u32, generation=u32,
                         boxes={"type": "array", "maxItems": 255, "items": box}),
        "reveal": record(round=u32, reveals={"type": "array", "maxItems": 0xFFFF,
                                             "items": reveal}),
        "seeds": record(round=u32, seeds={"type": "array", "maxItems": 255, "items": seed},
                        optional=seeds_sharing),
        "pick_commit": record(round=u32, pick=u32, n=Int(1, 2**32 - 1).schema(),
                              parties={"type": "array", "maxItems": 255, "items": seat},
                              digest=bin32),
        "pick_reveal": record(round=u32, pick=u32,
                              nonce=any_bin("32 bytes: the reference host refuses another length "
                                             "(out_of_turn)")),
        "share_reveal": record(
            sharing_on + "a holder's shares of lost seat `seat`'s seeds, one for each generation "
                         "rebuilt whose commit had the author among its holders, ascending; "
                         "only after the vote that decides the seat lost (else out_of_turn)",
            round=u32, seat=seat,
            shares={"type": "array", "maxItems": 255, "items": record(
                "nil is refused (out_of_turn), a share off the seat's commitments names its "
                "author", generation=u32, share=Nullable(Blob(32)).schema())}),
    }
