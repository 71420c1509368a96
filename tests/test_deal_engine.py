"""Whole rounds of the engine dealt by mental poker (`MentalDealer`): the same game as the local
dealer given the same deck, each seat's replica knowing exactly its own cards, a clean audit for
honest play, and every cheat caught during a played round with its author named."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_core_ed25519_add

from shanghai_net.bots import make_bot
from shanghai_net.cards import deck
from shanghai_net.deal import CheatDetected, KeyReveal, KeyShare, MentalTable, SeedReveal, seeded
from shanghai_net.deal.dealer import MentalDealer, cards_named
from shanghai_net.deal.group import card_point, invert, multiply, scalar_product
from shanghai_net.engine import (Discard, Game, GoDown, LocalDealer, Pick, RoundEnded, Shuffle,
                                 ShanghaiPenalty, Reshuffled, view_of)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules.ruleset import preset
from test_deal_cheats import ORDER_8, cheater, in_pass, mark, substitute

DAVIS = preset("davis")
MARCELLE = preset("marcelle")
DECK = deck(1, 0)


class Round:
    """One game's first round at a mental-poker table: a harness (``viewer=None``) replica
    and one replica per seat, all fed the same moves; each seat's bot sees its own replica."""

    def __init__(self, rules, players, seed, bots="basic", cheats=None):
        self.rules, self.players = rules, players
        self.table = MentalTable(players, seeded(b"engine %d" % seed), round=0, deal=False,
                                 participant_types=cheats)
        self.dealer = MentalDealer(self.table)
        rng = random.Random(seed)
        self.bots = [make_bot(bots, random.Random(rng.random())) for _ in range(players)]
        self.games: list[Game] = []
        self.moves, self.states, self.events = [], [], []
        self.held: dict[int, set] = {}  # seat -> tokens it held this round
        self.held_in = None

    @property
    def harness(self) -> Game:
        return self.games[0]

    def replica(self, seat: int) -> Game:
        return self.games[1 + seat]

    def start(self) -> Round:
        """Seat everyone: the first-dealer pick, round 1's shuffle and deal."""
        for viewer in (None, *range(self.players)):
            self.games.append(Game(self.rules, self.players, self.dealer, viewer))
        self.check()
        return self

    def play(self, moves: int | None = None) -> Round:
        """Play to the end of round 1 (or ``moves`` moves), checking knowledge after each."""
        while moves is None or len(self.moves) < moves:
            seat = self.harness.to_move()[0]
            mine = self.replica(seat)
            move = self.bots[seat].choose(view_of(mine, seat), list(mine.legal_moves(seat)))
            self.states.append(state(self.harness))
            self.moves.append(move)
            events = self.dealer.play(self.games, move)
            self.events.append(events[0])
            self.check()
            if any(isinstance(e, RoundEnded) for e in events[0]):
                break
        return self

    def check(self) -> None:
        """Every replica shares the harness's public state and its own seat's hand; its seat's
        participant holds exactly that seat's hidden cards; no replica knows a face hidden in
        another seat's hand or in the stock, save one its seat held before (a card lost to a
        SHANGHAI penalty)."""
        harness = self.harness
        if self.held_in != harness.round_no:
            self.held_in, self.held = harness.round_no, {}
        for seat in range(self.players):
            self.held.setdefault(seat, set()).update(harness.hands[seat])
        for seat in range(self.players):
            mine = self.replica(seat)
            assert public(mine) == public(harness)
            assert mine.hand(seat) == harness.hand(seat)
            hidden = {t for t in harness.hands[seat] if t[0] >= 0}
            assert set(self.table.participants[seat].hand()) == hidden
            others = {t for s in range(self.players) if s != seat for t in harness.hands[s]
                      if t[0] >= 0}
            known = set(mine.faces)
            assert known & others <= self.held[seat]
            assert not known & set(harness.stock)


def public(game: Game):
    """What every seat knows, as a value (no list the game may change later)."""
    lists = (game.stock, game.table, game.meld_owner, game.discard, game.down, game.claims_left,
             game.scores, game.money, game.results, game.to_move())
    return (game.round_no, game.phase, game.turn, game.dealer_seat, game.pot,
            tuple(map(tuple, game.hands)), *map(tuple, lists))


def state(game: Game):
    return public(game), tuple(tuple(game.hand(seat)) for seat in range(game.players))


class Replay(LocalDealer):
    """The local dealer dealing the decks the mental deal's audit opened, with its picks."""

    def __init__(self, dealer: MentalDealer):
        decks = dealer.decks(1)
        super().__init__(order=lambda r: decks[r.generation] if r.round_no == 1 else r.cards)
        self.values = iter([value for _, value in dealer.picks])

    def handle(self, request, game):
        if isinstance(request, Pick):
            game.fulfil_pick(next(self.values))
        else:
            super().handle(request, game)


def assert_same_as_local(played: Round) -> None:
    local = Game(played.rules, played.players, Replay(played.dealer))
    for move, before, events in zip(played.moves, played.states, played.events):
        assert state(local) == before
        assert local.apply(move) == events
    assert local.results[0] == played.harness.results[0]


def assert_coalitions_fail(played: Round) -> None:
    """Every hidden card opens for its holder's keys all together, and for no coalition that
    lacks one seat's key; no other seat's participant can open it."""
    participants = played.table.participants
    for seat in range(played.players):
        for (generation, position), card in participants[seat].hand().items():
            g = participants[seat].generation(generation)
            points = g.card_points
            keys = {p.seat: p.generation(generation).keys.card_keys[position]
                    for p in participants}

            def strip(members):
                product = scalar_product(keys[m] for m in members)
                return multiply(invert(product), g.final_deck[position])
            assert strip(range(played.players)) == card_point(card.id)
            for missing in range(played.players):
                assert strip([m for m in range(played.players) if m != missing]) not in points
            for other in participants:
                if other.seat != seat:
                    with pytest.raises(ValueError, match="no key yet"):
                        other.open(generation, position)


def assert_whole_round(played: Round) -> None:
    """Played to its end: the audit was clean, every seat's replica reached the harness's
    result, and the local dealer, given the decks the audit opened, plays the same round."""
    assert played.dealer.verdicts[1].clean
    assert played.harness.results
    for seat in range(played.players):
        assert played.replica(seat).results == played.harness.results
    assert_same_as_local(played)


@pytest.mark.parametrize("rules, players, seed", [(DAVIS, 4, 1), (MARCELLE, 5, 3), (MARCELLE, 8, 1)],
                         ids=["davis-4", "marcelle-5", "marcelle-8"])
def test_a_round_through_the_engine_matches_the_local_dealer(rules, players, seed):
    played = Round(rules, players, seed).start().play(moves=12)
    assert_coalitions_fail(played)
    assert_whole_round(played.play())


def test_reshuffles_are_new_generations_and_a_shanghai_penalty_a_hand_over():
    played = Round(DAVIS, 3, 6, "random").start()
    hand_overs = []
    hand_over = played.table.hand_over
    played.table.hand_over = lambda *args: hand_overs.append(args) or hand_over(*args)
    assert_coalitions_fail(played.play(moves=12))
    assert_whole_round(played.play())
    events = [e for move_events in played.events for e in move_events]
    reshuffles = sum(isinstance(e, Reshuffled) for e in events)
    assert reshuffles and sorted(played.dealer.decks(1)) == list(range(1 + reshuffles))
    assert any(isinstance(e, ShanghaiPenalty) for e in events) and hand_overs


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(3, 5), seed=st.integers(0, 2**32), davis=st.booleans())
def test_random_honest_rounds(players, seed, davis):
    assert_whole_round(Round(DAVIS if davis else MARCELLE, players, seed).start().play())


def test_a_move_that_is_refused_shows_no_card():
    played = Round(DAVIS, 3, 5).start().play(moves=1)
    seat = played.harness.turn
    hand = played.harness.hand(seat)
    bogus = GoDown(seat, (tuple(hand[:3]),))
    with pytest.raises(IllegalMoveError):
        played.dealer.play(played.games, bogus)
    assert set(played.table.participants[seat].hand().values()) == set(hand)
    assert list(cards_named(bogus)) == hand[:3]
    assert list(cards_named(Discard(seat, hand[0]))) == [hand[0]]


def test_a_replica_that_diverges_or_a_move_after_the_audit_is_refused():
    played = Round(DAVIS, 3, 4).start()
    with pytest.raises(AssertionError, match="the replicas diverged"):
        Game(DAVIS, 4, played.dealer)
    assert played.dealer.audit().clean and played.dealer.decks(1)[0]
    seat = played.harness.turn
    with pytest.raises(ValueError, match="round 1 is over"):
        played.dealer.publish(seat, played.harness.hand(seat)[0])
    with pytest.raises(ValueError, match="round 1 is over"):
        played.play()  # the first stock draw


def test_a_move_of_no_seat_or_a_deal_out_of_order_is_refused_saying_which():
    """A replica that asks to deal a round again, or a reshuffle out of its order, is refused
    (the dealer would otherwise deal a second deck for one round); a move of a seat that is not
    at the table is the engine's illegal move, and shows nothing."""
    played = Round(DAVIS, 3, 4).start()
    card = played.harness.hand(played.harness.turn)[0]
    with pytest.raises(IllegalMoveError, match="there is no seat 7"):
        played.dealer.play(played.games, Discard(7, card))
    for request, why in ((Shuffle(1, 0, DECK), "round 1 was dealt already"),
                         (Shuffle(1, 2, DECK), "asked to shuffle generation 2 of round 1; the "
                                               "next is generation 1 of round 1")):
        with pytest.raises(ValueError) as info:
            played.dealer.handle(request, played.harness)
        assert str(info.value) == why
    assert all(set(p.hand().values()) == set(played.harness.hand(p.seat))
               for p in played.table.participants)


def test_a_one_card_reshuffle_is_a_generation_like_any_other():
    table = MentalTable(3, seeded(b"one card"), cards=DECK[:5])
    table.reshuffle(DECK[7:8])
    assert table.open_to(0, 2) == DECK[7]
    assert table.audit().clean


# -- cheats ------------------------------------------------------------------------------------

def wrong_key_after_the_deal(self, share):
    if share.context.generation == 0 and min(share.positions) < 4 * DAVIS.hand_size + 1:
        return share
    return dataclasses.replace(share, keys=((12345).to_bytes(32, "little"),) * len(share.keys))


def forged_reveal(self, reveal):
    if len(reveal.keys) == 1:
        return reveal
    return dataclasses.replace(reveal, keys=tuple(
        (seat, key if seat == self.seat else (7).to_bytes(32, "little")) for seat, key in reveal.keys))


def torsion(self, points):
    points[4] = crypto_core_ed25519_add(points[4], ORDER_8)


CHEATS = {
    "wrong key to a drawer": (cheater(KeyShare, wrong_key_after_the_deal),
                              "holds per-card keys that do not match its seed"),
    "forged reveal": (cheater(KeyReveal, forged_reveal), "carries a forged key"),
    "seed not matching its commitment": (
        cheater(SeedReveal, lambda self, reveal: dataclasses.replace(reveal, seed=bytes(32))),
        "seed does not match commitment"),
    "2C marking in pass 1": (in_pass(1, mark), "pass 1 output is not its key"),
    "substituted card in pass 1": (in_pass(1, substitute), "pass 1 output is not its key"),
    "small-order point in pass 1": (in_pass(1, torsion), "is not a valid point"),
}


@pytest.mark.parametrize("name", CHEATS)
def test_a_cheat_during_a_played_round_is_caught_and_its_author_named(name):
    participant_type, reason = CHEATS[name]
    culprit = 2
    played = Round(DAVIS, 4, 1, cheats={culprit: participant_type})
    with pytest.raises(CheatDetected) as caught:
        played.start().play()
    named = caught.value.culprit
    if named is None:  # a card that does not open: the round stops, the audit names who
        assert caught.value.reason.endswith("the round-end audit names who"), caught.value
        verdict = played.dealer.audit()
        named, why = verdict.culprit, verdict.reason
    else:
        why = caught.value.reason
    assert named == culprit, why
    assert f"seat {culprit}: " in why and reason in why
