"""What the commands' options accept, checked as they are read: each argparse ``type`` here
refuses a value that cannot work with a line naming the range it takes, and `Parser` says any
refusal in one line (no usage block), exit status 2."""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

__all__ = ["Parser", "count", "name", "port", "seconds", "text"]


class Parser(argparse.ArgumentParser):
    """An argument parser whose error is one line: what was wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def port(value: str) -> int:
    """A TCP port: 0 (any free one) to 65535."""
    number = _number(int, value, "a port")
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is no port: 0 to 65535 (0: any free one)")
    return number


def count(least: int):
    """A whole number, at least ``least``."""

    def parse(value: str) -> int:
        number = _number(int, value, "a whole number")
        if number < least:
            raise argparse.ArgumentTypeError(f"{value} is too few: give {least} or more")
        return number

    parse.__name__ = "count"  # argparse names the type in its message for a ValueError
    return parse


def seconds(zero: bool = False):
    """A number of seconds above 0 (or 0 too, with ``zero``)."""

    def parse(value: str) -> float:
        number = _number(float, value, "a number of seconds")
        if not math.isfinite(number) or not (number >= 0 if zero else number > 0):
            raise argparse.ArgumentTypeError(
                f"{value} is no time: give seconds {'from 0' if zero else 'above 0'}")
        return number

    parse.__name__ = "seconds"
    return parse


def text(most: int, what: str, least: int = 0):
    """A string of ``least`` to ``most`` characters (the wire's limit for ``what``)."""

    def parse(value: str) -> str:
        if not least <= len(value) <= most:
            raise argparse.ArgumentTypeError(
                f"{len(value)} characters: {what} is {least} to {most}")
        return value

    parse.__name__ = "text"
    return parse


name = text(32, "a name at the table", least=1)
"""A player's or bot's name: 1 to 32 characters (a `hello`'s name)."""


def _number(kind, value: str, what: str):
    try:
        return kind(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not {what}") from None
