"""The engine in the python-chess manner: legal_moves, apply, IllegalMoveError, parse_move, views."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shanghai_net.bots import BasicBot, RandomBot, make_bot
from shanghai_net.cards import Card
from shanghai_net.engine import (Drew, Game, GameEnded, LocalDealer, Phase, PlayerView,
                                 RoundVoided, new_game, parse_move, view_of)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import preset

from scenario import draw, faces_only, move, play, stacked_game

PRESETS = ["davis", "good-miller", "marcelle"]


def walk(game: Game, bots, moves: int, after) -> None:
    """``moves`` moves of ``bots`` (or fewer, if the game ends), ``after(game)`` after each."""
    for _ in range(moves):
        if not game.to_move():
            return
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
        after(game)


def sampled_positions(name: str, seed: int, moves: int = 700):
    """Positions along a game of mixed bots: (seat, legal moves, hands) at every other move."""
    game = Game(preset(name), 4, LocalDealer(seed))
    rng = random.Random(seed)
    bots = [BasicBot(rng), RandomBot(rng), BasicBot(rng), RandomBot(rng)]
    out = []

    def after(g):
        if len(g.log) % 3 == 0:
            for seat in g.to_move():
                out.append((seat, list(g.legal_moves(seat)), [list(g.hand(s)) for s in range(4)]))

    walk(game, bots, moves, after)
    return out


@pytest.mark.parametrize("name", PRESETS)
def test_parse_move_round_trips_every_legal_move(name):
    """parse_move(m.text(), seat) gives back m (up to which copy of a face, which text cannot say)."""
    kinds = set()
    for seat, moves, hands in sampled_positions(name, 5):
        by_face = {}
        for card in hands[seat]:
            by_face.setdefault(card.face, card)
        for m in moves:
            again = parse_move(m.text(), seat, lambda c: by_face.get(c.face, c))
            assert faces_only(again) == faces_only(m), m.text()
            assert again.text() == m.text()
            kinds.add(type(m).__name__)
    assert {"DrawStock", "TakeDiscard", "MayI", "PassClaim", "GoDown", "LayOff", "Discard"} <= kinds


@pytest.mark.parametrize(
    "text",
    ["fly", "draw 3", "lay 7H", "lay 7X on 1", "lay 7H on zero", "lay 7H on 0", "discard", "discard 7H 8H",
     "swap JK on 1 with 9H", "buy JK on 1 with 9H 9S", "shanghai x", "down 7H 7Q / 8C"],
)
def test_parse_move_bad_text_raises_value_error_quoting_it(text):
    with pytest.raises(ValueError) as err:
        parse_move(text, 0)
    assert repr(text.lower()) in str(err.value) or repr(text) in str(err.value)


def test_parse_move_empty():
    with pytest.raises(ValueError, match="empty"):
        parse_move("   ", 0)


@pytest.mark.parametrize(
    "seat, text, why",
    [
        (1, "draw", "it is seat 0's turn"),
        (0, "discard KH", "not now: the game is in its draw phase"),
        (0, "down 7H 7S 7D / 8C 8D 8S", "draw phase"),
        (0, "pass", "nothing to pass on"),
        (9, "draw", "no seat 9"),
    ],
)
def test_illegal_move_quotes_the_move_and_why(seat, text, why):
    game = stacked_game("davis", ["7H 7S 7D 8C 8D 8S", "", "", ""], up="KC")
    m = parse_move(text, seat)
    with pytest.raises(IllegalMoveError) as err:
        game.apply(m)
    assert isinstance(err.value, ValueError)
    assert str(err.value).startswith(f"{text!r} by seat {seat}:") and why in str(err.value)


@pytest.mark.parametrize(
    "text, why",
    [
        ("discard KH", "does not hold KH"),
        ("lay 7H on 1", "only once you are down"),
        ("down 7H 7S / 8C 8D 8S", "no meld"),
        ("take", "not now"),
    ],
)
def test_illegal_move_in_the_play_phase(text, why):
    game = stacked_game("davis", ["7H 7S 7D 8C 8D 8S", "KH", "", ""], up="KC")
    draw(game)
    with pytest.raises(IllegalMoveError) as err:
        play(game, 0, text)
    assert repr(text) in str(err.value) and why in str(err.value)
    assert move(game, 0, "discard 7H") in list(game.legal_moves(0))


def cards_in(value) -> set[Card]:
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, (tuple, list, set, frozenset)):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("name", PRESETS)
def test_player_view_shows_one_seats_cards(name):
    """PlayerView: exactly what one seat may know - its hand; other seats only as hand sizes."""
    game = Game(preset(name), 4, LocalDealer(11))
    checked = 0

    def after(g: Game) -> None:
        nonlocal checked
        for seat in range(g.players):
            view = view_of(g, seat)
            assert isinstance(view, PlayerView) and view.seat == seat
            assert view.hand == tuple(g.hand(seat))
            assert view.hand_sizes == tuple(len(h) for h in g.hands)
            public = set(view.hand) | cards_in(view.table) | set(g.discard[-1:]) | set(view.must_lay_off)
            shown = cards_in(dataclasses.replace(view, last_round=None, rules=None))
            assert shown <= public
            for other in range(g.players):
                if other != seat:
                    assert not (shown - set(g.discard[-1:]) - cards_in(view.table)) & set(g.hand(other))
            checked += 1

    walk(game, [BasicBot(random.Random(s)) for s in range(4)], 150, after)
    assert checked


@pytest.mark.parametrize("name", PRESETS)
def test_a_seats_game_learns_only_its_own_and_public_faces(name):
    """A Game with viewer=seat knows its own hand and the public cards; LocalDealer respects the viewer."""
    seed, viewer = 21, 2
    full = Game(preset(name), 4, LocalDealer(seed))
    mine = Game(preset(name), 4, LocalDealer(seed), viewer=viewer)
    assert mine.hand(viewer) == full.hand(viewer) and mine.discard == full.discard
    for seat in range(4):
        if seat != viewer:
            assert mine.hand(seat) == [] and len(mine.hands[seat]) == len(full.hands[seat])
    assert not any(t in mine.faces for t in mine.stock)
    known = set(mine.faces.values())
    assert known == set(full.hand(viewer)) | set(full.discard)
    drawer = mine.turn
    events = mine.apply(type(list(mine.legal_moves(drawer))[0])(drawer))
    events += [e for s in list(mine.window.undecided() if mine.window else []) for e in mine.apply(parse_move("pass", s))]
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew and all((e.card is None) == (e.seat != viewer) for e in drew)
    assert set(mine.faces.values()) == known | ({drew[0].card} if drawer == viewer else set())


def test_voiding_a_round_ends_the_game_with_the_rounds_played():
    rules = preset("davis")
    game = new_game(rules, 3, LocalDealer(5))
    bots = [make_bot("basic", random.Random(s)) for s in range(3)]
    while game.round_no < 2:
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    played = game.results[0]
    events = game.void_round()
    assert [type(e) for e in events] == [RoundVoided, GameEnded]
    assert game.phase is Phase.OVER and game.result.rounds == (played,)
    assert game.result.totals == played.totals
    with pytest.raises(IllegalMoveError):
        game.void_round()


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_voiding_the_round_just_scored_takes_its_score_back(name):
    """A vote while the table waits for a round's audit voids that round, though it has been
    scored (and the next dealt): the result is the standing before it, in points or money."""
    game = new_game(preset(name), 3, LocalDealer(7))
    bots = [make_bot("basic", random.Random(s)) for s in range(3)]
    while game.round_no < 3:
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    first, second = game.results
    assert second.totals != first.totals
    events = game.void_round(scored=True)
    assert [type(e) for e in events][0] == RoundVoided and type(events[-1]) is GameEnded
    assert events[0].round_no == 2
    assert game.result.rounds == (first,)
    if name == "davis":
        assert game.result.totals == first.totals
    else:  # what round 1 left, a pot nobody won given back: money is only ever moved
        assert game.pot == 0 and sum(game.result.totals) == 3 * game.rules.stake
        assert all(t >= f for t, f in zip(game.result.totals, first.totals))
        assert game.result.totals == tuple(m - game.rules.stake * r
                                           for m, r in zip(game.money, game.rebuys))


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_voiding_the_last_round_after_it_was_scored_takes_back_that_round_alone(name):
    """The game is over when the vote on the last round's audit comes: the result is the
    standing after the round before it."""
    game = new_game(preset(name), 3, LocalDealer(7))
    bots = [make_bot("basic", random.Random(s)) for s in range(3)]
    while game.phase is not Phase.OVER:
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    *kept, last = game.results
    game.void_round(scored=True)
    assert game.result.rounds == tuple(kept)
    if name == "davis":
        assert game.result.totals == kept[-1].totals
    else:  # and any pot still on the table given back
        assert all(t >= k for t, k in zip(game.result.totals, kept[-1].totals))
        assert sum(game.result.totals) == 3 * game.rules.stake and game.pot == 0


def test_a_voided_first_round_of_marcelle_gives_every_ante_back():
    """Nothing has been scored: every seat ends as it sat down, its ante (and any joker it
    bought or sold) taken back."""
    game = new_game(preset("marcelle"), 3, LocalDealer(9))
    bots = [make_bot("basic", random.Random(s)) for s in range(3)]
    for _ in range(30):
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    assert game.round_no == 1 and game.pot > 0
    game.void_round()
    assert game.result.totals == (game.rules.stake,) * 3 and game.pot == 0
    assert game.money == [game.rules.stake] * 3


def test_engines_share_the_dealt_machinery_and_the_dealer_imports_none():
    """The carousel and contract engines are siblings over `DealtGame`; engine/dealer.py imports
    no engine (a dealer sees a game as `Dealt`), so game and dealer form no import cycle."""
    import ast
    import inspect

    from shanghai_net.engine import CarouselGame, DealtGame, Game, dealer

    assert issubclass(Game, DealtGame) and issubclass(CarouselGame, DealtGame)
    assert not issubclass(CarouselGame, Game)
    tree = ast.parse(inspect.getsource(dealer))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert not imported & {"game", "dealt", "carousel", "view"}


@pytest.mark.parametrize("name", PRESETS)
def test_go_downs_are_the_go_downs_legal_moves_lists(name):
    """`go_downs(view)` answers a bot's first question without the other moves: at every decision
    of three games it is exactly the GoDown moves of `legal_moves`, in order (none off turn; the
    first 60, as a hand with jokers may hold thousands)."""
    from itertools import islice

    from shanghai_net.engine import GoDown, go_downs

    checked = 0
    for seed in range(3):
        game = new_game(preset(name), 4, LocalDealer(seed))
        bots = [BasicBot(random.Random(seed * 10 + s)) for s in range(4)]
        while game.phase is not Phase.OVER:
            seat = game.to_move()[0]
            for other in range(4):
                view = view_of(game, other)
                listed = list(islice((m for m in game.legal_moves(other) if isinstance(m, GoDown)), 60))
                assert list(islice(go_downs(view), 60)) == listed
                checked += bool(listed)
            game.apply(bots[seat].choose(view_of(game, seat), game.legal_moves(seat)))
    assert checked, "some seat could go down"


@pytest.mark.parametrize("name", PRESETS)
def test_the_engines_public_questions_answer_as_legal_moves_lists(name):
    """`shanghai_calls`, `lay_offs` and `may_discard`, which a program asks instead of listing
    every move (the search's play-outs): at every decision of games of basic and random bots
    they give exactly the calls, lay-offs and discards `legal_moves` lists, in order."""
    from shanghai_net.engine import CallShanghai, Discard, LayOff

    laid = called = 0
    for seed in range(2):
        game = new_game(preset(name), 4, LocalDealer(seed))
        rng = random.Random(seed)
        bots = [BasicBot(rng), RandomBot(rng), BasicBot(rng), RandomBot(rng)]
        while game.phase is not Phase.OVER:
            for seat in range(4):
                listed = list(game.legal_moves(seat))
                calls = [m for m in listed if isinstance(m, CallShanghai)]
                assert list(game.shanghai_calls(seat)) == calls
                called += bool(calls)
                if game.phase is Phase.PLAY and seat == game.turn:
                    hand = game.hand(seat)
                    lay_offs = [m for m in listed if isinstance(m, LayOff)]
                    if lay_offs:
                        assert [m for c in dict.fromkeys(hand) for m in game.lay_offs(seat, c)] == lay_offs
                        laid += 1
                    discards = [m.card for m in listed if isinstance(m, Discard) and not m.shanghai]
                    if not game.must_lay_off:
                        assert discards == [c for c in hand if game.may_discard(seat, c)]
            seat = game.to_move()[0]
            game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    assert laid and (called or not game.rules.shanghai)  # SHANGHAI is davis's alone


@pytest.mark.parametrize("name", [*PRESETS, "carousel"])
def test_a_game_not_started_asks_for_nothing_until_laid_out(name):
    """``start=False``: no first-dealer pick is asked (a search lays out its sampled position
    by hand and goes on from there); a game started asks for the pick at once."""
    from shanghai_net.engine import CarouselGame, Pick
    kind = CarouselGame if name == "carousel" else Game
    started, laid_out = kind(preset(name), 4), kind(preset(name), 4, start=False)
    assert [type(r) for r in started.awaiting] == [Pick]
    assert laid_out.awaiting == [] and laid_out.requests == [] and laid_out.phase is Phase.STARTING
