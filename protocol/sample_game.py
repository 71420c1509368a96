"""Write protocol/sample_game.bin: a short recorded game that `shanghai verify` accepts.

Run from the repository root: ``python protocol/sample_game.py``.  Everything is fixed (the public
test keys of protocol/vectors/signing.json, seeded deal randomness, seeded bots, an in-process
sequencer that takes the seats' messages in seat order), so running it again writes the same
bytes; tests/test_verify.py checks that it does.  See protocol/sample_game.md.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from shanghai_net.bots import make_bot
from shanghai_net.deal import seeded
from shanghai_net.engine import view_of
from shanghai_net.table.outbox import Outbox
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.public import PublicTable
from shanghai_net.wire import DealerPick, GameMessage, PlayerSeat, StartGame, encode_frame
from shanghai_net.wire.examples import GAME_ID, HOST_NONCE, NONCES, box_key, public_bytes, sign_key

PATH = Path(__file__).resolve().parent / "sample_game.bin"
NAMES = ("Ann", "Bob", "Cy")
RULES = {"contracts": [[2, 0]], "last_round_hand_size": 7, "final_round_meld_all": False}
"""One round (two books), seven cards each, and a discard to go out with."""


def start_game() -> StartGame:
    return StartGame(game_id=GAME_ID, host_nonce=HOST_NONCE, nonces=NONCES, preset="davis",
                     rules=RULES, claim_timeout=10.0, audit_timeout=60.0,
                     seats=tuple(PlayerSeat(seat=seat, name=name,
                                            sign_key=public_bytes(sign_key(seat)),
                                            box_key=public_bytes(box_key(seat)))
                                 for seat, name in enumerate(NAMES)),
                     first_dealer_pick=DealerPick(method="coin_flip"))


def play() -> list[GameMessage]:
    """The game's sequenced messages: each seat's bot moves when it may, then the sequencer
    takes the next message of each seat that has one, in seat order; until the game is over."""
    start = start_game()
    host = PublicTable(start)
    seats = [PeerTable(start, seat, box_key(seat),
                       seeded(b"shanghai-net sample game %d" % seat)) for seat in range(len(NAMES))]
    outboxes = [Outbox(table, sign_key(table.seat)) for table in seats]
    bots = [make_bot("basic", random.Random(table.seat)) for table in seats]
    for table, outbox in zip(seats, outboxes):
        outbox.push(table.start())
    sequenced: list[GameMessage] = []
    while not host.finished:
        for table, outbox, bot in zip(seats, outboxes, bots):
            if not outbox.busy and table.can_move():
                move = bot.choose(view_of(table.game, table.seat), table.legal_moves())
                outbox.push(table.submit(move), move)
        before = len(sequenced)
        for sender in outboxes:
            msg = sender.poll()  # a move names the head the last message made
            if msg is None:
                continue
            msg = host.admit(msg)  # its seq filled in
            sequenced.append(msg)
            for table, outbox in zip(seats, outboxes):
                outbox.push(table.receive(msg))
                outbox.sequenced(msg)
        if len(sequenced) == before:
            raise RuntimeError(f"the sample game is stuck at seq {before}")
    return sequenced


def record() -> bytes:
    """The transcript as `shanghai host --record` writes it: start_game, then every game
    message, each as a frame."""
    return b"".join(encode_frame(msg.to_wire()) for msg in [start_game(), *play()])


def main() -> int:
    PATH.write_bytes(record())
    print(PATH.relative_to(PATH.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
