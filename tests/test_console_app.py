"""The console driven by real key presses (pipe input, DummyOutput) against bots on a fake clock."""

from __future__ import annotations

import re

from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.engine import (
    ClaimCalled, ClaimPassed, Claimed, Discarded, LaidOff, Phase, RoundEnded, WentDown,
)
from shanghai_net.session import LocalSession
from shanghai_net.rules import preset

from console_harness import davis_session, run, running


def events(d, kind, seat=0):
    return [e.event for e in d.session.log if isinstance(e.event, kind) and getattr(e.event, "seat", seat) == seat]


async def _play_on(d, claims_wanted: bool = True, limit: int = 400) -> None:
    """Play seat 0 by keys until the round ends: claim once, draw, lay off what fits, discard."""
    for _ in range(limit):
        if d.state.summary is not None:
            return
        view = d.session.view
        if view.may_claim:
            await d.press("m" if claims_wanted and not events(d, Claimed) else "p")
        elif view.my_turn and view.phase is Phase.DRAW:
            await d.press("d")
        elif view.my_turn:
            vm = d.state.view_model()
            fit = [i for i, h in enumerate(vm.hand) if h.fits]
            if fit and view.down[0]:
                await d.press("home", *["right"] * fit[0], "l")
                if d.state.target is not None:
                    await d.press(str(vm.hand[fit[0]].fits[0] + 1))
            else:
                await d.press("home", "x")
        else:
            raise AssertionError(f"nothing to do for seat 0: {d.game.to_move()} {view.phase}")
    raise AssertionError("the round did not end")


def test_a_whole_round_by_keys():
    async def body():
        async with running(davis_session()) as d:
            screen = d.screen()
            assert "davis · round 1 of 7 · two books" in screen["title"]
            assert "your turn: draw" in screen["title"]
            assert "7s 3/3 ok" in screen["tracker"] and "9s 3/3 ok" in screen["tracker"]
            assert "d draw" in screen["footer"] and "t take discard" in screen["footer"]
            await d.press("d")
            assert d.session.view.phase is Phase.PLAY and len(d.session.view.hand) == 12
            # go down: pick each book's cards, g after each
            await d.select("7H", "7S", "7D")
            await d.press("g")
            assert "meld 1 of 2 picked" in d.state.message and "picked: 7♥ 7♠ 7♦" in d.screen()["tracker"]
            await d.select("9C", "9D", "9H")
            await d.press("g")
            assert events(d, WentDown) and d.session.view.down[0]
            table = d.screen()["table"]
            assert "0 you" in table and "[1] 7♦ 7♥ 7♠" in table and "[2] 9♣ 9♦ 9♥" in table
            # lay off: 7♣ fits only the sevens, so l lays it at once; the drawn 9♠ likewise
            await d.cursor_on("7C")
            assert "▲1" in d.screen()["hand"] and "+2" in d.screen()["hand"]  # 7♣ under the cursor, 9♠
            await d.press("l")
            await d.cursor_on("9S")
            await d.press("l")
            assert [(e.card.text(), e.meld) for e in events(d, LaidOff)] == [("7C", 0), ("9S", 1)]
            await d.cursor_on("QC")
            await d.press("x")
            assert [e.card.text() for e in events(d, Discarded)] == ["QC"]
            await _play_on(d)
            assert events(d, ClaimCalled) and events(d, Claimed), "no claim was made by key"
            assert any(isinstance(e.event, RoundEnded) for e in d.session.log)
            text = fragment_list_to_text(d.console.screen.summary_text())  # floats over the table
            result = d.state.summary
            assert text.startswith(" Round 1 over")
            for hand in result.hands:
                for card in hand:
                    assert card.text(True) in text
            assert "Enter: next round" in text
            await d.press("enter")
            assert d.state.summary is None and not d.session.waiting_for_ready
            assert d.session.view.round_no == 2 and "round 2 of 7" in d.screen()["title"]
            assert d.state.view_model().contract == "one book and one run"  # the title may cut it
            await d.press("q", "y")
        assert d.result == 0

    run(body)


def test_illegal_key_shows_the_engine_reason_and_keeps_the_selection():
    async def body():
        async with running(davis_session()) as d:
            await d.select("QC")
            await d.press("x")  # discarding before drawing
            assert d.state.error and "not now: the game is in its draw phase" in d.state.message
            # the reason, not the move spelt out in letters before it
            assert d.screen()["message"] == " not now: the game is in its draw phase"
            assert [str(c) for c in d.state.selected] == ["QC"]
            assert d.session.view.phase is Phase.DRAW and len(d.session.view.hand) == 11
            await d.press("esc")
            assert d.state.selected == []
            await d.press("d")
            # a wrong second meld is refused at g, with the reason; its cards stay selected
            await d.select("7H", "7S", "7D")
            await d.press("g")
            await d.select("9C", "9D", "4S")
            await d.press("g")
            assert d.state.error and d.state.message == "9♣ 9♦ 4♠ is no meld: neither one rank (a set) nor one suit (a run)"
            assert [str(c) for c in d.state.selected] == ["9C", "9D", "4S"]
            assert [len(m) for m in d.state.pending] == [3]
            assert not d.session.view.down[0]
            # u takes the first meld back too; Esc clears it all
            await d.press("u")
            assert len(d.state.selected) == 3 and d.state.pending == []
            await d.press("esc")
            # the arrangements the engine finds: a, then a number goes down with it
            await d.press("a")
            assert d.state.options and "Go down with" in fragment_list_to_text(d.console.screen.options_text())
            await d.press("1")
            assert d.session.view.down[0] and d.state.options is None
            # lay off a card that fits nowhere: the engine's reason, selection kept
            await d.cursor_on("QC")
            await d.press(" ", "l")
            assert d.state.target is not None and "on which meld" in d.state.message
            await d.press("1")
            assert d.state.error and "Q♣ does not go on" in d.state.message and "QC" not in d.state.message
            assert [str(c) for c in d.state.selected] == ["QC"]

    run(body)


def test_claim_countdown_and_timeout_by_keys():
    async def body():
        async with running(davis_session(claim_timeout=5.0)) as d:
            await d.press("d")
            await d.press("a", "1")
            await d.cursor_on("4S")
            await d.press("x")
            for _ in range(50):  # until a bot's discard that you may claim stays open
                if d.session.view.may_claim:
                    break
                view = d.session.view
                await d.press("d" if view.phase is Phase.DRAW else "x")
            assert d.session.view.may_claim
            piles = d.screen()["piles"]
            assert "MAY I? m / p · 5s" in piles and "m MAY I" in d.screen()["footer"]
            await d.jump(2.2)
            assert "· 3s" in d.screen()["piles"]
            passes = len(events(d, ClaimPassed))
            await d.jump(3.0)
            assert len(events(d, ClaimPassed)) == passes + 1, "silence did not become a pass"
            assert not d.session.view.may_claim

    run(body)


def test_help_overlay_quit_and_chat():
    async def body():
        async with running(davis_session()) as d:
            await d.press("?")
            assert d.state.help_open
            help_text = fragment_list_to_text(d.console.screen.help_text())
            assert "draw from the stock" in help_text and "(MAY I)" in help_text
            assert "+n / new      under a card: it lays off on meld n / it came from the pile" \
                in help_text  # issue 24
            assert "call SHANGHAI" in help_text and "swap a joker" not in help_text  # davis has no swap
            await d.press("d")  # a key of the table closes the help and acts (issue 42)
            assert d.session.view.phase is Phase.PLAY and not d.state.help_open
            await d.press("?", "esc")
            assert not d.state.help_open
            await d.press("q")
            assert d.state.quit_asked
            await d.press("n")
            assert not d.state.quit_asked and d.console.app.is_running
            await d.press("c")
            for ch in "hello all":
                d.pipe.send_text(ch)
            await d.press("enter")
            assert "you: hello all" in d.screen()["chat"]
            assert not d.state.chat_open
            await d.press("c", *"dq", "esc")  # letters go to the chat line, Esc drops it
            assert d.session.view.phase is Phase.PLAY and not d.state.quit_asked
            assert [e.text for e in d.session.log if e.chat_from is not None] == ["hello all"]
            await d.press("s")
            assert d.state.sort == "rank"
            await d.press("q", "y")
        assert d.result == 0

    run(body)


def test_ascii_and_other_preset():
    async def body():
        session = LocalSession(preset("good-miller"), ["basic", "basic", "basic"], seed=2, bot_delay=0.0)
        async with running(session, ascii=True) as d:
            screen = d.screen()
            assert "two sets" in screen["title"]
            assert not any(s in "".join(screen.values()) for s in "♠♥♦♣")
            for _ in range(40):
                if d.session.view.may_claim:
                    break
                view = d.session.view
                await d.press("d" if view.phase is Phase.DRAW else "x")
            assert "I call? m / p" in d.screen()["piles"]
            help_text = fragment_list_to_text(d.console.screen.help_text())
            assert "swap a joker" in help_text and "SHANGHAI" not in help_text

    run(body)


def test_game_over_table_after_the_last_round():
    async def body():
        one_round = preset("davis").override("contracts=2s", final_round_meld_all=False)
        async with running(davis_session(rules=one_round)) as d:
            await d.press("d", "a", "1")
            await _play_on(d, claims_wanted=False)
            assert d.session.result is not None and d.state.game_over
            summary = fragment_list_to_text(d.console.screen.summary_text())
            assert "Enter: the final table" in summary
            await d.press("enter")
            table = fragment_list_to_text(d.console.screen.game_over_text())
            result = d.session.result
            assert table.startswith(" Game over: ")
            assert "R1" in table.splitlines()[1] and "total" in table.splitlines()[1]
            rows = table.splitlines()[2:2 + len(result.ranking)]
            for row, seat in zip(rows, result.ranking):  # place, seat, round 1's points, total
                name = "you" if seat == 0 else "basic bot"
                place = 1 + sorted(result.totals).index(result.totals[seat])  # ties share a place
                assert row.split() == [f"{place}.", str(seat), *name.split(), str(result.rounds[0].points[seat]),
                                       str(result.totals[seat]), "pts"]
            assert not d.session.waiting_for_ready
            await d.press("q")  # issue 24: the first q closed only the box
        assert d.result == 0 and d.state.exit_requested

    run(body)


def test_play_local_refuses_what_it_cannot_play(capsys):
    from shanghai_net.console import play_local

    assert play_local("nosuch") == 2
    assert play_local("davis", bots=9) == 2
    err = capsys.readouterr().err
    assert "no preset 'nosuch'" in err and "3-6 players, not 10" in err


def test_a_claim_window_under_the_round_summary_is_answered_there():
    """Issue 24: the next round's first claim window opened under the round summary, whose keys
    (Enter, h, m ...) could not answer it while its timer ran ("you let it go")."""
    from shanghai_net.engine import RoundResult

    async def body():
        async with running(davis_session()) as d:
            for _ in range(40):
                if d.session.view.may_claim:
                    break
                view = d.session.view
                await d.press("d" if view.phase is Phase.DRAW else "x")
            assert d.state.may_claim
            d.state.summary = RoundResult(1, 0, ((), (), ()), (0, 5, 5), (0, 5, 5))
            summary = fragment_list_to_text(d.console.screen.summary_text())
            assert re.search(r"\n MAY I \S+\? m / p · \d+s$", summary), summary
            claims = len([e for e in d.session.log if e.text.startswith("seat 0 claims")])
            await d.press("m")
            assert len([e for e in d.session.log if e.text.startswith("seat 0 claims")]) == \
                claims + 1
            assert d.state.summary is not None  # still there to read

    run(body)
