"""What the dropout-tolerant deal's tests share: tables with sharing on, and dealers that cheat at
it."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.cards import deck
from shanghai_net.deal import MentalTable, Participant, seeded
from shanghai_net.deal.messages import SharedCommitment
from shanghai_net.deal.sharing import coefficient_stream, seal_share, share_box_secret, split

CARDS = deck(1, 0)[:16]


def shared_table(players=4, t=3, cheats=None, seed=b"v9", cards=CARDS, **options):
    return MentalTable(players, seeded(seed), cards=cards, share_threshold=t,
                       participant_types=cheats, **options)


def changing(kind, change):
    """A participant whose outgoing messages of type ``kind`` go out as ``change(self, it)``."""

    class Changed(Participant):
        def outgoing(self, message):
            return change(self, message) if isinstance(message, kind) else message

    return Changed


def dealing(secret=None, coefficients=None, wrong_for=None):
    """A dealer whose commit carries a sharing of its own making, sealed as an honest one is:
    of ``secret(self, g)`` instead of its seed, with coefficients from ``coefficients`` instead
    of its seed's stream, or with holder ``wrong_for``'s share off the commitments."""
    def change(self, commit):
        g = self.generation(commit.context.generation)
        t, holders = g.sharing.threshold, g.sharing.commit_holders(self.seat)
        sharing = split(g.seed if secret is None else secret(self, g), t, holders,
                        coefficients or coefficient_stream(g.context, self.seat, t, g.seed))
        shares = dict(sharing.shares)
        if wrong_for is not None:
            shares[wrong_for] = (int.from_bytes(shares[wrong_for], "little") + 1).to_bytes(
                32, "little")
        boxes = [seal_share(share_box_secret(g.context, self.seat, h, g.seed), self._roster[h],
                            g.context, self.seat, h, t, shares[h]) for h in holders]
        return dataclasses.replace(commit, feldman=sharing.commitments,
                                   shares=tuple((b.holder, b.epk, b.box) for b in boxes))
    return changing(SharedCommitment, change)


def assert_only_holders_open(table):
    """Every hidden card opens to its holder alone: any other live seat lacks a key of it."""
    for participant in table._live():
        g = participant.generation(table.generation)
        for position in range(g.size):
            if position in g.mine or position in g.public:
                continue
            with pytest.raises(ValueError, match="no key yet from seats"):
                participant.open(table.generation, position)
