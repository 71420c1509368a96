"""A host resumed from its transcript (`host --resume`) starts its stand-ins again, over real
sockets with our own `Host` and `Peer` classes: their keys are kept beside the transcript
(`net.resume.StandInKeys`, readable by this user alone), so the stand-in that died with the
host takes its seat again and plays on.  Before, its keys died with the host's process: the
table voted it gone, voiding a deal."""

from __future__ import annotations

import stat

import pytest
import trio

from shanghai_net.engine.events import RoundVoided
from shanghai_net.identity import Identity, IdentityError
from shanghai_net.net.resume import StandInKeys
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.secret import SeatSecret
from shanghai_net.table.verify import verify

from seating import until
from test_net_rejoin import assert_finished
from test_net_silent_vote import host_killed_with_its_stand_in


async def test_a_resumed_host_starts_its_stand_in_again_and_no_deal_is_voided(tmp_path):
    with trio.fail_after(150):
        async with host_killed_with_its_stand_in(tmp_path) as (resume, record, results):
            keys = StandInKeys(record)
            kept = list(keys.directory.glob("*.keys"))
            assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600
            assert stat.S_IMODE(keys.directory.stat().st_mode) == 0o700
            second = await resume()
            public, resumed_at = second.public, second.sequenced
            stand_in = public.holders[2].sign_key
            await until(lambda: public.finished, "the game's end, the stand-in playing seat 2",
                        seconds=90, state=lambda: (public.left, public.silenced, public.owed()))
    assert_finished(second, {s: results[s] for s in (0, 1)})
    assert public.left == [(1, 2)], "no deal voided for the stand-in"
    assert public.holders[2].sign_key == stand_in
    assert any(m.author == 2 and m.seq >= resumed_at for m in read_transcript(record)[1:]), \
        "the stand-in played seat 2 after the host came back"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2], "seat 2 charged once, for its own leave"
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((1, 2),), report.summary()
    assert not keys.directory.exists(), "the game is over: its stand-ins' keys are gone"


def test_stand_in_keys_come_back_as_kept_and_never_from_a_file_others_may_read(tmp_path):
    keys = StandInKeys(tmp_path / "game.bin")
    identity, secret = Identity(bytes(range(32)), bytes(range(1, 33))), SeatSecret(bytes(32))
    store = keys.keep(identity, secret)
    assert store.directory.parent == keys.directory == tmp_path / "game.bin.stand-ins"
    (kept_identity, kept_secret, _), = keys.kept()
    assert kept_identity == identity and kept_secret == secret
    path, = keys.directory.glob("*.keys")
    path.chmod(0o644)
    with pytest.raises(IdentityError, match="readable by others"):
        keys.kept()
    path.chmod(0o600)
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(IdentityError, match="damaged"):
        keys.kept()
    keys.forget()
    assert keys.kept() == []
