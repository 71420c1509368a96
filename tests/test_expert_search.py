"""The expert's look-ahead over hidden hands (bots/search.py): a sampled deal agrees with everything
the seat may know and with nothing else, the game laid out from it offers the real game's moves,
and a search is the same for the same seed."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.bots import BasicBot, ExpertBot, RandomBot
from shanghai_net.bots.history import Memory
from shanghai_net.bots.playout import BasicPolicy, GoDowns, may_use
from shanghai_net.bots.search import MOVES, agrees, deal_game, sample_deal, search
from shanghai_net.cards import Suit, deck
from shanghai_net.engine import Discard, DrawStock, LocalDealer, Phase, TakeDiscard, new_game, view_of
from shanghai_net.rules import preset
from shanghai_net.rules.finder import contract_options
from shanghai_net.session import redact

from scenario import discard_turn, draw, play, stacked_game


def seat_zero_discards(name: str, seed: int, turns: int, phase: Phase = Phase.PLAY):
    """A game of basic bots stopped at each of seat 0's first ``turns`` discards (or draws): (game,
    view, memory from the whole log, memory from seat 0's replica's log) at each."""
    game = new_game(preset(name), 4, LocalDealer(seed))
    bot = BasicBot(random.Random(seed))
    while turns and game.phase is not Phase.OVER:
        seat = game.to_move()[0]
        if seat == 0 and game.turn == 0 and game.phase is phase and not game.must_lay_off:
            view = view_of(game, 0)
            if phase is Phase.DRAW or any(isinstance(m, Discard) for m in game.legal_moves(0)):
                redacted = [redact(e, 0) for e in game.log]
                yield game, view, Memory().follow(game.log, 4), Memory().follow(redacted, 4)
                turns -= 1
        game.apply(bot.choose(view_of(game, seat), game.legal_moves(seat)))


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle", "phase10"])
def test_a_sampled_deal_holds_every_card_once_where_the_seat_knows_it_is(name):
    for game, view, memory, _ in seat_zero_discards(name, 3, 12):
        deal = sample_deal(view, memory, random.Random(1))
        table = [c for meld in view.table for c in meld.cards]
        everything = [c for hand in deal.hands for c in hand] + list(deal.pile) + list(deal.stock) + table
        assert Counter(everything) == Counter(deck(*view.rules.deck_size(4)))
        assert [len(h) for h in deal.hands] == list(view.hand_sizes)
        assert deal.hands[0] == view.hand and len(deal.stock) == view.stock_size
        assert len(deal.pile) == view.discard_size and (not deal.pile or deal.pile[-1] is view.discard_top)
        for card, seat in memory.held.items():  # a taken discard not yet melded or thrown stays put
            assert card in game.hand(seat) and card in deal.hands[seat]


def test_a_sampled_deal_reads_no_hidden_card():
    """The replica's log (others' draws without faces) samples the very deals the whole log does,
    and so does a game whose other hands hold other cards (the same hand, table and log for seat
    0: its first turn)."""
    for _, view, memory, replica in seat_zero_discards("davis", 4, 8):
        assert sample_deal(view, memory, random.Random(2)) == sample_deal(view, replica, random.Random(2))
    hand = "7H 7S 8D 9D 10D KC QS 4C 5H 2D AS"
    views = []
    for seed in (1, 2):
        game = stacked_game("davis", [hand, "", "", ""], up="3C", stock="JD", seed=seed)
        draw(game)
        views.append((view_of(game, 0), game.hand(1)))
    (first, theirs), (second, others) = views
    assert theirs != others
    assert sample_deal(first, Memory().follow([], 4), random.Random(5)) == \
        sample_deal(second, Memory().follow([], 4), random.Random(5))


def bob_takes_the_nine(ours: str, his: str, stock: str):
    """Seat 0 throws the 9♠, seat 1 (bob) takes it and throws the 9♦, the others draw and throw,
    and seat 0 has drawn again."""
    game = stacked_game("davis", [ours, his, "", ""], up="2D", stock=stock)
    draw(game)
    play(game, 0, "discard 9S")
    play(game, 1, "take", "discard 9D")
    for seat in (2, 3):
        discard_turn(game, seat, str(game.hand(seat)[0]))
    draw(game)
    return game


def test_a_card_taken_from_the_pile_is_in_the_takers_hand_in_every_sampled_deal():
    game = bob_takes_the_nine("9S 4H", "9D 9C", "QH KD")
    memory = Memory().follow(game.log, 4)
    nine = next(c for c in game.hand(1) if str(c) == "9S")
    assert memory.held == {nine: 1}
    for seed in range(5):
        assert nine in sample_deal(view_of(game, 0), memory, random.Random(seed)).hands[1]


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_the_game_laid_out_from_a_deal_offers_the_real_games_moves_and_plays_out(name):
    """With the real hands as the deal, the laid-out game is the real one to seat 0: the same
    moves; any deal plays out to the round's end (or its move limit) with legal moves only."""
    for game, view, memory, _ in seat_zero_discards(name, 5, 6):
        real = sample_deal(view, memory, random.Random(0))
        real = type(real)(tuple(tuple(game.hand(s)) for s in range(4)), real.pile, real.stock, real.seed)
        laid = deal_game(view, memory, real)
        assert list(laid.legal_moves(0)) == list(game.legal_moves(0))
        moves = [m for m in game.legal_moves(0) if isinstance(m, Discard) and not m.shanghai][:2]
        outcomes = search(view, memory, moves, 2, random.Random(1), GoDowns())
        assert [o.move for o in outcomes] == moves and all(sum(o.out) <= 2 for o in outcomes)


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_the_game_laid_out_at_a_draw_offers_every_seat_the_real_games_moves(name):
    """The claim window on the top discard too: who may claim it, and SHANGHAI where it plays."""
    for game, view, memory, _ in seat_zero_discards(name, 8, 10, Phase.DRAW):
        real = sample_deal(view, memory, random.Random(0))
        real = type(real)(tuple(tuple(game.hand(s)) for s in range(4)), real.pile, real.stock, real.seed)
        laid = deal_game(view, memory, real)
        assert laid.to_move() == game.to_move()
        for seat in range(4):
            assert list(laid.legal_moves(seat)) == list(game.legal_moves(seat))
        search(view, memory, [m for m in game.legal_moves(0) if isinstance(m, (DrawStock, TakeDiscard))], 1,
               random.Random(1), GoDowns())


def test_a_search_is_the_same_for_the_same_seed():
    _, view, memory, _ = list(seat_zero_discards("davis", 6, 5))[-1]
    moves = [Discard(0, card) for card in view.hand[:2]]
    assert (search(view, memory, moves, 3, random.Random(9), GoDowns())
            == search(view, memory, moves, 3, random.Random(9), GoDowns()))


def test_a_settled_search_stops_only_where_no_candidate_leads_the_first():
    """With ``settle_after`` the search plays the same deals as without, and stops before its
    samples only where no candidate has gained more than the weights' choice (the first)."""
    stopped = 0
    for game, view, memory, _ in seat_zero_discards("davis", 6, 8):
        plain = [m for m in game.legal_moves(0) if isinstance(m, Discard) and not m.shanghai]
        moves = list({m.card.face: m for m in plain}.values())[:2]
        whole = search(view, memory, moves, 6, random.Random(5), GoDowns())
        settled = search(view, memory, moves, 6, random.Random(5), GoDowns(), settle_after=2)
        played = len(settled[0].gains)
        assert 2 <= played <= 6 and all(len(o.gains) == played for o in settled)
        assert [o.gains for o in settled] == [o.gains[:played] for o in whole]
        if played < 6:
            stopped += 1
            assert sum(settled[1].gains) <= sum(settled[0].gains)
    assert stopped


MOVE = r"(discard \S+|draw|take \S+)"


def test_the_expert_plays_out_close_discards_and_says_in_one_line_what_the_play_outs_showed():
    """In a seeded round the search overrules the weights at some discards; each such reason
    names the card kept and what the sampled deals showed."""
    game = new_game(preset("davis"), 4, LocalDealer(7))
    bots = [ExpertBot(random.Random(7)), BasicBot(random.Random(1)), BasicBot(random.Random(2)),
            BasicBot(random.Random(3))]
    searched = []
    while game.round_no == 1:
        seat = game.to_move()[0]
        if seat == 0:
            bots[0].follow(game.log)
            decision = bots[0].decide(view_of(game, 0), game.legal_moves(0))
            move = decision.move
            if "sampled deals" in decision.reason:
                searched.append(decision.reason)
        else:
            move = bots[seat].choose(view_of(game, seat), game.legal_moves(seat))
        game.apply(move)
    assert searched
    for reason in searched:
        assert re.fullmatch(MOVE + ", not " + MOVE + r": in \d+ sampled deals it ended the round [0-9.]+ points better"
                            r"(, [\w ]+ going out in \d+ of them, not \d+)?", reason), reason


def test_a_sampled_hand_agrees_with_what_its_seat_took_and_let_go():
    """bob took the 9♠ for the two nines he held and let the 7♦ go: a hand agrees where the 9♠
    goes with it (two nines more: davis's first contract is two books) and the 7♦ completes no
    book in it; most sampled hands of his then hold two more nines, where a random hand seldom
    does."""
    game = bob_takes_the_nine("9S 7D 4H", "9D 9C 9H", "QH KD 5S 6S 8S 3D")
    play(game, 0, "discard 7D")
    draw(game)  # bob lets the 7♦ go
    play(game, 1, f"discard {game.hand(1)[-1]}")
    discard_turn(game, 2, str(game.hand(2)[0]))
    discard_turn(game, 3, str(game.hand(3)[0]))
    draw(game)
    view, memory = view_of(game, 0), Memory().follow(game.log, 4)
    nine, seven = (next(c for c in memory.held if c.rank == 9), next(c for c in memory.refused[1] if c.rank == 7))
    assert memory.held[nine] == 1 and seven in memory.refused[1][-3:]
    nines = [c for c in deck(2, 4) if c.rank == 9 and c is not nine][:2]
    sevens = [c for c in deck(2, 4) if c.rank == 7 and c is not seven][:2]
    filler = [c for c in deck(2, 4) if c.rank in (4, 12, 13)][:8]
    assert agrees(view, [nine, *nines, *filler], [nine], [seven])
    assert not agrees(view, [nine, *filler[:2], *nines[:1]], [nine], [seven])  # one nine: no book
    assert not agrees(view, [nine, *nines, *sevens, *filler], [nine], [seven])  # the 7♦ made a book
    held = [sum(c.rank == 9 for c in sample_deal(view, memory, random.Random(seed)).hands[1]) >= 3
            for seed in range(20)]
    assert sum(held) >= 10


class Twins:
    """The basic bot and the play-outs' policy, each with its own generator seeded alike, asked
    for the same seat's move in turn: the same move, the generators drawn as often (the policy
    kept for the whole game, as a play-out keeps it, with what it remembers of each hand)."""

    def __init__(self, rules, seed: int):
        self.bot, self.policy = BasicBot(random.Random(seed)), BasicPolicy(rules, random.Random(seed), GoDowns())

    def move(self, game, seat: int):
        chosen = self.bot.choose(view_of(game, seat), game.legal_moves(seat))
        built = self.policy.move(game, seat)
        assert built == chosen, (game.rules.name, seat, game.phase, chosen, built)
        assert self.policy.rng.getstate() == self.bot.rng.getstate(), (game.rules.name, chosen)
        return chosen


PRESETS = ["davis", "good-miller", "marcelle", "phase10"]


@pytest.mark.parametrize("name", PRESETS)
def test_the_play_outs_policy_makes_the_basic_bots_move_at_every_decision_of_a_game(name):
    """Two whole games of basic bots: `BasicPolicy` builds, from the game's state, the move the
    basic bot chooses from the view and the legal moves (so the play-outs, and the search,
    choose as they did with the basic bot), and only moves `legal_moves` lists."""
    kinds = set()
    for seed in (1, 2):
        game = new_game(preset(name), 4, LocalDealer(seed))
        twins = Twins(game.rules, seed)
        while game.phase is not Phase.OVER:
            move = twins.move(game, game.to_move()[0])
            kinds.add(type(move).__name__)
            game.apply(move)
    assert {"DrawStock", "TakeDiscard", "GoDown", "LayOff", "Discard"} <= kinds
    assert "PassClaim" in kinds or name == "phase10"  # no claims out of turn there


@pytest.mark.parametrize("name", PRESETS[:3])
def test_the_play_outs_policy_plays_a_laid_out_deal_as_the_basic_bot(name):
    """From the games the search lays out (sampled deals at seat 0's discards and draws), every
    move of a play-out is the basic bot's."""
    for phase in (Phase.PLAY, Phase.DRAW):
        for _, view, memory, _ in seat_zero_discards(name, 11, 4, phase):
            game = deal_game(view, memory, sample_deal(view, memory, random.Random(3)))
            twins = Twins(game.rules, 4)
            for _ in range(MOVES):
                if game.phase not in (Phase.DRAW, Phase.PLAY):
                    break
                game.apply(twins.move(game, game.to_move()[0]))


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), chaos=st.integers(0, 4))
def test_the_play_outs_policy_agrees_with_the_basic_bot_in_any_state(name, seed, chaos):
    """States the basic bots alone seldom reach (a random bot in ``chaos`` of the seats' turns:
    jokers swapped and bought, odd claims, lay-offs of freed jokers): wherever a seat is to
    move, the policy's move is the basic bot's."""
    game = new_game(preset(name), 4, LocalDealer(seed))
    twins, wild = Twins(game.rules, seed), RandomBot(random.Random(seed + 1))
    for _ in range(400):
        if game.phase is Phase.OVER:
            break
        seat = game.to_move()[0]
        move = twins.move(game, seat)
        if wild.rng.randrange(4) < chaos:
            move = wild.choose(view_of(game, seat), game.legal_moves(seat))
        game.apply(move)


POOL = [c for c in deck(2, 4) if c.rank == 0 or (c.rank in (1, 2, 3, 4, 5, 6, 12, 13) and c.suit in (Suit.CLUBS, Suit.HEARTS))]
"""Cards of a few ranks and suits, and jokers: hands drawn from them often hold sets and runs."""


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["davis", "good-miller", "marcelle"]), contract_no=st.integers(1, 6),
       hand=st.lists(st.sampled_from(POOL), min_size=5, max_size=12, unique=True), cut=st.integers(1, 3))
def test_a_hand_without_a_go_down_gains_one_only_with_a_drawn_card_that_fits_a_meld(name, contract_no, hand, cut):
    """`may_use` is a bound the play-outs trust instead of the finder: where the hand less its
    last cards holds no go-down and those cards fit no set or run of it, the whole hand holds
    none either."""
    rules = preset(name)
    contract = rules.contract(contract_no)
    old, new = hand[:-cut], hand[-cut:]
    if any(contract_options(rules, old, contract)) or may_use(rules, hand, contract, new):
        return
    assert not any(contract_options(rules, hand, contract))


def test_the_bound_lets_the_finder_off_most_hands_that_hold_no_go_down_now():
    """Not a bound that says True always: of these hands it rules out some, where the finder
    finds nothing."""
    rules = preset("davis")
    ruled_out = 0
    for seed in range(40):
        hand = random.Random(seed).sample(deck(2, 4), 11)
        old, new = hand[:-1], hand[-1:]
        if not any(contract_options(rules, old, rules.contract(1))):
            ruled_out += not may_use(rules, hand, rules.contract(1), new)
    assert ruled_out >= 10


def test_the_play_outs_ask_the_finder_only_where_a_drawn_card_could_make_a_go_down(monkeypatch):
    """A play-out's seats not yet down are weighed for a go-down every turn; the policy asks the
    finder again for a seat only where `may_use` cannot rule it out."""
    import shanghai_net.bots.playout as playout

    asked = []
    finder = playout.contract_options
    monkeypatch.setattr(playout, "contract_options", lambda *a: asked.append(1) or finder(*a))
    turns = 0
    for _, view, memory, _ in seat_zero_discards("davis", 12, 3):
        game = deal_game(view, memory, sample_deal(view, memory, random.Random(3)))
        twins = Twins(game.rules, 5)
        for _ in range(3 * MOVES):
            if game.phase not in (Phase.DRAW, Phase.PLAY):
                break
            seat = game.to_move()[0]
            turns += game.phase is Phase.PLAY and not game.down[seat] and seat == game.turn
            game.apply(twins.move(game, seat))
    assert turns and len(asked) < 0.8 * turns
