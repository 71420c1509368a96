"""The hint key: ``h`` shows in one line what the expert bot would do now and why, and plays
nothing."""

from __future__ import annotations

from shanghai_net.console.state import ConsoleState
from shanghai_net.engine import Phase

from console_harness import davis_session, run, running


def test_h_says_what_the_expert_would_do_and_why_without_playing_it():
    async def body():
        async with running(davis_session()) as d:
            await d.press("h")
            assert d.state.message == "hint: draw: K♣ helps nothing you hold"
            assert d.screen()["message"].strip() == "hint: draw: K♣ helps nothing you hold"
            view = d.session.view
            assert view.phase is Phase.DRAW and view.my_turn and len(view.hand) == 11
            await d.press("d")
            await d.press("h")
            assert d.state.message.startswith("hint: go down with ") and "7♥" in d.state.message
            assert not d.session.view.down[0] and len(d.session.view.hand) == 12
    run(body)


def test_h_with_no_decision_to_make_says_so():
    state = ConsoleState(davis_session())  # not dealt yet: no view, no move
    state.hint()
    assert state.message == "no hint: nothing for you to decide now"
