"""The expert plays the very games it played before it was made faster.

Each digest covers a few seeded games per preset with one or two experts among basic bots:
every move of every seat and every reason the expert gave, in order.  They were recorded from
the expert before the speed work of issue 26 (davis and marcelle again after issue 25 changed
their rules: davis turns the whole pile over, marcelle claims without a limit; davis,
good-miller and marcelle again when issue 24 changed only the words of the reasons, naming the
meld and the copy a hint means, with every move the same; davis, good-miller and marcelle again
when the look-ahead over hidden hands of issue 26 began to decide close discards and draws, and
again when its searches began to stop once settled and to play out 40 moves, not 60, and
again when they began to stop settled after one sampled deal, not two).  A
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
    "davis": "5281c5c72e636a347bdce7c7b64082e034c01cfa9670b6852e26fc5e551032fa",
    "good-miller": "ce7bf84e20c8e75ce26c54ebcf28b56c312051e5860eeb046be19421edb96cf8",
    "marcelle": "0d7b52ea276d7107c094b1762c42235a395b14cf11c3f52e04342d1f8b685506",
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
