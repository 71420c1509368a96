"""Errors shared by the rules and the engine."""


class IllegalMoveError(ValueError):
    """A move, meld or lay-down that the rules refuse; the message quotes it and says why."""
