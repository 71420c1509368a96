"""What the kit tries a client on: the rules of its games, the frames it puts before the
client, the situations of each game with the protocol.md section each covers, and an
`Outcome`, one printed line per situation."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ..wire.framing import DEFAULT_MAX_FRAME, encode_frame

__all__ = ["KIT_RULES", "SEAT_RULES", "SEAT_SITUATIONS", "REMATCH_SITUATIONS", "SCRIPTED",
           "BOX_KEY_SITUATIONS", "SHARING_SITUATIONS", "LOST_SITUATIONS", "Outcome"]


KIT_RULES: dict[str, Any] = {
    "contracts": [[1, 0]] * 5,
    "final_round_meld_all": False,
    "last_round_hand_size": 25,
    "max_turns": 30,
}
"""Davis with five one-book rounds: our peers go down at once, so SHANGHAI calls on the
client's discards come early; the last round deals 25 cards to each of four seats, leaving 7 in
the stock, and (our peers claiming nothing then) the pile grows until the stock is reshuffled.
``max_turns`` keeps every round short."""

PLAYERS = 4
BAD_FRAMES: tuple[tuple[str, bytes], ...] = (
    ("malformed_frame", encode_frame([1, 2, 3])),
    ("unknown_message", encode_frame({"type": "teleport"})),
    ("bad_message", encode_frame({"type": "ping", "nonce": "twelve"})),
)
"""Frames the relay puts before the client in round 1, and the error code it must answer each
with (protocol.md 9: not fatal, the client answers and reads on)."""
TOO_LARGE = struct.pack(">I", DEFAULT_MAX_FRAME + 1)
"""A length prefix over the 1 MiB cap: fatal, the client closes (protocol.md 2)."""


SEAT_RULES: dict[str, Any] = {
    "contracts": [[1, 0]] * 2,
    "final_round_meld_all": False,
    "max_turns": 16,
}
"""The games in which a seat changes hands (protocol.md 11.8): two one-book rounds, the second
voided when a kit peer leaves in it (`LEAVE_IN`) and dealt again, with the new holder in the
seat."""
LEAVE_IN = 2
"""The round in which a kit peer leaves for good, in the games where a seat changes hands."""
REPLACED_PLAYERS = 5
"""The client and four kit peers: when one leaves, the other three are a majority without the
client (a vote is the client's right, not its duty)."""

SEAT_SITUATIONS = (
    ("11.5", "a neighbour voted gone: the round is void and the client plays on"),
    ("11.8", "approve: the client approves the host's replace of the vacant seat"),
    ("11.8", "the replacement's keys from the next deal: its messages checked, the client's key "
             "shares sealed to its box key"),
    ("11.8", "handed a seat: hello, proof, then it follows the game and signs nothing"),
    ("11.8", "plays the seat it was handed from the deal its keys take it (its commit) to the "
             "game's end"),
    ("11.9", "a kit seat handed over mid-round: the successor's key checked from the next "
             "message, its box key sealed to from the next deal"),
)
"""The situations of the two games where a seat changes hands: (protocol.md section, what the
client must do)."""

BOX_KEY_SITUATIONS = (
    ("6.2", "start_game giving two seats one box key: the client signs nothing of that game "
            "and leaves"),
    ("11.8", "a replace the host sequenced with another seat's box key: the client approves "
             "nothing and stops playing with that host"),
)
"""One box key, one seat (protocol.md 6.2, 11.8): the host breaks it, at a table of its own
each (`box_keys`)."""

SHARING_PLAYERS = 5
SHARE_THRESHOLD = 3
"""The tables that share seeds (docs/dealing.md): five holders, any three of which rebuild a
seat; a seat silent at its seeds has four other holders, so a wrong share may come after
three good ones."""
SHARING_SITUATIONS = (
    ("11.10", "a seed share dealt to the client that does not open: it complains, naming the "
              "dealer's share, and sends no pass of that generation"),
    ("11.10", "a wrong share in seeds, of a seat silent at its seeds: the client takes the "
              "verdict (its author cheated) and plays no more"),
    ("11.10", "a seat silent at its seeds rebuilt off its commitment: the client takes the "
              "verdict (the seat cheated) and plays no more"),
)
"""Version 10's seed sharing, a kit seat cheating at it (`sharing`), at a table of its own each."""

LOST_SITUATIONS = (
    ("11.10", "a share_reveal off its commitments, of a seat lost mid-round (R1): the client "
              "takes the verdict (its author cheated) and plays no more"),
    ("11.10", "a key share the host keeps past the approvals of a lost seat's stand-in (R1): "
              "the client hands the stand-in its box only once the seating waited for it"),
)
"""R1, a seat lost mid-round (`lost`): a kit seat cheating at its rebuild, and a host keeping a
key share to it past its stand-in's approvals; at a table of its own each."""

REMATCH_PLAYERS = 3
"""The client, a kit bot (it asks for a rematch at once) and a kit person (it asks once the
client has: the rematch is the client's own choice, not the kit's)."""
REMATCH_SITUATIONS = (
    ("6.6", "rematch: asks for one once the game is over at a table that stays"),
    ("6.6", "the next game: joins the table `next_game` names with the same key (a fresh "
            "nonce), sits at its seat again and plays it to its end"),
)
"""The situations of the game at a table that stays (protocol.md 6.6)."""

SCRIPTED = tuple(("9", f"{code}: answered with error {code}") for code, _ in BAD_FRAMES) + (
    ("2", "frame_too_large: the client closes the connection"),
    ("11.5", "rejoin after it closed on a fatal frame: hello, proof, play on"),
    ("11.5", "rejoin after the host cut it: hello, proof, play on"))
"""The situations the relay scripts, in order: (protocol.md section, what the client must do)."""


@dataclass
class Outcome:
    section: str
    situation: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        return f"{verdict}  {self.section:<7} {self.situation}" + (f": {self.detail}" if self.detail else "")
