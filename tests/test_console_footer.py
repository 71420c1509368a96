"""Issue 42, item 5: a key the footer offers always acts.  A seat that rejoined with the round
summary open on its own turn pressed ``d`` (offered in the footer) and nothing happened.

Table-driven: with each thing that floats over the table open (the round summary, the score
sheet S, the log L, the rules R, the help ?), the test reads the keys the footer offers, presses
each, and checks that it did what it does (a draw draws, space selects, s sorts, ...) and that
what floated closed (a claim's m / p answer under it and leave it to read; q asks over it).
The game is played on by the same keys until every key the footer offered in a turn's draw and
play phases and in a claim window has been pressed under every overlay.  A question (quit, the
arrangements) offers only its answers, and each of those acts too."""

from __future__ import annotations

from shanghai_net.engine import (
    Discard, DrawStock, MayI, PassClaim, Phase, RoundResult, TakeDiscard,
)

from console_harness import davis_session, run, running

OVERLAYS = ("summary", "S", "L", "R", "?")
PRESS = {"spc": [" "], "←→": ["right"], "Enter": ["enter"], "Esc": ["esc"]}
STAYS = {"m", "p", "q"}
"""Keys that act with the overlay left open (a claim's answer; quit asks over it)."""
MOVES = {"d": DrawStock, "t": TakeDiscard, "m": MayI, "p": PassClaim, "x": Discard}


def footer(d) -> list[tuple[str, str]]:
    """The keys the footer offers, as drawn on the harness's 80-column terminal."""
    return d.state.footer_keys(d.console.app.output.get_size().columns)


def snapshot(d) -> dict:
    s = d.state
    return dict(cursor=s.cursor, sort=s.sort, selected=list(s.selected), pending=list(s.pending),
                target=s.target, options=s.options, chat=s.chat_open, help=s.help_open,
                quit=s.quit_asked, message=s.message, summary=s.summary, sent=len(d.sent))


def responded(b, a) -> bool:
    """A key of a move that the table answered: what it picked, asked, said or sent changed."""
    return any(a[k] != b[k] for k in ("pending", "target", "options", "message", "sent"))


ACTS = {
    "spc": lambda b, a: a["selected"] != b["selected"],
    "←→": lambda b, a: a["cursor"] != b["cursor"],
    "s": lambda b, a: a["sort"] != b["sort"],
    "c": lambda b, a: a["chat"],
    "?": lambda b, a: a["help"] != b["help"],
    "q": lambda b, a: a["quit"],
    "Enter": lambda b, a: a["summary"] is None,
}


def is_open(d, overlay: str) -> bool:
    s = d.state
    return {"summary": s.summary is not None, "?": s.help_open}.get(
        overlay, s.panel is not None and s.panel.value[0].upper() == overlay)


async def open_overlay(d, overlay: str) -> None:
    if overlay == "summary":  # as a rejoined seat finds it: over the table, on its turn
        d.state.summary = RoundResult(1, 1, ((), (), ()), (5, 0, 5), (5, 0, 5))
    else:
        await d.press(overlay)
    assert is_open(d, overlay), overlay


async def tidy(d) -> None:
    """Close what the key opened (the chat line, a question, the help), so the next starts
    from the table."""
    s = d.state
    if s.quit_asked:
        await d.press("n")
    if s.chat_open or s.help_open or s.options is not None or s.target is not None:
        await d.press("esc")
    if s.summary is not None or s.panel is not None:
        await d.press("esc")
    assert not (s.chat_open or s.help_open or s.quit_asked or s.options or s.panel or s.summary)


async def every_key_under_every_overlay(d) -> set[str]:
    """Press each key the footer offers now under each overlay (a move's key hands its move to
    ``d.sent``, not to the table, so that the game stays where it is); the keys pressed."""
    pressed = set()
    for overlay in OVERLAYS:
        await open_overlay(d, overlay)
        offered = [k for k, _ in footer(d)]
        await tidy(d)
        for key in offered:
            await open_overlay(d, overlay)
            assert f" {key} " in d.screen()["footer"]
            if key == "←→":
                d.state.cursor = 0
            d.state.note("·")  # a key that says anything, even nothing, changes it
            d.state.selected.clear()  # x discards the card under the cursor
            before = snapshot(d)
            await d.press(*PRESS.get(key, [key]))
            after = snapshot(d)
            if key in MOVES:
                assert a_new(before, after) and isinstance(d.sent[-1], MOVES[key]), \
                    f"{key} under {overlay} sent no move"
            else:
                assert ACTS.get(key, responded)(before, after), \
                    f"{key} under {overlay} did nothing: {before} {after}"
            if overlay == "?" and key == "?":
                assert not d.state.help_open  # it closes the help
            elif key not in STAYS:
                assert not is_open(d, overlay), f"{key} left {overlay} open"
            await tidy(d)
            pressed.add(key)
    return pressed


def a_new(b, a) -> bool:
    return a["sent"] == b["sent"] + 1


def test_every_key_the_footer_offers_acts_under_every_overlay():
    async def body():
        async with running(davis_session()) as d:
            submit, d.sent = d.state.send, []

            def held(move) -> None:  # the move is pressed for, and kept here
                d.sent.append(move)
                d.state.busy = False

            async def keys_now() -> set[str]:
                d.state.send = held
                try:
                    return await every_key_under_every_overlay(d)
                finally:
                    d.state.send = submit

            assert {"d", "t", "←→", "s", "c", "?", "q"} <= await keys_now()  # to draw
            await d.press("d")
            # at 80 columns this turn's keys crowd out those of every turn (the help has them)
            assert {"spc", "g", "a", "x", "?", "q"} <= await keys_now()
            for _ in range(40):  # on to a claim window of ours
                if d.session.view.may_claim:
                    break
                await d.press("d" if d.session.view.phase is Phase.DRAW else "x")
            assert {"m", "p"} <= await keys_now()
            await d.press("q", "y")

    run(body)


def test_every_key_a_carousel_turn_offers_acts_under_every_overlay():
    """The carousel's own keys too (k, j, g, l, Enter, u, a), on its first turn of play."""
    from test_console_carousel import carousel_session

    async def body():
        async with running(carousel_session()) as d:
            assert d.session.view.my_turn and d.state.carousel
            submit, d.sent = d.state.send, []

            def held(move) -> None:
                d.sent.append(move)
                d.state.busy = False

            d.state.send = held
            try:
                pressed = await every_key_under_every_overlay(d)
            finally:
                d.state.send = submit
            assert {"spc", "k", "j", "g", "l", "Enter", "u", "a", "?", "q"} <= pressed, pressed
            await d.press("q", "y")

    run(body)


def test_a_question_offers_only_its_answers_and_each_acts():
    """While quit or the arrangements are asked, the footer offers their answers, not the
    table's keys (which do nothing then): y and n, a number and Esc."""
    async def body():
        async with running(davis_session()) as d:
            await d.press("q")
            assert footer(d) == [("y", "quit"), ("n", "stay")]
            assert "y quit" in d.screen()["footer"] and "d draw" not in d.screen()["footer"]
            await d.press("d")  # not offered: nothing
            assert d.session.view.phase is Phase.DRAW and d.state.quit_asked
            await d.press("n")
            assert not d.state.quit_asked
            await d.press("d", "a")
            assert d.state.options
            keys = [k for k, _ in footer(d)]
            assert keys == [f"1-{len(d.state.options)}", "Esc"]
            await d.press("esc")
            assert d.state.options is None
            await d.press("a", "1")
            assert d.session.view.down[0]
            await d.press("q", "y")

    run(body)
