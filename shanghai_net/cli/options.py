"""What the commands' options accept, checked as they are read: each argparse ``type`` here
refuses a value that cannot work with a line naming the range it takes, and `Parser` says any
refusal in one line (no usage block), exit status 2; the options several commands share
(a person's seat, the bots' level, a table to join) and the help that shows their defaults."""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

__all__ = ["Parser", "count", "name", "port", "seconds", "text", "sharing", "JOIN_CODE",
           "HelpWithDefaults", "seat_options", "level_option", "to_a_table"]


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


JOIN_CODE = text(16, "a join code")


def sharing(value: str) -> str | int:
    """A table's sharing setting: ``default``, ``off``, or a threshold T from 2 to 7 (one the
    table's holders cannot bear the lobby turns off, saying why)."""
    if value in ("default", "off"):
        return value
    number = _number(int, value, "default, off or a threshold")
    if not 2 <= number <= 7:
        raise argparse.ArgumentTypeError(f"{value} is no threshold: 2 to 7 (or default, or off)")
    return number


SHARING_HELP = (
    "the dropout-tolerant deal (docs/dealing.md): every seat's seed is shared among the seats "
    "your process does not run (the holders), so that T of them audit a seat silent at its "
    "seeds, a seat lost mid-round is rebuilt and its round goes on, and any T holders "
    "together could see every card.  default (the default): off up "
    "to 3 holders (a pair of 3 is two thirds of them); T = holders-1 at 4 and 5 (privacy "
    "drops by one colluder); T = holders-2 from 6 (a second silent holder is survived, T still "
    "two thirds); a T the holders cannot bear is off.  The lobby and the rules card show what "
    "it promises")
"""``--sharing``'s help: the default per table size, and why (docs/dealing.md's table)."""


class HelpWithDefaults(argparse.HelpFormatter):
    """Each option's line ends with its default, unless the line names it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help = action.help or ""
        unset = action.default is None or action.default is False or action.default in ([], "") \
            or action.default == argparse.SUPPRESS
        if "default" in help or unset or not action.option_strings:
            return help
        return f"{help} (default: %(default)s)"


def seat_options(parser: argparse.ArgumentParser) -> None:
    """The options of a person's seat: ``host``, ``join`` (and ``play`` in shanghai_net.cli)."""
    parser.add_argument("--name", type=name,
                        help="your name at the table (default: your login name)")
    parser.add_argument("--ascii", action="store_true",
                        help="letters instead of suit symbols and arrows")
    parser.add_argument("--no-auto-pass", action="store_true",
                        help="ask about every claim window (default: one that cannot help your "
                             "hand passes by itself; P toggles it in the game)")


def level_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--level``: the bots' level, one of `shanghai_net.bots.BOTS`."""
    from ..bots import BOTS, LEVELS

    parser.add_argument("--level", default="basic", choices=list(BOTS),
                        help=f"{what}: {', '.join(LEVELS)} (random: any legal move, a rules fuzzer)")


def to_a_table(parser: argparse.ArgumentParser) -> None:
    """``HOST[:PORT]`` and ``--join-code``: where a command that joins a table goes."""
    parser.add_argument("address", metavar="HOST[:PORT]",
                        help="the host's address (port 7777 unless given)")
    parser.add_argument("--join-code", type=JOIN_CODE, default="",
                        help="the code the host gave (default: none)")
