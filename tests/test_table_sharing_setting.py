"""The sharing setting resolved over a table's holders (docs/dealing.md, "The price, in one
sentence, then in a table"): every holder count from 0 to 8 against the design's tables,
written out here as the design gives them (not computed by the rule under test), and the
exact lines the lobby will print."""

from __future__ import annotations

import pytest

from shanghai_net.table.sharing_setting import resolve_sharing

ALLOWED = {0: set(), 1: set(), 2: set(), 3: {2}, 4: {3}, 5: {3, 4}, 6: {4, 5}, 7: {4, 5, 6},
           8: {5, 6, 7}}
"""holders h -> the thresholds the design's table offers (off is always allowed)."""

DEFAULT = {0: None, 1: None, 2: None, 3: None, 4: 3, 5: 4, 6: 4, 7: 5, 8: 6}
"""holders h -> the default (bold in the design's table; None: off)."""

OFF = ("Sharing off. A lost seat voids its round. No seats but all the others together can see "
       "a hand.")


@pytest.mark.parametrize("holders", range(9))
def test_each_holder_count_resolves_as_the_design_s_table_says(holders):
    assert resolve_sharing("default", holders).threshold == DEFAULT[holders]
    assert resolve_sharing("off", holders).threshold is None
    for t in range(0, 10):
        resolved = resolve_sharing(t, holders)
        if t in ALLOWED[holders]:
            assert (resolved.threshold, resolved.why_off) == (t, None)
        else:
            assert resolved.threshold is None and resolved.why_off.startswith("sharing off: ")
            assert resolved.promise == OFF


@pytest.mark.parametrize("seats, host_seats, default, why", [
    (4, 0, 3, None),  # the host's person and 3 people on other machines
    (4, 2, None, "sharing off: the host runs 2 of 4 seats"),  # its person, 2 bots, a friend
    (4, 1, None, "sharing off: the default for 3 holders (any 2 of them would see every card)"),
    (5, 3, None, "sharing off: the host runs 3 of 5 seats"),  # its person, 3 bots, a friend
    (6, 2, 3, None),  # 2 of the host's bots and 4 people
    (8, 3, 4, None),  # 3 of the host's bots and 5 people
    (4, 3, None, "sharing off: the host runs 3 of 4 seats"),  # only its bots beside its person
])
def test_the_host_s_bots_examples(seats, host_seats, default, why):
    resolved = resolve_sharing("default", seats - host_seats, host_seats)
    assert (resolved.threshold, resolved.why_off) == (default, why)


def test_a_table_of_one_host_bot_and_three_people_may_choose_two():
    assert resolve_sharing(2, 3, host_seats=1).threshold == 2


def test_why_a_setting_is_off_is_said():
    assert resolve_sharing("off", 6).why_off == "sharing off: the table's setting"
    assert resolve_sharing(4, 4).why_off == "sharing off: t = 4 with 4 holders (allowed: 3)"
    assert resolve_sharing(3, 6).why_off == "sharing off: t = 3 with 6 holders (allowed: 4 to 5)"
    assert resolve_sharing(2, 2).why_off == "sharing off: 2 holders; sharing needs 3"
    assert resolve_sharing(3, 2, host_seats=2).why_off == "sharing off: the host runs 2 of 4 seats"


@pytest.mark.parametrize("holders, t, others", [
    (4, 3, "all of them"), (5, 3, "all but one"), (6, 4, "all but one"), (7, 4, "all but two"),
    (8, 6, "all but one"), (8, 5, "all but two"), (3, 2, "all of them")])
def test_the_promise_is_the_design_s_words(holders, t, others):
    assert resolve_sharing(t, holders).promise == (
        f"Sharing on: {t} of {holders} holders (the host's bots and stand-ins hold no share). "
        f"Any {t} of the holders together could see every card. A lost seat's hand goes to its "
        f"replacement and the round goes on if {t} of the holders left publish their shares; "
        f"a seat silent at its seeds is audited from its rebuilt seeds if {t} of the other "
        f"holders show theirs (here: {others}).")
    assert resolve_sharing("off", holders).promise == OFF


@pytest.mark.parametrize("setting", ["on", "3", 2.0, True, None])
def test_a_setting_that_is_none_of_off_default_or_a_threshold_is_refused(setting):
    with pytest.raises(ValueError, match="sharing setting .*\"off\", \"default\" or a threshold"):
        resolve_sharing(setting, 5)
