"""Issue 41, items 5 and 6, by keys through a pipe input: ``space`` selects the card under the
cursor and leaves the cursor there (it stepped right, which the help did not say, and a → after
it skipped a card: "9♠ 9♦ J♠ Q♦ is no meld"); a ``d`` while another seat's MAY I waits on the
discard settles that claim first and, in davis, leaves the turn to choose again: the message
says so on the spot (it only said the claim)."""

from __future__ import annotations

from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.engine import Phase

from console_harness import davis_session, run, running


def test_space_selects_in_place_and_the_help_says_so():
    async def body():
        async with running(davis_session()) as d:
            await d.press("d", "home")
            hand = d.state.hand()
            await d.press(" ", "right", " ", "right", " ")  # three neighbours
            assert d.state.selected == hand[:3] and d.state.cursor == 2
            await d.press(" ")
            assert d.state.selected == hand[:2] and d.state.cursor == 2
            await d.press("?")
            help = " ".join(fragment_list_to_text(d.console.screen.help_text()).split())
            assert "space select / unselect the card under the cursor (it stays)" in help

    run(body)


def test_a_draw_under_a_may_i_says_the_claim_went_first_and_the_turn_goes_on():
    async def body():
        async with running(davis_session()) as d:
            for _ in range(300):  # play on until a bot's MAY I waits when seat 0 draws
                view = d.session.view
                assert d.state.summary is None and view.phase is not Phase.OVER, "no MAY I came"
                if view.may_claim:
                    await d.press("p")
                elif view.my_turn and view.phase is Phase.DRAW:
                    claimed = bool(view.claimants)
                    await d.press("d")
                    if claimed:
                        break
                elif view.my_turn:
                    await d.press("home", "x")
            view = d.session.view
            assert view.my_turn and view.phase is Phase.DRAW  # the turn is to choose again
            message = " ".join(d.screen()["message"].split())
            assert "claims" in message and "your d let the MAY I go first" in message, message
            assert f"the card it uncovered, {d.screen()['piles'].split('Discard ')[1].split()[0]}," \
                   " is yours to take (t), or draw (d)" in message, message

    run(body)


def test_a_lists_distinct_arrangements_not_near_twins():
    """Issue 41, item 9: ``a`` listed nine arrangements that differed by a card kept back
    (7♥ 7♠ 7♦ 7♣ / 9♣ 9♦ 9♥ 9♠, then the same less 7♣, less 7♦ ...): now each it lists melds
    some face no other listed one does, the most cards melded first."""
    from collections import Counter

    async def body():
        async with running(davis_session()) as d:
            await d.press("d", "a")
            options = d.state.options
            assert options and len(options) < 9, options

            def faces(option):
                return sorted(Counter(card.face for card in meld) for meld in option)

            for i, one in enumerate(options):
                for other in options[i + 1:]:
                    assert faces(one) != faces(other)
            sizes = [sum(map(len, option)) for option in options]
            assert sizes == sorted(sizes, reverse=True)
            assert sizes[0] == 8  # both books whole: 7♥ 7♠ 7♦ 7♣ / 9♣ 9♦ 9♥ 9♠
            await d.press("esc", "q", "y")

    run(body)
