"""The dropout-tolerant deal's seed sharing as the table reads it from the stream
(docs/dealing.md), behind start_game's ``share_threshold``, which no host offers yet: each
generation's holders at its due message, a complaint of a seed share, and R2, the seats silent
at their seeds rebuilt from the shares in the others' seeds so that the audit checks them in
full. `SeedSharing` is the part of `StreamTable` that holds it; each party keeps the sharing
itself (`_sharing_of`): a seat in its `Participant`, the public table in its records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..deal.generation import Generation
from ..deal.messages import Context, ShareReveal
from ..deal.picks import nonce_digest
from ..deal.shares import GenerationShares
from ..deal.sharing import share_fits
from ..engine.dealer import Token
from ..wire import messages as wm
from ..wire.messages import HOST_AUTHOR
from .fault import Fault, ProvenCheat


@dataclass
class Rebuild:
    """A seat lost mid-round (R1) as every party reads its rebuild off the stream: who owes
    its shares of which generations, who published them or was timed out."""

    owed: dict[int, tuple[int, ...]]
    """holder -> the rebuilt generations whose commit of the seat it holds a share of."""
    published: set[int] = field(default_factory=set)
    timed_out: set[int] = field(default_factory=set)
    rebuilt: bool = False

    def owing(self) -> list[int]:
        return sorted(set(self.owed) - self.published - self.timed_out)

    def shares(self, generation: int, of: set[int]) -> int:
        return sum(generation in self.owed[h] for h in of)

    def generations(self) -> set[int]:
        """The seat's rebuilt generations: its keys of them are public once it is rebuilt."""
        return {n for ns in self.owed.values() for n in ns}

    def done(self, t: int) -> bool:
        """``t`` shares of every rebuilt generation are in."""
        return all(self.shares(n, self.published) >= t for ns in self.owed.values() for n in ns)

    def short(self, t: int) -> bool:
        """Some rebuilt generation can no longer reach ``t`` shares."""
        can = set(self.owed) - self.timed_out
        return any(self.shares(n, can) < t for ns in self.owed.values() for n in ns)


class SeedSharing:
    """The part of `StreamTable` that reads the seed sharing off the stream: see the module."""

    def _generation_holders(self) -> tuple[int, ...] | None:
        """The holders of a generation whose shuffle is asked for now (its due message), or
        None with sharing off (a commit whose holders are fewer than ``t`` carries no sharing:
        `GenerationShares.commit_holders`).  The seats start_game marks ``host_run`` hold none.
        A seat handed over since the round's deal began holds no share of the round's later
        generations: the round's deal seals to the box keys it began with, the old player's,
        who left (review of the code #13); its successor holds shares from the next round's
        deal, which seals to its box key."""
        if self.share_threshold is None:
            return None
        return self._holders_now()

    def _holders_now(self) -> tuple[int, ...]:
        """The holders a share box of the running round may be sealed to now: the share
        holders, less the seats handed over since the round's deal began."""
        return tuple(seat for seat in self.share_holders(self.share_threshold,
                                                         self.start_game.host_run)
                     if seat not in self.handovers)

    def _sharing_of(self, generation: int) -> GenerationShares | None:
        """Hook: the running round's sharing of ``generation`` as this party keeps it."""

    def _any_time(self, author: int, body: object) -> tuple[str | None, Callable[[], None]]:
        """`Disputes._any_time`; a complaint of seed shares (sharing on) names only shares its
        author holds of commits sequenced, and is recorded before the round stops, so that its
        author's seeds may carry nil for those shares alone.  A holder that finds a further bad
        share after its complaint went out complains again: that complaint is valid while the
        round stopped by a complaint waits for the author's seeds, and only records the shares."""
        why, act = super()._any_time(author, body)
        shares = getattr(body, "share", None) if isinstance(body, wm.Complaint) else None
        if shares is None:
            return why, act
        if why is not None and self.accusation is not None and self.waiting_audit and \
                body.round == self.round and author not in self.seeds_from | self.missing_seeds:
            why, act = None, lambda: None  # a further complaint: the round is stopped already
        if why is not None:
            return why, act
        if not shares:
            return f"seat {author}'s complaint of seed shares names none", act
        for share in shares:
            sharing = None if share.generation not in self.generations else \
                self._sharing_of(share.generation)
            if sharing is None or share.dealer not in self._commits.get(share.generation, ()) \
                    or author not in sharing.commit_holders(share.dealer):
                return (f"a complaint of seat {share.dealer}'s seed share of generation "
                        f"{share.generation}, which seat {author} does not hold"), act

        def complained() -> None:
            for share in shares:
                self._share_complained(author, share.dealer, share.generation)
            act()
        return None, complained

    def _share_complained(self, complainer: int, dealer: int, generation: int) -> None:
        self._sharing_of(generation).complain(complainer, dealer)

    def _silent_rebuilt(self, rebuild: Callable[[frozenset[int]], frozenset[int]]
                        ) -> frozenset[int]:
        """R2: the seats whose seeds the host timed out, less those ``rebuild`` (the deal's
        ``rebuild_silent``) rebuilt from the shares in the others' seeds, which the audit then
        checks in full (``rebuilt_seeds``); with the seats lost this round whose rebuild the
        round's stop cut short and the seeds' shares cannot rebuild either.  CheatDetected: a
        share off its commitments, or a rebuilt seed off its digest, names its author."""
        absent = frozenset(self.missing_seeds)
        if self.share_threshold is None:
            return absent
        remaining = rebuild(absent)
        self.rebuilt_seeds = set(absent - remaining)
        return remaining

    # -- R1: a seat lost mid-round, rebuilt from its holders' published shares ------------------

    def _generation_record(self, generation: int) -> Generation:
        """Hook: the running round's ``generation`` as this party's deal keeps it."""
        raise NotImplementedError

    def _share_reveal_refused(self, author: int, reveal: ShareReveal) -> None:
        """ValueError when ``reveal`` is not due from ``author`` now (the host answers
        ``out_of_turn``): with sharing off, or no lost seat's rebuild waiting for its shares,
        none is; else one share of each generation it owes, none nil, once.  `ProvenCheat`
        (sequenced as its evidence) for a share off the seat's commitments: it names its
        author (docs/dealing.md, "The published shares of R1")."""
        rebuild = self.rebuilds.get(reveal.seat)
        where = f"seat {author}: a share_reveal for seat {reveal.seat}"
        if rebuild is None:
            raise ValueError(f"{where}, whose rebuild no one waits for" + (
                "" if self.share_threshold is not None else " (this table shares no seeds)"))
        if author not in rebuild.owing():
            raise ValueError(f"{where}: it owes none, or sent them, or was timed out")
        numbers = [number for number, _ in reveal.shares]
        if numbers != list(rebuild.owed[author]) or not all(
                isinstance(share, bytes) for _, share in reveal.shares):
            raise ValueError(f"{where}: not one share for each of generations "
                             f"{list(rebuild.owed[author])}")
        for number, share in reveal.shares:
            feldman = self._generation_record(number).commitments[reveal.seat].feldman
            if not share_fits(feldman, author, share):
                raise ProvenCheat(author, f"seat {author}: published a share of seat "
                                          f"{reveal.seat}'s seed for generation {number} that "
                                          "is off its commitments")

    def _share_reveal_misplaced(self, author: int, reveal: ShareReveal) -> str | None:
        """Why ``reveal`` stands where the host put it, not its author (`StreamTable._misplaced`):
        a holder publishes when the stream decides the loss, so one sequenced after the host's
        own ``"shares"`` timeout of it, or after the rebuild was given up (the round void), is
        the host's placing.  None: it is not (what it says is checked, `_share_reveal_refused`;
        one for a seat never lost in the round names its author, a leak of a live seat's)."""
        rebuild = self.rebuilds.get(reveal.seat)
        if rebuild is None and reveal.seat in self.lost_in_round:
            return f"for seat {reveal.seat}, whose rebuild was given up (the round is void)"
        if rebuild is not None and author in rebuild.timed_out:
            return "after the host's own \"shares\" timeout of it"
        return None

    def _share_reveal(self, author: int, reveal: ShareReveal) -> None:
        """A sequenced ``share_reveal`` (Fault: one not due names its author, since the host
        should have refused it; a share off its commitments names its author); once ``t``
        shares of every rebuilt generation are in, the seat is rebuilt (`_rebuilt_own`)."""
        try:
            self._share_reveal_refused(author, reveal)
        except ValueError as error:
            raise Fault(author, str(error)) from None
        rebuild = self.rebuilds[reveal.seat]
        rebuild.published.add(author)
        self._published_own(author, reveal)
        if rebuild.done(self.share_threshold):
            rebuild.rebuilt = True
            self._rebuilt_own(reveal.seat)
            self._rebuilt_passes()
            self._rebuilt_nonces(reveal.seat)
            for token, owed in list(self.outstanding.items()):  # its keys come from its seed
                owed.owing.discard(reveal.seat)
                if not owed.owing:
                    del self.outstanding[token]
            self._rebuilt_turned_up()

    def _rebuilt_turned_up(self) -> None:
        """At a rebuild: each card turned up that waited only for the rebuilt seat's own key
        has every key now (its key is public), and opens at every party (`_turned_up`); without
        this the table waited for ever on that key from the seat's stand-in.  So does a card of
        a lost seat's hand shown without it (`_shown_without_holder`) whose other keys came
        before the rebuild."""
        for token in list(self._publics):
            if token not in self._revealed and self._own_keys_in(token) and \
                    (self.holder_of(token) is None or token in self._shown_without_holder):
                self._revealed.add(token)
                self._rebuilt_reveal_own(token)
                if not self._turned_up(token):
                    return

    def _rebuilt_reveal_own(self, token: Token) -> None:
        """Hook: the party's deal opens the card turned up at ``token`` with the rebuilt seat's
        key (a seat's participant does it itself as it rebuilds, `LostSeats._complete_rebuild`)."""

    def _rebuilt_passes(self) -> None:
        """Count every pass due now of a rebuilt seat: nobody sends it, for it is public and
        every party's deal makes it at its turn (`LostSeats._advance_rebuilt`); without this
        the shuffle waited for ever on the lost seat's pass, then on its replacement's."""
        for generation in sorted(self.generations):
            rebuilt = self.rebuilt_lost(generation)
            step = self._passes.get(generation, 0)
            while rebuilt and self._all_committed(generation) and \
                    step < 2 * self.players and step % self.players in rebuilt:
                self._rebuilt_pass_own(generation, step)
                step += 1
                self._passes[generation] = step

    def _rebuilt_nonces(self, seat: int) -> None:
        """R1: each nonce rebuilt ``seat`` committed to and did not reveal, read from its
        rebuilt seed (`_rebuilt_nonce`; none of a pick whose nonce it drew), checked against its
        commitment (off it, Fault names the seat), so that the pick is decided over every nonce
        (docs/dealing.md, "Picks are decided at the commit")."""
        for pick in self._picks:
            if pick.result is not None or seat not in pick.commitments or seat in pick.nonces:
                continue
            nonce = self._rebuilt_nonce(pick.number, seat)
            if nonce is None:
                continue
            if nonce_digest(Context(self.game_id, self.round, 0), pick.number, pick.request.n,
                            pick.parties, seat, nonce) != pick.commitments[seat]:
                raise Fault(seat, f"seat {seat}: nonce for pick {pick.number} does not match "
                                  "its commitment")
            pick.nonces[seat] = nonce

    def _rebuilt_nonce(self, pick: int, seat: int) -> bytes | None:
        """Hook: rebuilt ``seat``'s nonce of ``pick`` as the party's deal reads it from the
        seat's seed of the pick's generation; None if the seat drew it (its seed of that
        generation was public, or the pick has none)."""

    def _rebuilt_pass_own(self, generation: int, step: int) -> None:
        """Hook: the party's deal makes pass ``step`` of ``generation``, a rebuilt seat's (a
        seat's participant makes it itself, `LostSeats._advance_rebuilt`)."""

    def rebuilt_lost(self, generation: int | None = None) -> set[int]:
        """The seats lost this round whose seeds (of ``generation``, if given) are rebuilt:
        their keys are public, so nobody waits for their key shares or their keys of a card
        turned up."""
        return {seat for seat, rebuild in self.rebuilds.items() if rebuild.rebuilt and
                (generation is None or generation in rebuild.generations())}

    def rebuilding(self, generation: int) -> set[int]:
        """The seats lost this round whose seeds of ``generation`` are rebuilt or being rebuilt:
        their keys of it are public once rebuilt, so none is theirs (nor their replacements')
        to send."""
        return {seat for seat, rebuild in self.rebuilds.items()
                if generation in rebuild.generations()}

    def _published_own(self, author: int, reveal: ShareReveal) -> None:
        """Hook: the party's deal takes in a share_reveal, in stream order."""

    def _rebuilt_own(self, seat: int) -> None:
        """Hook: every rebuilt generation of lost ``seat`` has ``t`` shares in: the party's deal
        rebuilds it (CheatDetected: a seed off its digest, or a past step off it, names it)."""

    def _shares_timed_out(self, seat: int) -> None:
        """The host's ``"shares"`` timeout of holder ``seat``: for the lowest lost seat whose
        rebuild waits for it, and only if ``seat`` is the lowest holder it waits for (Fault on
        the host else); below ``t`` the round is void at that message, as without sharing."""
        lost = next((r for r, rebuild in sorted(self.rebuilds.items())
                     if seat in rebuild.owing()), None)
        if lost is None or self.rebuilds[lost].owing()[0] != seat:
            raise Fault(HOST_AUTHOR, f"the host timed out seat {seat}'s shares, which no lost "
                                     "seat's rebuild waited for")
        rebuild = self.rebuilds[lost]
        rebuild.timed_out.add(seat)
        if rebuild.short(self.share_threshold):
            round_no = self.void_target
            del self.rebuilds[lost]
            self.lost.remove((round_no, lost))
            self._drop_round()
            self._leave(lost, round_no, False)
        else:
            self.round_events.append(("time out", lost, seat))
            self._shares_timed_out_own(lost, seat)

    def _shares_timed_out_own(self, lost: int, holder: int) -> None:
        """Hook: the party's deal times out ``holder``'s shares of ``lost``."""

    def _rebuild_timeout(self, seq: int, seat: int, what: str) -> None:
        """The host's ``"shares"`` or ``"vote"`` timeout of ``seat`` (sharing on); Fault on the
        host for one that has no place: with sharing off, never.  ``"vote"``: the votes naming
        ``seat`` reached protocol.md 11.5's bar, not ``t`` holders' votes, and none came for
        ``audit_timeout`` (the host's clock): the round is void as without sharing."""
        round_no = self.void_target
        if what == "shares" and self.rebuilds and self.accusation is None:
            self._shares_timed_out(seat)
            return
        if what == "vote" and self.share_threshold is not None and \
                not self.waiting_audit and \
                seat not in self.vacant and self.carried(round_no, seat) and \
                self.rebuildable(seat):
            self._voided_gone(seat, round_no)
            return
        raise Fault(HOST_AUTHOR, f"the host timed out seat {seat}'s {what}, which no lost "
                                 "seat's rebuild waited for")

    def _vote(self, author: int, round_no: int, seat: int) -> None:
        """`Disputes._vote`; with sharing on it also notes whether the voter is a share holder
        as it votes (the rebuild's bar counts those votes)."""
        if self.share_threshold is not None and \
                author in self.share_holders(self.share_threshold, self.start_game.host_run):
            self.holder_votes.setdefault((round_no, seat), set()).add(author)
        super()._vote(author, round_no, seat)

    def _drop_votes_against(self, seat: int) -> None:
        """`Disputes._drop_votes_against`: a lapsed vote counts toward the holders' bar no more
        either."""
        super()._drop_votes_against(seat)
        self.holder_votes.pop((self.void_target, seat), None)

    def _spend_votes(self, round_no: int) -> None:
        """`Disputes._spend_votes`: a spent vote counts toward the holders' bar no more either."""
        super()._spend_votes(round_no)
        for ballot in [key for key in self.holder_votes if key[0] == round_no]:
            del self.holder_votes[ballot]

    def rebuildable(self, seat: int) -> bool:
        """Whether ``seat`` lost now would be rebuilt (docs/dealing.md, "Rebuildable"): it was
        not lost already this round (its replacement, seated mid-round and voted gone in turn,
        voids the round as without sharing), and for every generation of the running round it
        committed and whose passes have begun, at least ``t`` of that commit's holders other
        than it are holders still.  Never in round 0: the first-dealer pick has no seed to
        rebuild a party's nonce from (it draws it), so a seat lost there voids the pick, which
        is held again once every seat is played, as without sharing (protocol.md 11.3)."""
        if seat in self.rebuilds or self.round == 0:
            return False
        holders = set(self.share_holders(self.share_threshold,
                                         self.start_game.host_run)) - {seat}
        for generation in sorted(self.generations):
            if seat not in self._commits.get(generation, ()) or not self._passes.get(generation):
                continue
            sharing = self._sharing_of(generation)
            if sharing is None or \
                    len(set(sharing.commit_holders(seat)) & holders) < self.share_threshold:
                return False
        return True

    def _lost_or_waiting(self, seat: int, round_no: int) -> bool:
        """`Disputes._lost_or_waiting`, sharing on (docs/dealing.md, "The vote's bar, with
        sharing on"): a rebuildable seat is lost, the round going on, once ``t`` of the votes
        are holders' other than its own; until then the votes wait (or the host's ``"vote"``
        timeout voids the round).  A seat not rebuildable: the round is void, as without."""
        if self.share_threshold is None or not self.rebuildable(seat):
            return False
        if len(self.holder_votes.get((round_no, seat), set()) - {seat}) >= self.share_threshold:
            self._lose(seat, round_no)
        return True

    def _lose(self, seat: int, round_no: int) -> None:
        """R1: ``seat`` is lost at this message and the round goes on.  It is vacant (its key's
        messages refused) and pays ``leave_penalty`` as a seat voted gone does (not the host's
        stand-in, nor a seat charged for its silence since); its commit of a generation whose
        passes have not begun is dropped (its replacement commits afresh); every party's deal
        rebuilds it (`_lose_own`).  The votes that lost it are spent: the round goes on, and
        each of its voters may vote again in it (against a seat that stalls it later, say one
        that never hands the replacement its keys)."""
        holders = self.share_holders(self.share_threshold, self.start_game.host_run)
        spent = self.gone_votes.pop((round_no, seat), set())
        self.void_votes.get(round_no, set()).difference_update(spent)
        self.holder_votes.pop((round_no, seat), None)
        paid = not self.stand_in(seat) and seat not in self.charged_silent
        self.lost.append((round_no, seat))
        self.lost_in_round.add(seat)
        self.silenced.pop(seat, None)
        self.vacant[seat] = round_no
        for generation in self.generations:
            if not self._passes.get(generation) and seat in self._commits.get(generation, ()):
                self._commits[generation].discard(seat)
                self._restarted.add(generation)
        owed: dict[int, list[int]] = {}
        for generation in sorted(self.generations):
            if seat in self._commits.get(generation, ()) and self._passes.get(generation):
                for holder in self._sharing_of(generation).commit_holders(seat):
                    if holder in holders and holder != seat:
                        owed.setdefault(holder, []).append(generation)
        self.rebuilds[seat] = Rebuild({h: tuple(ns) for h, ns in owed.items()},
                                      rebuilt=not owed)  # nothing begun: nothing to rebuild
        self._drop_sender(seat)
        unshown = [token for token in self._publics if self.holder_of(token) == seat]
        self._shown_without_holder.update(unshown)  # lost while the hands were shown
        self.round_events.append(("lose", seat, holders))
        self.public.lose_seat(seat, pays=paid)
        self.replay.lose(seat, paid, self.public)
        self._lose_own(seat, holders, paid)
        for token in unshown:  # its hand's cards the round's end asked: shown without it
            self._reveal_public(token)

    def _lose_own(self, seat: int, holders: tuple[int, ...], paid: bool) -> None:
        """Hook: the party's own deal and replica lose ``seat`` too (``holders``: the holders at
        the deciding vote)."""
