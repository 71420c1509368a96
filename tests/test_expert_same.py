"""The expert plays the very games it played before it was made faster.

Each digest covers a few seeded games per preset with one or two experts among basic bots:
every move of every seat and every reason the expert gave, in order.  They were recorded from
the expert before the speed work of issue 26 (davis and marcelle again after issue 25 changed
their rules: davis turns the whole pile over, marcelle claims without a limit; davis,
good-miller and marcelle again when issue 24 changed only the words of the reasons, naming the
meld and the copy a hint means, with every move the same; davis, good-miller and marcelle again
when the look-ahead over hidden hands of issue 26 began to decide close discards and draws, and
again when its searches began to stop once settled and to play out 40 moves, not 60).  A
change meant only to be faster leaves them all; a change meant to alter the expert's play
changes them, and says so by updating them here (``python tests/test_expert_same.py GAMES``
prints them for more games)."""

from __future__ import annotations

import hashlib
import random
import sys

import pytest

from shanghai_net.bots import ExpertBot, make_bot
from shanghai_net.engine import LocalDealer, Phase, new_game, view_of
from shanghai_net.rules import PRESETS, preset

RECORDED = {
    "davis": "b06e0d4251220a8545b86a617fa46e2cef18c47657c86ac5794b9dcd6ee7791e",
    "good-miller": "d26ee93c629db087a11c52d3661086d438e69aafe85e721d6db0a2823fd22a67",
    "marcelle": "2dff889aa42ae3264a804975bd8324724221cafcaab33326cef6aef0ea62f2bf",
    "carousel": "06a0a503e1d21f0444e34327d02266168906f15c45733451def58bcd01f07677",
}
GAMES = 2


def expert_digest(name: str, games: int) -> str:
    """SHA-256 of every move and every expert's reason in ``games`` seeded games of ``name``:
    the odd games seat two experts, the even ones one."""
    digest = hashlib.sha256()
    for i in range(games):
        rng = random.Random(f"expert:{name}:{i}")
        levels = ["expert", "basic", "expert", "basic"] if i % 2 else ["basic", "expert", "basic", "basic"]
        bots = [make_bot(level, random.Random(rng.random())) for level in levels]
        game = new_game(preset(name), len(levels), LocalDealer(rng.randrange(2**63)))
        while game.phase is not Phase.OVER:
            seat = game.to_move()[0]
            bot = bots[seat]
            if isinstance(bot, ExpertBot):
                bot.follow(game.log)
                decision = bot.decide(view_of(game, seat), game.legal_moves(seat))
                move = decision.move
                digest.update(decision.reason.encode() + b"\n")
            else:
                move = bot.choose(view_of(game, seat), game.legal_moves(seat))
            digest.update(repr(move).encode() + b"\n")
            game.apply(move)
    return digest.hexdigest()


@pytest.mark.parametrize("name", RECORDED)
def test_the_expert_plays_the_recorded_games(name):
    assert expert_digest(name, GAMES) == RECORDED[name]


if __name__ == "__main__":
    for name in PRESETS:
        print(f'    "{name}": "{expert_digest(name, int(sys.argv[1]) if len(sys.argv) > 1 else GAMES)}",')
