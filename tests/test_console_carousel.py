"""The console on a carousel table, driven by key presses: rearrange, an invalid arrangement, undo."""

from __future__ import annotations

from shanghai_net.console.layout import CAROUSEL_HELP
from shanghai_net.engine import Phase, Rearranged
from shanghai_net.rules import preset
from shanghai_net.session import LocalSession

from console_harness import StackedDealer, run, running

# seat 2 (a bot) plays first and can only put down the four fives; you (seat 0) can play only by
# taking the 5♠ out of that set for a run 3♠ 4♠ 5♠; seat 1's cards play nowhere
HANDS = {
    2: "5S 5D 5C 5H 9C JD KH 2H 7S QC",
    0: "3S 4S 9D JC KD 2C 7H QH AD TC",
    1: "6C 8D TD QD 3H 4C 6H 8C 9H KC",
}
DEALER = 1


def carousel_top(hands: dict[int, str], dealer: int) -> str:
    """The stacked deck dealing ``hands`` in carousel batches (3, 3, 3, 1) left of ``dealer``."""
    players = len(hands)
    left = {s: hands[s].split() for s in hands}
    order = []
    for batch in (3, 3, 3, 1):
        for k in range(players):
            seat = (dealer + 1 + k) % players
            order += left[seat][:batch]
            left[seat] = left[seat][batch:]
    return " ".join(order)


def carousel_session(seed: int = 4) -> LocalSession:
    return LocalSession(preset("carousel"), ["basic", "basic"], seed, bot_delay=0.0,
                        dealer=StackedDealer(carousel_top(HANDS, DEALER), first_dealer=DEALER, seed=seed))


def mine(d):
    return [e.event for e in d.session.log if isinstance(e.event, Rearranged) and e.event.seat == 0]


async def _pick_five_of_spades(d) -> None:
    """j, the set's number, the 5♠'s place in it: the 5♠ goes to the working area."""
    groups = d.state.table_groups()
    meld = next(i for i, g in enumerate(groups) if any(str(c) == "5S" for c in g))
    place = [str(c) for c in groups[meld]].index("5S")
    await d.press("j", str(meld + 1), str(place + 1))


def test_a_rearrangement_by_keys():
    async def body():
        async with running(carousel_session(), ascii=True) as d:
            view = d.session.view
            assert view.my_turn and view.phase is Phase.PLAY
            assert [len(m.cards) for m in view.table] == [4]  # the bot's four fives
            screen = d.screen()
            assert "carousel · hand 1" in screen["title"] and "your turn: play" in screen["title"]
            for key in ("k pick up meld", "j pick up card", "g new meld", "Enter commit", "u undo", "a best play"):
                assert key in screen["footer"]
            assert "t take discard" not in screen["footer"] and "d draw" not in screen["footer"]
            await _pick_five_of_spades(d)
            assert [str(c) for c in d.state.loose] == ["5S"]
            assert "Working area 5S" in d.screen()["tracker"]
            assert "your working arrangement" in d.screen()["table"]
            await d.select("3S", "4S", "5S")
            await d.press("g")
            assert d.state.loose == [] and len(d.state.table_groups()) == 2
            await d.press("enter")
            [move] = mine(d)
            assert sorted(str(c) for c in move.played) == ["3S", "4S"]
            assert sorted(" ".join(str(c) for c in m.cards) for m in move.table) == ["3S 4S 5S", "5D 5C 5H"] or \
                sorted(sorted(str(c) for c in m.cards) for m in move.table) == [["3S", "4S", "5S"], ["5C", "5D", "5H"]]
            assert len(d.session.view.hand) == 8 + sum(1 for e in d.session.log if getattr(e.event, "seat", None) == 0
                                                       and type(e.event).__name__ == "Drew")
            assert d.state.groups is None and d.state.loose == []
            assert not d.state.error

    run(body)


def test_an_invalid_arrangement_shows_the_reason_and_keeps_the_working_area():
    async def body():
        async with running(carousel_session(), ascii=True) as d:
            await _pick_five_of_spades(d)
            await d.press("enter")  # nothing from the hand, and the 5♠ left lying in the working area
            # the reason alone, not the whole table spelt out in the move before it
            assert d.state.error and d.state.message == "play at least one card from your hand"
            assert "play at least one card from your hand" in d.screen()["message"]
            assert [str(c) for c in d.state.loose] == ["5S"]
            await d.select("3S", "5S")
            await d.press("g", "enter")  # 3♠ 5♠ is no meld
            assert d.state.error and "is no meld" in d.state.message
            assert [sorted(str(c) for c in g) for g in d.state.table_groups()][-1] == ["3S", "5S"]
            assert not mine(d) and d.session.view.my_turn
            # mended: take 4♠ in, and the same arrangement commits
            await d.press("l")
            assert d.state.target is not None
            groups = d.state.table_groups()
            await d.cursor_on("4S")
            await d.press("l", str(len(groups)))
            await d.press("enter")
            assert mine(d) and not d.state.error

    run(body)


def test_undo_puts_everything_back_and_best_play_commits():
    async def body():
        async with running(carousel_session(), ascii=True) as d:
            table = d.screen()["table"]
            hand = d.state.hand()
            await d.press("k", "1")  # the whole set to the working area
            assert len(d.state.loose) == 4 and d.state.table_groups() == []
            await d.select("3S", "4S")
            await d.press("g")
            assert len(d.state.hand()) == 8 + 4
            await d.press("u")
            assert d.state.groups is None and d.state.loose == [] and d.state.selected == []
            assert d.screen()["table"] == table and d.state.hand() == hand
            assert "everything put back" in d.state.message
            await d.press("a")  # the solver's best play, ready
            assert "best play" in d.state.message and sorted(str(c) for c in d.state.played()) == ["3S", "4S"]
            await d.press("enter")
            assert mine(d)

    run(body)


def test_help_lists_the_carousel_keys_only():
    async def body():
        async with running(carousel_session(), ascii=True) as d:
            await d.press("?")
            text = "".join(t for _, t in d.console.screen.help_text())
            assert text.startswith(CAROUSEL_HELP.splitlines()[0])
            assert "pick up that whole meld" in text and "take the discard" not in text

    run(body)


def test_draw_when_nothing_plays():
    hands = {**HANDS, 0: "3S 4H 9D JC KD 2C 7H QH AD TC"}  # no 4♠: nothing of yours plays
    session = LocalSession(preset("carousel"), ["basic", "basic"], 4, bot_delay=0.0,
                           dealer=StackedDealer(carousel_top(hands, DEALER), first_dealer=DEALER, seed=4))

    async def body():
        async with running(session, ascii=True) as d:
            screen = d.screen()
            assert "nothing plays, draw" in screen["title"] and "d draw" in screen["footer"]
            title = "".join(t for _, t in d.console.screen.title())
            assert len(title) <= 80 and title.rstrip().endswith(d.state.view_model().status), \
                title  # at 80 columns the contract's words give way to what to do now
            await d.press("a")
            assert d.state.error and "no play" in d.state.message
            await d.press("d")
            drew = [e.event for e in d.session.log if type(e.event).__name__ == "Drew" and e.event.seat == 0]
            assert drew and drew[0].card is not None

    run(body)
