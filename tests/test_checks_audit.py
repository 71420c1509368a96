"""The round's audit covers every generation of the round, a reshuffle's too (issue 40): a
cheat planted only in a later generation, one no card's opening shows, is named by it.  An
audit cut to the round's first generation passed the suite."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import CheatDetected, MentalTable, PassOutput, SeedReveal, seeded
from shanghai_net.deal.group import multiply

from test_deal_cheats import CARDS, cheater, deal_all
from test_deal_engine import DAVIS, Round
from test_net_complaints import assert_everyone_names, seat_running
from test_net_table import Table

SECRET = (123456789).to_bytes(32, "little")


def marks_in_generation(first: int):
    """A participant that marks a card of its pass 1 with a scalar it knows, in generation
    ``first`` and later only: the marked position opens to no card (if it is ever opened), and
    only the audit, recomputing the pass from the seed, says who marked it."""
    def change(self, message):
        if message.phase != 1 or message.context.generation < first:
            return message
        points = list(message.points)
        points[0] = multiply(SECRET, points[0])
        return dataclasses.replace(message, points=tuple(points))
    return cheater(PassOutput, change)


@pytest.mark.parametrize("generation", [1, 2])
def test_a_pass_marked_in_a_reshuffle_s_generation_is_named_by_the_audit(generation):
    table = MentalTable(4, seeded(b"later generation"), cards=CARDS,
                        participant_types={1: marks_in_generation(generation)})
    deal_all(table)
    table.reshuffle(CARDS[:6])  # two reshuffles, of discards no one looks at again
    table.reshuffle(CARDS[6:9])
    verdict = table.audit()
    assert verdict.culprit == 1, verdict
    assert verdict.reason.startswith(f"generation {generation}: seat 1: pass 1 output is not "
                                     "its key times the permuted input"), verdict


def test_a_played_round_s_audit_names_a_cheat_of_its_reshuffle_only():
    """A round played through the engine reshuffles its discards; seat 2 marks a card of its
    pass 1 in the reshuffle only.  The marked card, drawn, opens to nothing and stops the
    round naming no one; the audit names seat 2 for that generation."""
    culprit = 2
    played = Round(DAVIS, 3, 6, "random", cheats={culprit: marks_in_generation(1)})
    with pytest.raises(CheatDetected) as caught:
        played.start().play()
    assert caught.value.reason.endswith("the round-end audit names who"), caught.value
    assert caught.value.culprit is None and "of generation 1 " in caught.value.reason
    verdict = played.dealer.audit()
    assert verdict.culprit == culprit, verdict
    assert "generation 1: seat 2: pass 1 output is not its key" in verdict.reason


def marks_everything_in_generation(first: int):
    """`marks_in_generation`, every card of the pass marked: the first card of generation
    ``first`` that is opened opens to nothing."""
    def change(self, message):
        if message.phase != 1 or message.context.generation < first:
            return message
        return dataclasses.replace(message, points=tuple(multiply(SECRET, p)
                                                         for p in message.points))
    return cheater(PassOutput, change)


def wrong_seed_in_generation(first: int):
    """A participant that reveals a seed its commitment does not match for generation
    ``first`` and later: every card opened, only the audit's check of the seeds sees it."""
    def change(self, reveal):
        if reveal.context.generation < first:
            return reveal
        return dataclasses.replace(reveal, seed=bytes(32))
    return cheater(SeedReveal, change)


RESHUFFLING = {"decks": 1, "max_reshuffles": 2}
"""Round 1 of davis for three with one deck: the stock runs out twice (generations 0 to 2)."""


@pytest.mark.parametrize("cheat,why", [
    (wrong_seed_in_generation(2), "generation 2: seat 1: seed does not match commitment"),
    (marks_everything_in_generation(1), "generation 1: seat 1: pass 1 output is not its key")],
    ids=["the round-end audit", "the audit after a complaint"])
def test_every_party_s_audit_of_a_round_covers_its_reshuffles(cheat, why):
    """Seat 1 cheats only in a reshuffle's generation: a seed it reveals for the last one
    does not match its commitment (every card opened; the round-end audit sees it), or it
    marks every card of the first reshuffle (the first drawn opens to nothing, its drawer
    complains, the round stops and is audited at once).  The host's table and every seat
    audit every generation of the round, and name seat 1 for that generation."""
    t = Table(3, seed=1, rules=RESHUFFLING, kinds={1: seat_running(cheat)})
    t.run_until(lambda: t.host.finished)
    assert_everyone_names(t, 1, why)
