"""Progress on long work: a bar on the terminal (prompt_toolkit's), nothing anywhere else."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

__all__ = ["progress"]


@contextlib.contextmanager
def progress(total: int, label: str, *, shown: bool | None = None, input=None,
             output=None) -> Iterator[Callable[[], None]]:
    """A progress bar of ``total`` steps while the block runs; it yields the function to call
    after each step.  ``shown``: draw it (default: when stdin and stdout are a terminal; a
    command whose output is read by a program passes False); ``input``, ``output``:
    prompt_toolkit's (tests)."""
    if shown is None:
        shown = sys.stdin.isatty() and sys.stdout.isatty()
    if not shown:
        yield lambda: None
        return
    from prompt_toolkit.shortcuts import ProgressBar

    with ProgressBar(input=input, output=output) as bar:
        counter = bar(label=label, total=total)
        yield counter.item_completed
