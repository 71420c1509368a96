"""The connection state machine: every rule about which message may be sent when lives here.

Like h11, each side of a connection has its own state, moved by the messages it sends (the
event-triggered table) and by the other side's state (the state-triggered table).  Keeping one
state per direction lets messages cross in flight: a client's Ready may still be on its way when
the host's StartGame leaves.  The tables are keyed by wire ``type`` strings so that
docs/protocol.md and protocol/state_machine.json can show them as they are.
"""

from __future__ import annotations

from enum import Enum

from .errors import LocalProtocolError

__all__ = [
    "Role", "State", "CLIENT", "HOST", "EVENT_TRIGGERED", "STATE_TRIGGERED",
    "SPECTATOR_FORBIDDEN", "ConnectionState",
]


class Role(Enum):
    CLIENT = "client"
    HOST = "host"

    @property
    def other(self) -> Role:
        return HOST if self is CLIENT else CLIENT


CLIENT = Role.CLIENT
HOST = Role.HOST


class State(Enum):
    HELLO = "hello"        # client: owes a Hello; host: waits for it
    ANSWER = "answer"      # host: owes Welcome or Refused; client: waits for it
    LOBBY = "lobby"
    GAME = "game"
    CLOSED = "closed"      # this side sent Bye or Refused, or its stream ended
    ERROR = "error"        # this side broke the framing beyond repair


HELLO, ANSWER, LOBBY, GAME, CLOSED, ERROR = State

_ALWAYS = {"ping": None, "pong": None, "error": None, "chat": None, "bye": CLOSED}
"""Allowed in LOBBY and GAME for both sides; None means the state stays."""


def _stay(state: State, *types: str) -> dict[str, State]:
    table = {t: state for t in types}
    table.update({t: state if new is None else new for t, new in _ALWAYS.items()})
    return table


EVENT_TRIGGERED: dict[Role, dict[State, dict[str, State]]] = {
    CLIENT: {
        HELLO: {"hello": ANSWER},
        ANSWER: {},
        LOBBY: _stay(LOBBY, "ready", "proof"),
        GAME: _stay(GAME, "game", "rematch"),
        CLOSED: {},
        ERROR: {},
    },
    HOST: {
        HELLO: {"refused": CLOSED},
        ANSWER: {"welcome": LOBBY, "refused": CLOSED},
        LOBBY: {**_stay(LOBBY, "lobby_state"), "start_game": GAME, "refused": CLOSED},
        GAME: _stay(GAME, "lobby_state", "game", "placed", "start_game", "owed", "next_game"),
        CLOSED: {},
        ERROR: {},
    },
}
"""(sender, sender's state) -> message type -> sender's next state."""

STATE_TRIGGERED: dict[tuple[State, State], dict[Role, State]] = {
    (ANSWER, HELLO): {HOST: ANSWER},
    (ANSWER, LOBBY): {CLIENT: LOBBY},
    (ANSWER, CLOSED): {CLIENT: CLOSED},
    (LOBBY, GAME): {CLIENT: GAME},
}
"""(client state, host state) -> the states they move to at once."""

SPECTATOR_FORBIDDEN = frozenset({"ready", "game", "proof", "rematch"})
"""What a client whose Hello said role "spectator" may never send."""


class ConnectionState:
    """Both sides' states; raises ``LocalProtocolError("wrong_state")`` for a forbidden message."""

    def __init__(self) -> None:
        self.states = {CLIENT: HELLO, HOST: HELLO}
        self.spectator = False

    def process_message(self, sender: Role, msg_type: str) -> None:
        state = self.states[sender]
        if sender is CLIENT and self.spectator and msg_type in SPECTATOR_FORBIDDEN:
            raise LocalProtocolError("wrong_state", f"a spectator may not send {msg_type!r}")
        try:
            self.states[sender] = EVENT_TRIGGERED[sender][state][msg_type]
        except KeyError:
            raise LocalProtocolError(
                "wrong_state", f"{sender.value} may not send {msg_type!r} in state "
                f"{state.value}") from None
        self._settle()

    def process_closed(self, role: Role) -> None:
        """``role``'s stream ended."""
        if self.states[role] is not ERROR:
            self.states[role] = CLOSED
        self._settle()

    def process_error(self, role: Role) -> None:
        self.states[role] = ERROR

    def _settle(self) -> None:
        while changes := STATE_TRIGGERED.get((self.states[CLIENT], self.states[HOST])):
            self.states.update(changes)
