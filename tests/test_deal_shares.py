"""What every party checks of a commit's sharing (deal/shares.py `check_commit`): a commit of
any other shape is refused with a ValueError that says what is wrong, whatever its fields hold."""

from __future__ import annotations

import dataclasses

import pytest

from dropout_helpers import CARDS, shared_table


@pytest.mark.parametrize("fields, problem", [
    ({"feldman": None}, "share commitments that are no list"),
    ({"feldman": 3}, "share commitments that are no list"),
    ({"shares": None}, r"share boxes for seats None"),
    ({"shares": b"boxes"}, r"share boxes for seats None"),
])
def test_a_commit_whose_sharing_is_no_list_is_refused_with_a_value_error(fields, problem):
    table = shared_table(deal=False)
    dealer, holder = table.participants[:2]
    commit = dealer.start_generation(0, CARDS, range(4))
    holder.start_generation(0, CARDS, range(4))
    with pytest.raises(ValueError, match=f"seat 0's commit of generation 0 refused: {problem}"):
        holder.receive(dataclasses.replace(commit, **fields))
    assert 0 not in holder.generation(0).commitments
