"""The carousel preset over real sockets (127.0.0.1, port 0): bot peers play whole games (a turn
may draw several stock cards before its play; an empty stock makes a seat pass), every replica
agrees with the host's public one, and a malformed ``rearrange`` body gets its error while the
game goes on."""

from __future__ import annotations

import dataclasses
import random

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from shanghai_net.cards import card_from_id
from shanghai_net.engine import Drew, Passed, Phase, Rearrange, Rearranged
from shanghai_net.table.bodies import body_to_move, move_to_body
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.wire import encode_frame
from shanghai_net.wire.messages import CARD_COUNT, BodySpec, Deal
from shanghai_net.wire.signing import sign_wire

from test_net_game import assert_clean, assert_host_holds_no_hidden_card, play


def seen_by_all(event):
    """An event as a replica that does not see the drawn card tells it."""
    return dataclasses.replace(event, card=None) if isinstance(event, Drew) else event


def assert_replicas_agree(host, tables):
    """Every seat's own replica, faces of its own draws aside, and its public replica tell the
    host's public game event for event."""
    public = host.public.public
    for seat, table in tables.items():
        assert table.public.log == public.log, seat
        assert [seen_by_all(e) for e in table.game.log] == public.log, seat
        assert table.game.result == public.result and table.game.scores == public.scores


def longest_draw_run(log) -> int:
    """The most stock cards one seat drew in a row (draw until the hand can play)."""
    best = run = 0
    drawer = None
    for event in log:
        run, drawer = ((run + 1 if event.seat == drawer else 1), event.seat) \
            if isinstance(event, Drew) else (0, None)
        best = max(best, run)
    return best


def assert_rearranges_reveal_their_played_cards(record, players):
    """Each ``rearrange`` comes right after its author's ``reveal`` of exactly its played cards
    (every seat's key of each): nothing more of the hand is shown."""
    frames = read_transcript(record)[1:]
    moves = [i for i, m in enumerate(frames) if m.body.KIND == "rearrange"]
    assert moves
    for i in moves:
        before = frames[i - 1]
        assert isinstance(before.body, Deal) and before.body.step == "reveal"
        assert before.author == frames[i].author
        reveals = before.body.data["reveals"]
        assert len(reveals) == len(frames[i].body.played)
        assert all(len(r["keys"]) == players for r in reveals)


@pytest.mark.parametrize("players,rules,seed", [
    (3, {"target_score": 5}, 2),
    (4, {"target_score": 5, "decks": 1}, 8),  # a small stock: it runs out and seats pass
])
async def test_a_whole_carousel_game_between_bots_over_sockets(players, rules, seed, tmp_path):
    record = tmp_path / "carousel.transcript"
    with trio.fail_after(120):
        host, tables, results = await play(players, "carousel", rules=rules, seed=seed,
                                           record=record)
    public = host.public.public
    assert host.public.finished and public.phase is Phase.OVER
    assert max(public.scores) >= rules["target_score"]
    assert_clean(host, tables, public.round_no)
    assert all(table.finished for table in tables.values())
    assert_replicas_agree(host, tables)
    assert_host_holds_no_hidden_card(host, tables)
    assert_rearranges_reveal_their_played_cards(record, players)
    assert any(isinstance(e, Rearranged) for e in public.log)
    assert longest_draw_run(public.log) >= 2, "no turn drew more than one card (seed changed?)"
    if "decks" in rules:
        assert any(isinstance(e, Passed) for e in public.log), "the stock never ran out"


@given(st.lists(st.lists(st.integers(0, CARD_COUNT - 1), max_size=6), max_size=5),
       st.lists(st.integers(0, CARD_COUNT - 1), max_size=6), st.integers(0, 7))
def test_a_rearrange_travels_as_card_ids_and_back(table, played, seat):
    move = Rearrange(seat, tuple(tuple(card_from_id(c) for c in meld) for meld in table),
                     tuple(card_from_id(c) for c in played))
    wire = move_to_body(move).to_wire()
    assert wire == {"kind": "rearrange", "table": table, "played": played}
    assert body_to_move(BodySpec().check(wire, "body"), seat) == move


# -- bad input -----------------------------------------------------------------------------------

class BadRearranger(BotPlayer):
    """A basic bot that, on its first turns, signs malformed ``rearrange`` bodies one at a time
    and waits for each one's error before playing on."""

    def __init__(self) -> None:
        super().__init__("basic", random.Random(11))
        self.errors: dict[str, tuple[str, str]] = {}
        self.pending: tuple[str, int] | None = None

    @staticmethod
    def bad_bodies(table) -> dict[str, dict]:
        game = table.game
        melds = [[c.id for c in meld.cards] for meld in game.table]
        card = game.hand(table.seat)[0].id
        return {
            "unknown card id": {"kind": "rearrange", "table": [*melds, [CARD_COUNT]],
                                "played": [CARD_COUNT]},
            "a card twice": {"kind": "rearrange", "table": [*melds, [card, card]],
                             "played": [card, card]},
            "not a list": {"kind": "rearrange", "table": card, "played": [card]},
        }

    def extra(self, table, outbox):
        if self.pending is not None or not outbox.idle or not table.can_move():
            return []
        todo = [(name, body) for name, body in self.bad_bodies(table).items()
                if name not in self.errors]
        if not todo:
            return []
        name, body = todo[0]
        chain = table.chain
        counter = outbox.reserve()
        self.pending = (name, counter)
        return [encode_frame(sign_wire(outbox.sign_key, chain.start, table.seat, counter, body,
                                       chain.basis))]

    def on_error(self, error) -> None:
        if self.pending is None or error.ref_counter != self.pending[1]:
            return
        name, _ = self.pending
        self.pending = None
        if error.code != "stale":  # else the game moved on meanwhile: sign it again
            self.errors[name] = (error.code, error.reason)

    def choose(self, table):
        return None if self.pending is not None else super().choose(table)


async def test_a_malformed_rearrange_gets_a_clear_error_and_the_game_goes_on():
    bad = BadRearranger()
    with trio.fail_after(120):
        host, tables, _ = await play(3, "carousel", rules={"target_score": 5}, seed=3,
                                     player={0: bad})
    assert bad.errors.keys() == {"unknown card id", "a card twice", "not a list"}, bad.errors
    code, reason = bad.errors["unknown card id"]
    assert code == "bad_message" and f"got {CARD_COUNT}" in reason
    code, reason = bad.errors["a card twice"]
    assert code == "illegal_move" and "twice" in reason
    code, reason = bad.errors["not a list"]
    assert code == "bad_message" and "table: expected an array" in reason
    assert host.public.finished
    assert_clean(host, tables, host.public.public.round_no)
    assert_replicas_agree(host, tables)
