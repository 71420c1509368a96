"""The conformance kit's tables of version 10's seed sharing (docs/dealing.md) against
clients/simple_bot.py: a share dealt to the client that does not open, a wrong share in seeds
of a seat silent at its seeds, a silent seat rebuilt off its commitment, and (R1) a wrong share
published for a seat lost mid-round and a key share to it kept past its stand-in's approvals.
Each passes for simple_bot and fails for a copy of it without the check it is about."""

import trio

from shanghai_net.conformance.sharing import sharing_tables
from shanghai_net.conformance.lost import lost_tables
from shanghai_net.conformance.situations import LOST_SITUATIONS, SHARING_SITUATIONS

from test_conformance import BOT, bot_without

SHARING_CHECKS = (
    ("simple_bot.py", "            if share is None:\n                self.complaint.append",
     "            if False:\n                self.complaint.append"),
    ("simple_bot.py",
     '                if not share_fits(gen.feldman[seat], author, entry["share"]):',
     '                if False:'),
    ("simple_bot.py", "        if seed_commitment(gen.ctx, seat, seed) != gen.commits[seat]:",
     "        if False:"),
)
"""simple_bot's checks of the seed sharing (the holder's check of its share, the check of every
published share of a silent seat, the rebuilt seed against its digest), and a copy's instead."""


async def test_the_seed_sharing_passes_for_the_bot_and_fails_for_its_copy_without_the_checks(
        tmp_path):
    with trio.fail_after(400):
        kept = await sharing_tables(BOT, game_timeout=120, step=20)
    assert [o.line() for o in kept if not o.passed] == []
    assert [(o.section, o.situation) for o in kept] == list(SHARING_SITUATIONS)
    assert "its complaint names seat" in kept[0].detail and "no pass of it" in kept[0].detail
    assert "it signed nothing after it; it left" in kept[1].detail
    with trio.fail_after(400):
        lacking = await sharing_tables(bot_without(tmp_path, SHARING_CHECKS), game_timeout=120,
                                       step=20)  # (the copy must get the CPU to deal on)
    assert [o.passed for o in lacking] == [False, False, False], [o.line() for o in lacking]
    assert "none naming seat" in lacking[0].detail
    # it does not take the verdict: it stays for the next round (and most often deals it)
    assert "it was still there 20 s later" in lacking[1].detail
    assert "it was still there 20 s later" in lacking[2].detail


REVEAL_CHECK = (
    ("simple_bot_sharing.py",
     '            if not share_fits(gen.feldman[seat], author, entry.get("share")):',
     "            if False:"),
)
"""simple_bot's check of every share a holder publishes for a lost seat (R1), and a copy's
instead."""
SEATING_CHECK = (
    ("simple_bot_sharing.py",
     "                and not any(recipient == seat for recipient, _, _ in self.owed):",
     "                :"),
)
"""simple_bot's wait, to seat a lost seat's replacement, for the key shares owed to the seat,
and a copy's instead (it seats it at the last approval)."""


async def test_r1_s_tables_pass_for_the_bot_and_fail_for_its_copy_without_the_checks(tmp_path):
    """A wrong published share, and a key share kept past a stand-in's approvals."""
    with trio.fail_after(400):
        kept = await lost_tables(BOT, game_timeout=150, step=20)
    assert [(o.section, o.situation) for o in kept] == list(LOST_SITUATIONS)
    assert [o.line() for o in kept if not o.passed] == []
    assert "it signed nothing after it; it left" in kept[0].detail
    assert "nothing refused" in kept[1].detail
    with trio.fail_after(400):
        lacking = await lost_tables(bot_without(tmp_path, REVEAL_CHECK + SEATING_CHECK),
                                    game_timeout=150, step=20)
    assert [o.passed for o in lacking] == [False, False], [o.line() for o in lacking]
    # it does not take the verdict: it rebuilt the seat from the first t shares and stays
    assert "it was still there 20 s later" in lacking[0].detail, lacking[0].line()
    # it seats the stand-in at the last approval and hands it its box before the host owes one
    assert "refused: out_of_turn" in lacking[1].detail, lacking[1].line()
