"""The console application: prompt_toolkit on asyncio with trio running as its guest.

prompt_toolkit owns the asyncio loop; trio runs in guest mode on the same thread
(`trio.lowlevel.start_guest_run`).  The session lives on the trio side; key handlers hand moves to
it with `TrioToken.run_sync_soon`, and the trio side calls ``app.invalidate()`` after every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence

import outcome
import trio
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..rules import RuleSet, preset as preset_named
from ..session import LocalSession, Session
from .keys import create_key_bindings
from .layout import STYLE, create_layout
from .state import ConsoleState

__all__ = ["ConsoleApp", "run_console", "run_console_async", "play_local"]


class _Application(Application):
    main_window = None
    chat_window = None
    chat_buffer: Buffer


class ConsoleApp:
    """One console on one session: the state, the prompt_toolkit app, the trio guest.

    ``clock``: a trio clock for the guest run (tests pass ``trio.testing.MockClock``).
    ``tick``: seconds between redraws while a claim window counts down.
    ``auto_pass``: claim windows that cannot help the hand pass by themselves (`ConsoleState`).
    ``services``: other work of the same trio run, each started (``nursery.start(service)``)
    before the session runs, in order: a table hosted here and its bots.
    ``hosting``: the table hosted here (its ``people_at_stake()``, the people whose game ends
    with this program, and ``done``, every table closed): ``q`` names them before it quits,
    and a console that only watches closes by itself once the tables are done.
    """

    def __init__(self, session: Session, ascii: bool = False, *, input: Input | None = None,
                 output: Output | None = None, clock: trio.abc.Clock | None = None, tick: float = 0.25,
                 services: Sequence[Callable[..., Awaitable]] = (), auto_pass: bool = True,
                 hosting=None):
        self.session = session
        self.services = tuple(services)
        self.hosting = hosting
        self.state = ConsoleState(session, ascii, auto_pass)
        if hosting is not None:
            self.state.people_at_stake = hosting.people_at_stake
        self.clock = clock
        self.tick = tick
        state = self.state

        def send_chat(text: str) -> None:
            self._to_trio(self._chat, text)

        chat_buffer = Buffer(multiline=False, accept_handler=self._accept_chat)
        layout, self.screen = create_layout(state, chat_buffer)
        self.app = _Application(
            layout=layout, style=STYLE, key_bindings=create_key_bindings(state), full_screen=True,
            input=input, output=output, mouse_support=False,
        )
        self.app.chat_buffer = chat_buffer
        self.app.main_window = layout.current_window
        self.app.chat_window = next(w for w in layout.find_all_windows()
                                    if getattr(w.content, "buffer", None) is chat_buffer)
        self.app.ttimeoutlen = 0.05  # a lone Esc acts at once
        state.send = lambda move: self._to_trio(self._submit, move)
        state.send_chat = send_chat
        state.send_ready = lambda: self._to_trio(self._ready)
        state.send_vote = lambda: self._to_trio(self._vote)
        state.send_wait = lambda: self._to_trio(self._wait_for_them)
        state.send_lobby_ready = lambda ready: self._to_trio(self._set_ready, ready)
        state.send_hand_over = lambda offer: self._to_trio(self._hand_over, offer)
        state.send_bot = lambda level: self._to_trio(self._let_bot_finish, level)
        state.send_rematch = lambda: self._to_trio(self._rematch)
        self._token: trio.lowlevel.TrioToken | None = None
        self._cancel: trio.CancelScope | None = None
        self._trio_done: asyncio.Future | None = None
        self.error: BaseException | None = None
        self._sat = self._ran = False
        """The session has shown a game (a rematch's lobby after it is no failure); its run
        has returned."""

    # -- prompt_toolkit side ---------------------------------------------------------------------

    def _accept_chat(self, buffer: Buffer) -> bool:
        self.state.send_chat_line(buffer.text)
        self.app.layout.focus(self.app.main_window)
        return False  # the buffer resets

    def _to_trio(self, fn, *args) -> None:
        if self._token is not None:
            self._token.run_sync_soon(self._spawn, fn, *args)

    def _spawn(self, fn, *args) -> None:  # on trio
        if self._nursery is not None:
            self._nursery.start_soon(fn, *args)

    async def run_async(self) -> int:
        """Run until the player quits; the exit code (0) or the trio side's error re-raised."""
        loop = asyncio.get_running_loop()
        self._trio_done = loop.create_future()
        self._nursery = None
        started = loop.create_future()

        def done(result: outcome.Outcome) -> None:
            if not self._trio_done.done():
                self._trio_done.set_result(result)
            if isinstance(result, outcome.Error):
                self.error = result.error
                if not started.done():
                    started.set_exception(result.error)
                elif self.app.is_running:
                    self.app.exit(exception=result.error)

        trio.lowlevel.start_guest_run(
            self._trio_main, started, loop,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done,
            host_uses_signal_set_wakeup_fd=True,
            clock=self.clock,
        )
        try:
            await started
            with self._quit_on_sigterm(loop):
                code = await self.app.run_async()
            if self.state.exit_requested:
                await self._leave()
        finally:
            if self._token is not None and not self._trio_done.done():
                try:
                    self._token.run_sync_soon(self._cancel.cancel)
                except trio.RunFinishedError:
                    pass
            result = await self._trio_done
        if isinstance(result, outcome.Error) and not isinstance(result.error, trio.Cancelled):
            raise result.error
        return 0 if code is None else code

    @contextlib.contextmanager
    def _quit_on_sigterm(self, loop: asyncio.AbstractEventLoop):
        """SIGTERM gives the terminal back (not left drawn over) and closes the connection
        without ``bye``: the system ended the process, the player did not decide to leave, so
        the table sees the seat lost and it may rejoin (issue 42).  Only ``q`` ``y`` says bye.
        Only where the loop can take signals."""

        def quit() -> None:
            if self.app.is_running:
                self.app.exit(result=128 + signal.SIGTERM)
        try:
            loop.add_signal_handler(signal.SIGTERM, quit)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            yield
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    async def _leave(self) -> None:
        """The player quit: let the session say goodbye on the trio side (bounded)."""
        if self._trio_done is None or self._trio_done.done():
            return
        left = asyncio.get_running_loop().create_future()

        async def leave() -> None:
            try:
                await self.session.leave()
            finally:
                if not left.done():
                    left.set_result(None)

        self._to_trio(leave)
        try:
            await asyncio.wait_for(asyncio.shield(left), 3)
        except asyncio.TimeoutError:
            pass  # the table will see a lost link instead

        # -- trio side -------------------------------------------------------------------------------

    async def _trio_main(self, started: asyncio.Future, loop) -> None:
        self._token = trio.lowlevel.current_trio_token()
        state, app = self.state, self.app

        def changed() -> None:
            self._sat |= self.session.view is not None
            state.on_session_change()
            app.invalidate()

        async with trio.open_nursery() as nursery:
            self._cancel = nursery.cancel_scope
            self._nursery = nursery
            unsubscribe = self.session.subscribe(changed)
            try:
                for service in self.services:
                    await nursery.start(service)
                await nursery.start(self._session)
                changed()
                if not started.done():
                    started.set_result(None)
                nursery.start_soon(self._ticker)
                await trio.sleep_forever()
            finally:
                unsubscribe()

    async def _session(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Run the session; one that ends before it ever sat at a game (a table that cannot be
        reached, a refusal) leaves nothing to look at: the console closes, exit status 1, and
        the command says why."""
        await self.session.run(task_status=task_status)
        self._ran = True
        if self.session.view is None and not self._sat:
            if self.app.is_running:
                self.app.exit(result=1)
            else:  # it failed before the screen was up
                self.app.pre_run_callables.append(lambda: self.app.exit(result=1))

    async def _ticker(self) -> None:
        """Redraw while a claim window or the vote for this person counts down; close a console without a seat once its
        session is over and the tables hosted here are done (nothing left to show or serve)."""
        while True:
            await trio.sleep(self.tick)
            if self.session.claim is not None or self.session.vote_for_you is not None:
                self.app.invalidate()
            hosting = self.hosting
            unseated = self.session.view is None or self.session.seat == -1
            if hosting is not None and hosting.done and self._ran and unseated \
                    and self.app.is_running:
                self.app.exit(result=0)

    async def _submit(self, move) -> None:
        result = await self.session.submit(move)
        self.state.on_outcome(result)
        self.app.invalidate()

    async def _chat(self, text: str) -> None:
        await self.session.say(text)
        self.app.invalidate()

    async def _vote(self) -> None:
        self.state.voted(await self.session.vote_void())
        self.app.invalidate()

    async def _wait_for_them(self) -> None:
        self.state.note(await self.session.wait_for_them())
        self.app.invalidate()

    async def _ready(self) -> None:
        await self.session.ready()
        self.app.invalidate()

    async def _hand_over(self, offer) -> None:
        self.state.handed(await self.session.hand_over(offer))
        self.app.invalidate()

    async def _let_bot_finish(self, level: str | None) -> None:
        self.state.handed(await self.session.let_bot_finish(level))
        self.app.invalidate()

    async def _rematch(self) -> None:
        self.state.note(await self.session.ask_rematch())
        self.app.invalidate()

    async def _set_ready(self, ready: bool) -> None:
        await self.session.set_ready(ready)
        self.app.invalidate()


async def run_console_async(session: Session, ascii: bool = False, **kw) -> int:
    return await ConsoleApp(session, ascii, **kw).run_async()


def run_console(session: Session, ascii: bool = False, **kw) -> int:
    """Play ``session`` in the terminal until the player quits; returns the exit code."""
    return asyncio.run(run_console_async(session, ascii, **kw))


def play_local(preset: str | RuleSet = "davis", bots: int | Sequence[str] = 3, seed: int | None = None,
               ascii: bool = False, *, bot_delay: float = 0.6, claim_timeout: float = 8.0) -> int:
    """``shanghai play``: you against ``bots`` basic bots (or the levels named) in one call.

    Returns the exit code: 0 when the player quits, 2 for a bad preset or table size.
    """
    try:
        rules = preset if isinstance(preset, RuleSet) else preset_named(preset)
        levels = ["basic"] * bots if isinstance(bots, int) else list(bots)
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        session = LocalSession(rules, levels, seed, bot_delay=bot_delay, claim_timeout=claim_timeout)
        if not rules.min_players <= session.players <= rules.max_players:
            raise ValueError(f"{rules.name} is for {rules.min_players}-{rules.max_players} players, not {session.players}")
    except ValueError as exc:
        print(f"shanghai play: {exc}", file=sys.stderr)
        return 2
    return run_console(session, ascii)

