"""Issue 24, what was left of the newcomer's evening, mostly by keys on a console (pipe input,
DummyOutput): a game whose every round was voided names no winner; the hint names the meld and
the copy it means."""

from __future__ import annotations

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
    from shanghai_net.cli.net import game_over
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
