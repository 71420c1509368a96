"""The console client: a prompt_toolkit seat at the table (see `run_console` and `play_local`).

``state`` (what the console remembers, drawing nothing), ``viewmodel`` (what is shown, from a
PlayerView), ``sheets`` (the score sheet, the whole log and the rules card, as lines), ``keys``
(`create_key_bindings`), ``layout`` (the screen, built from the state) and ``app``
(prompt_toolkit with trio as its guest).
"""

from .app import ConsoleApp, play_local, run_console, run_console_async
from .keys import create_key_bindings
from .state import ConsoleState, Target
from .viewmodel import ViewModel, view_model

__all__ = [
    "ConsoleApp", "ConsoleState", "Target", "ViewModel", "create_key_bindings", "play_local",
    "run_console", "run_console_async", "view_model",
]
