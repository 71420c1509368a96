"""Issue 24, what was left of the newcomer's evening, mostly by keys on a console (pipe input,
DummyOutput): a game whose every round was voided names no winner; the hint names the meld and
the copy it means; the status line shows a dropped link beside the whole last message; the
players' wishes: the score sheet (S), the whole log (L), the rules card (R), and a claim window
counting down under them."""

from __future__ import annotations

import re

from prompt_toolkit.formatted_text import fragment_list_to_text

from console_harness import run
from test_console_net import a_started_table, lobby_state, welcome, with_console


def test_a_game_whose_only_round_was_voided_names_no_winner():
    """A vote voided round 1: the game-over box said "Game over: you and 1 bot1 and 2 bot2
    win" (the player who left a co-winner); no round was scored, so nobody wins."""
    async def body(c):
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        table.events.extend(table.game.void_round(False))
        table.finished = True
        await c.on_trio(lambda: c.peer.changed(status="over"))
        await c.until(lambda: c.state.game_over)
        box = fragment_list_to_text(c.console.screen.game_over_text())
        assert box.startswith(" Game over: no round was scored, so nobody wins "), box
        assert " win" not in box.replace("nobody wins", "")
        await c.press("q")

    run(with_console, body)


def test_the_command_line_names_no_winner_of_a_game_with_no_round_scored():
    """What `host` and `play` print at the end: "game over: ann 0, bot1 0, bot2 0" read as
    a three-way tie for a game whose only round was voided."""
    from shanghai_net.cli.spectate import game_over
    from shanghai_net.engine import GameResult, RoundResult

    names = ["ann", "bot1", "bot2"]
    assert game_over(names, GameResult((0, 0, 0), (0, 1, 2), (0, 1, 2), ())) == \
        "game over: no round was scored, so nobody won"
    scored = GameResult((5, 0, 9), (1, 0, 2), (1,), (RoundResult(1, 1, ((), (), ()), (5, 0, 9),
                                                                 (5, 0, 9)),))
    assert game_over(names, scored) == "game over: bot1 0, ann 5, bot2 9"


# seat 0 (you) holds a K♠ and takes the other K♠ from the pile; it goes down with two books and
# lays the 7♣ off on its sevens
KINGS_HANDS = [
    "7H 7S 7D 9C 9D 9H 7C 4S 5D KS 3C",
    "2C 3D 4H 6S 8C TD QS KH 3C 5S 8D",
    "2D 4C 6H 8S TC QD JD 3H 5C 6D TS",
]


def test_the_hint_names_the_meld_and_which_of_two_like_cards_it_means():
    """With two K♠ in hand, one just taken, the hint said "discard K♠" and x on the taken one
    was refused; a lay-off hint said "on meld 1" and a SHANGHAI hint named no meld at all."""
    from console_harness import StackedDealer, deal_for, running
    from shanghai_net.engine import Discarded
    from shanghai_net.rules import preset
    from shanghai_net.session import LocalSession

    dealer = StackedDealer(deal_for(KINGS_HANDS, "KS", "9S 4D 6C"), first_dealer=2, seed=3)
    session = LocalSession(preset("davis"), ["basic", "basic"], 3, bot_delay=0.0,
                           claim_timeout=5.0, dealer=dealer)

    async def body():
        async with running(session) as d:
            await d.press("t")
            await d.select("7H", "7S", "7D")
            await d.press("g")
            await d.select("9C", "9D", "9H")
            await d.press("g")
            assert d.session.view.down[0]
            await d.cursor_on("7C")
            await d.press("h")
            assert d.state.message == ("hint: lay off 7♣ on your book of 7s (meld 1): 5 points "
                                       "out of your hand"), d.state.message
            await d.press("l")
            await d.press("h")
            assert d.state.message == ("hint: discard K♠ (not the one just taken): the most "
                                       "points you could be caught with (10)"), d.state.message
            kings = [i for i, c in enumerate(d.state.hand()) if str(c) == "KS"]
            marks = d.screen()["hand"].splitlines()[1]
            taken = next(i for i in kings if marks[1 + 4 * i:4 + 4 * i] == "new")
            held = next(i for i in kings if i != taken)
            card = d.state.hand()[held]
            await d.press("home", *["right"] * held, "x")  # the one the hint means goes
            assert not d.state.error, d.state.message
            assert [e.event.card for e in d.session.log
                    if isinstance(e.event, Discarded) and e.event.seat == 0] == [card]

    run(body)


def test_a_shanghai_hint_names_the_meld_the_call_needs():
    """The `!` key takes the meld's number: the hint gives it, with whose meld it is."""
    import random

    from scenario import contract_rules, draw, play, stacked_game
    from shanghai_net.bots import ExpertBot
    from shanghai_net.engine import CallShanghai, view_of
    from shanghai_net.engine.events import Words

    game = stacked_game(contract_rules("davis", "1s1r,1s1r"),
                        ["9H 9S 9D 5S 6S 7S 8S QC", "4S KD", "JD 9C", "2S 3S AD"], up="KC")
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "discard QC")
    draw(game)
    play(game, 1, "discard 4S")
    bot = ExpertBot(random.Random(0))
    bot.follow(game.log)
    words = Words(("ann", "bob", "cy", "you"), lambda card: card.text(unicode=True))
    decision = bot.decide(view_of(game, 3), list(game.legal_moves(3)), words)
    assert isinstance(decision.move, CallShanghai) and decision.move.meld == 1
    assert decision.reason == ("SHANGHAI: 4♠ plays on ann's run 5♠-8♠ (meld 2), and its "
                               "discarder draws from your hand")


def test_a_card_left_on_the_pile_is_not_said_to_help_nothing_when_it_pairs_one_held():
    """The hint said "draw: A♠ helps nothing you hold" while the hand held A♥."""
    import random

    from scenario import stacked_game
    from shanghai_net.bots import ExpertBot
    from shanghai_net.engine import DrawStock, view_of
    from shanghai_net.engine.events import Words

    game = stacked_game("davis", ["7H 7S 9C 9D AH", "", "", ""], up="AS")
    bot = ExpertBot(random.Random(0))
    bot.follow(game.log)
    words = Words(("you", "bob", "cy", "di"), lambda card: card.text(unicode=True))
    decision = bot.decide(view_of(game, 0), list(game.legal_moves(0)), words)
    assert isinstance(decision.move, DrawStock)
    assert decision.reason == ("draw: A♠ pairs A♥, but is not worth taking: it brings your "
                               "contract no closer")


def test_the_status_line_shows_a_dropped_link_and_the_whole_last_message():
    """A dropped link's line and the last message ran together on one line, and a message of
    two lines lost its end under it; now "connection lost, ... · the message", broken between
    words, each whole."""
    from console_harness import grid_text

    async def body(c):
        start, table = a_started_table()
        table.legal_moves = lambda: list(table.game.legal_moves(0))
        table.can_move = lambda: True
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        c.state.note("meld 1 of 2 picked: select the next and press g (u takes the last back, "
                     "Esc clears) and so on to THE END")
        await c.on_trio(lambda: c.peer.changed(status="reconnecting", detail="connection lost "
                                               "(the host went silent); retrying in 8 s "
                                               "(attempt 2 of 10)"))
        screen = " ".join(grid_text(c.console).split())
        assert "connection lost, retrying in 8 s (attempt 2 of 10) · meld 1 of 2 picked: " \
            "select the next and press g (u takes the last back, Esc clears) and so on to THE " \
            "END" in screen, screen
        await c.press("h")  # a key's answer replaces the message, the link's line stays
        await c.until(lambda: c.state.message.startswith("hint: "))
        screen = " ".join(grid_text(c.console).split())
        assert f"connection lost, retrying in 8 s (attempt 2 of 10) · {c.state.message}" in screen
        await c.on_trio(lambda: c.peer.changed(status="playing", detail=""))
        assert c.screen()["message"] == " " + c.state.message
        await c.press("q", "y")

    run(with_console, body)



def test_s_shows_the_score_sheet_round_by_round_and_l_the_whole_log_a_page_at_a_time():
    """Players asked for a running score sheet and a log they can scroll, on a key, not only
    between rounds: S and L open them over the table, the same key or Esc closes them."""
    from console_harness import davis_session, grid_text, running
    from test_console_app import _play_on

    async def body():
        async with running(davis_session()) as d:
            await _play_on(d)
            result = d.state.summary
            await d.press("enter")
            assert d.session.view.round_no == 2
            await d.press("S")
            text = grid_text(d.console)
            assert "Score sheet · lowest total wins" in text
            # each name whole (issue 41: "0 dan f"), a column as wide as the longest
            assert re.search(r"round +0 you +1 basic bot +2 basic bot", text), text
            cells = "".join(f"{str(p) + ('*' if s == result.winner else ' '):>12}"
                            for s, p in enumerate(result.points))
            assert f" 1{'':10}{cells}" in text, text
            assert " 2 playing" in text and "* went out" in text
            assert f"total{'':7}" + "".join(f"{str(t) + ' ':>12}" for t in result.totals) in text
            await d.press("S")
            assert d.state.panel is None and "Score sheet" not in grid_text(d.console)

            def page():
                text = fragment_list_to_text(d.console.screen.panel_text())
                first, last, total = map(int, re.search(r"lines (\d+)-(\d+) of (\d+)",
                                                        text).groups())
                return text, first, last, total

            await d.press("L")  # the newest page, its last line the log panel's
            text, first, last, total = page()
            assert text.startswith(" Game log ") and last == total > 17, text
            newest = " ".join(d.screen()["log"].split()[-4:])
            assert newest in " ".join(text.split())
            assert "round 1: basic bot deals; contract: two books" not in text
            rows = last - first + 1
            await d.press("home")
            text, first, _, _ = page()
            assert first == 1 and "round 1: basic bot deals; contract: two books" in text
            await d.press("pagedown", "down")
            assert page()[1] == min(1 + (rows - 1) + 1, total - rows + 1)
            await d.press("pageup", "up")
            assert page()[1] == 1
            await d.press("end")
            assert page()[2] == total
            await d.press("esc")
            assert d.state.panel is None

    run(body)


def test_r_shows_the_table_s_rules_in_plain_words_in_the_lobby_and_at_the_table():
    """A rules card on a key, from the table's own RuleSet (house rules included): what
    SHANGHAI does, where an ace goes, what may not be discarded."""
    from console_harness import davis_session, running

    def shown(d):
        return " ".join(fragment_list_to_text(d.console.screen.panel_text()).split())

    async def body():
        async with running(davis_session(claim_timeout=6.0)) as d:
            await d.press("R")
            flat = shown(d)
            assert flat.startswith("The rules of davis Davis family rules: MAY I twice a round"), flat
            assert "an ace is high only (Q-K-A, not A-2-3)" in flat
            assert "a card taken from the pile may not go back on it in the same turn" in flat
            assert "lines 1-17 of " in flat and "R or Esc closes" in flat
            await d.press("pagedown")
            flat = shown(d)
            assert "a claim window waits 6 s for those who say nothing" in flat
            assert "SHANGHAI: discard a card that plays on a meld declaring SHANGHAI (X)" in flat
            assert "the lowest total wins" in flat
            await d.press("R")
            assert d.state.panel is None
    run(body)

    async def lobby(c):
        await c.on_trio(lambda: c.peer.changed(
            status="lobby", seat=0, welcome=welcome(),
            lobby=lobby_state(house_rules={"contracts": [[2, 0]], "shanghai": False})))
        await c.press("R")
        await c.until(lambda: c.state.panel is not None)
        title, lines = c.state.panel_lines(72)
        flat = " ".join(" ".join(lines).split())
        assert title == "The rules of davis" and "the rounds: 1: two books" in flat
        assert "SHANGHAI" not in flat  # the house rule took it out
        await c.press("esc")
        await c.until(lambda: c.state.panel is None)
        await c.press("q", "y")

    run(with_console, lobby)


def test_a_claim_window_under_a_panel_counts_down_there_and_is_answered_there():
    """The claim timer is seen counting under the sheet, the log or the rules as on the table,
    and m / p answer it without closing what is being read."""
    from console_harness import davis_session, grid_text, running
    from shanghai_net.engine import Phase

    async def body():
        async with running(davis_session(claim_timeout=5.0)) as d:
            for _ in range(40):
                if d.session.view.may_claim:
                    break
                await d.press("d" if d.session.view.phase is Phase.DRAW else "x")
            assert d.state.may_claim
            await d.press("L")
            assert re.search(r"MAY I \S+\? m / p · 5s", grid_text(d.console))
            await d.jump(2.2)
            assert re.search(r"MAY I \S+\? m / p · 3s", grid_text(d.console))
            claims = len([e for e in d.session.log if e.text.startswith("seat 0 claims")])
            await d.press("m")
            assert len([e for e in d.session.log if e.text.startswith("seat 0 claims")]) == \
                claims + 1
            assert d.state.panel is not None

    run(body)
