"""How a round is stopped, read from the sequenced stream alone: votes to void a round a seat
holds up, complaints and the audit that decides them, and seats' protests of the host's
timeouts.  `Disputes` is the part of `StreamTable` that holds them (it reads and sets the
table's deal state); every party, the host and `shanghai verify` included, reaches the same
verdict from the same stream."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from ..deal.errors import CheatDetected
from ..engine.events import GameResult
from ..engine.game import Game, Phase
from ..wire import messages as wm
from ..wire.errors import ProtocolError
from ..wire.messages import HOST_AUTHOR, GameMessage
from .bodies import MOVE_BODIES, parse_deal
from .fault import Fault

__all__ = ["Disputes", "Protested", "absence", "final_result", "ALIVE_BODIES"]

ALIVE_BODIES = (wm.Deal, wm.Approve, *MOVE_BODIES)
"""What a seat sends that shows it is not gone: what the table waits for from it (a deal step,
a move, an approval).  A vote, a hand-over, a complaint or a protest it can send at will, so
none of them makes a vote against it lapse (`Disputes._lapse`)."""


def absence(seats: list[int]) -> str:
    """What a missing message proves: nothing about its author alone, since the host relays
    every message and may have dropped it."""
    whose = " and ".join(f"seat {s}" for s in seats)
    return (f"{whose}'s seeds never arrived ({whose}, or the host that relays "
            f"{'them' if len(seats) > 1 else 'it'})")


@dataclass(frozen=True)
class Protested:
    """A seat's protest of the host's ``timeout`` at ``seq``; ``claim``: the signed claim it
    showed, which the host did not sequence (checked: the seat signed it)."""

    seat: int
    seq: int
    reason: str
    claim: GameMessage | None


class Disputes:
    """The part of `StreamTable` that stops a round, and the audit's verdict."""

    # -- the vote to void a round --------------------------------------------------------------

    @property
    def void_target(self) -> int:
        """The round a vote to void names: the one the table is stuck in, the running round."""
        return self.public.round_no

    def _vote_refused(self, author: int, round_no: int, seat: int) -> str | None:
        """Why this vote has no place here, or None.  A vote needs no settled deal: it is how a
        table stuck waiting for a seat that never comes back gets out.  But never once a round's
        audit has begun: the seeds decide it (the host times out a seat that does not open
        them), so that no vote lets a seat the audit would name escape it.  (Once the game is
        over, the host refuses and a seat faults any message before this is asked.)"""
        if self.waiting_audit:
            return (f"a vote to void round {round_no} while round {self.round}'s audit waits "
                    "for its seeds")
        if round_no != self.void_target:
            return f"a vote to void round {round_no}; the table is in round {self.void_target}"
        if author in self.void_votes.get(round_no, ()):
            return (f"a second vote to void round {round_no} (the seat's first stands: the "
                    "seat it named has sent no deal step, move or approval since)")
        if seat >= self.players or seat in self.vacant:
            return (f"a vote that seat {seat}, "
                    f"{'no seat' if seat >= self.players else 'gone already'}, left")
        return None

    def _vote(self, author: int, round_no: int, seat: int) -> None:
        """Count the vote; once it is carried (`carried`), ``seat`` is gone (`_leave`).  No
        round has been scored that a vote could take back: votes stop when a round's audit
        begins."""
        self.void_votes.setdefault(round_no, set()).add(author)
        self.gone_votes.setdefault((round_no, seat), set()).add(author)
        self._count_votes()

    def _lapse(self, author: int, body: wm.Body) -> None:
        """A message of ``author`` is sequenced: if it is one of `ALIVE_BODIES`, the votes of
        the running round that ``author`` left lapse (protocol.md 11.5): it was not gone.  A
        lapsed vote counts toward no bar, and its voter may vote again this round; a vote
        that carried is final (the round is void already).  Otherwise a vote spent on a seat
        only slow left its voter none for a seat really lost, and a table whose every vote was
        needed waited for good."""
        if isinstance(body, ALIVE_BODIES):
            self._drop_votes_against(author)

    def _drop_votes_against(self, seat: int) -> None:
        """The votes of the running round that ``seat`` left lapse: they count toward no bar,
        and their voters may vote again this round (`_lapse`, and an idle ``silent`` timeout of
        ``seat``: `_silent_timeout`)."""
        round_no = self.void_target
        lapsed = self.gone_votes.pop((round_no, seat), set())
        self.void_votes.get(round_no, set()).difference_update(lapsed)

    def still_silent(self) -> set[int]:
        """The seats the host timed out as silent that still hold the table up (`stalled_by`)
        and have signed nothing since (not one timed out while it owed nothing: `_silences`)."""
        return self._silences()[0]

    def _silences(self) -> tuple[set[int], set[int]]:
        """(`still_silent`; the seats timed out as silent while they owed the table nothing,
        ``idle_silenced``, that still owe it nothing and have signed nothing since, while
        every seat the table waits on is still silent, else none).  Those only count toward
        no bar as voters (`_able_to_vote`): an idle timeout never lowers the bar against its
        seat, even once the table waits on it, for the host times a seat out while it owes
        nothing with no wait on it."""
        stalled = self.stalled_by()
        silenced = self.silenced.keys()
        silent = (silenced - self.idle_silenced) & stalled
        if not stalled or stalled - silent:
            return silent, set()
        return silent, (silenced & self.idle_silenced) - stalled

    def voters(self, seat: int) -> set[int]:
        """The seats that can vote that ``seat`` left: neither vacant, nor ``seat``, nor silent
        (`_silences`)."""
        return self._able_to_vote(*self._silences()) - {seat}

    def _able_to_vote(self, silent: set[int], idle: set[int]) -> set[int]:
        """The seats that can vote: neither vacant nor among ``silent`` or ``idle`` (the seats
        `_silences` gives, worked out once by the caller)."""
        return set(range(self.players)) - self.vacant.keys() - silent - idle

    def carried(self, round_no: int, seat: int) -> bool:
        """Whether the votes that ``seat`` left round ``round_no`` carry (protocol.md 11.5):
        more than half the seats of ``start_game`` voted so; or ``seat`` holds the table up
        since the host's ``silent`` timeout and more than half the seats that can vote
        (`voters`) did.  The second bar is what lets a table with seats vacant or silent
        finish; it never applies to a seat that answers what it owes."""
        votes = self.gone_votes.get((round_no, seat), set())
        if 2 * len(votes) > self.players:
            return True
        silent, idle = self._silences()
        if seat not in silent:
            return False
        voters = self._able_to_vote(silent, idle) - {seat}
        return 2 * len(votes & voters) > len(voters)

    def split_carried(self, round_no: int) -> int | None:
        """The silent seat that leaves round ``round_no`` when the votes against silent seats,
        counted together, carry though none carries alone (protocol.md 11.5): more than half
        the seats that can vote (neither vacant nor silent) named one silent seat or another;
        the seat named by most of them leaves (ties: the one the host timed out first).  Each
        seat votes once a round, so votes split between two silent seats carried for neither,
        and the table waited for good.  (Only standing votes count: a lapsed one is gone from
        ``gone_votes``, `_lapse`.)"""
        silent, idle = self._silences()
        voters = self._able_to_vote(silent, idle)
        named = {seat: len(self.gone_votes.get((round_no, seat), set()) & voters)
                 for seat in silent}
        if 2 * sum(named.values()) <= len(voters):
            return None
        return max(sorted(named), key=lambda s: (named[s], -self.silenced[s]))

    def _count_votes(self) -> None:
        """After a vote, a ``silent`` timeout, or any message while a seat is timed out as
        silent: the first seat (in seat order) whose votes of the running round carry leaves
        it, else the silent seat the votes counted together name (`split_carried`); never
        while a round's audit waits for its seeds."""
        if self.waiting_audit or self.finished:
            return
        round_no = self.void_target
        seat = next((s for s in sorted(s for r, s in self.gone_votes if r == round_no)
                     if self.carried(round_no, s)), None)
        if seat is None:
            seat = self.split_carried(round_no)
        if seat is not None and not self._lost_or_waiting(seat, round_no):
            self._voided_gone(seat, round_no)

    def _voided_gone(self, seat: int, round_no: int) -> None:
        """``seat`` is gone: it left the round, which is void, and waits for a replacement.
        The round's votes are spent with the void they made (protocol.md 11.5): a void of
        round 0 picks the first dealer again under the same round number, and votes that
        still stood there left their voters none against a seat that stalls the new pick
        (soak 10-7)."""
        self._spend_votes(round_no)
        self._drop_round()
        self._leave(seat, round_no, False)
        self.silenced.pop(seat, None)
        self.vacant[seat] = round_no

    def _spend_votes(self, round_no: int) -> None:
        """Every vote of round ``round_no`` is spent: none counts any more, and each voter may
        vote again (`_voided_gone`)."""
        self.void_votes.pop(round_no, None)
        for ballot in [key for key in self.gone_votes if key[0] == round_no]:
            del self.gone_votes[ballot]

    def _lost_or_waiting(self, seat: int, round_no: int) -> bool:
        """Hook: whether the votes that carry against ``seat`` lose it with the round going on
        (sharing on, R1) or wait for more votes, instead of voiding the round."""
        return False

    def _silent_timeout(self, seq: int, seat: int) -> None:
        """The host's word that the table waited its ``audit_timeout`` with nothing sequenced
        while it could not go on without ``seat``, or (v10) that ``seat``'s link is down while
        every seat the table waits on is silent (Fault on one with no place, `_silent_refused`).
        Like a seeds timeout it proves nothing against the seat: a seat the table waits on it
        only lets fewer seats vote gone while it stays silent; a seat that owes nothing it
        takes out of the seats that can vote while the table waits on silent seats alone
        (`_silences`), so that the seats left can vote those out, and the votes that it left
        lapse (protocol.md 11.5): they can carry only by the table's majority, and a voter
        whose one vote of the round stood on such a seat had none for the seats the table
        waits on (soak 10-7)."""
        why = self._silent_refused(seat)
        if why is not None:
            raise Fault(HOST_AUTHOR, f"the host timed out seat {seat} as silent, {why}")
        if seat in self.stalled_by():
            self.idle_silenced.discard(seat)
        else:
            self.idle_silenced.add(seat)
            self._drop_votes_against(seat)
        self.silenced[seat] = seq
        self.host_timeouts[seq] = (seat, seq)  # a protest of it carries no claim
        self._count_votes()

    def _silent_refused(self, seat: int) -> str | None:
        """Why a ``silent`` timeout of ``seat`` has no place (protocol.md 11.5), or None: never
        while an audit waits for seeds; a seat the table cannot go on without, once until it
        signs again; a seat it can go on without (its link down: only the host can tell), not
        vacant, once, and only while every seat the table waits on is silent."""
        if self.waiting_audit:
            return "while the round's audit waits for seeds"
        stalled = self.stalled_by()
        if seat in stalled:
            if seat in self.silenced.keys() - self.idle_silenced:
                return "which was timed out already"
            return None
        if seat >= self.players or seat in self.vacant or seat in self.silenced:
            return "which owed the table nothing and is no seat, vacant or timed out already"
        if not stalled or stalled - (self.silenced.keys() - self.idle_silenced):
            return ("which owed the table nothing while the table waits on a seat not silent "
                    f"({', '.join(map(str, sorted(stalled))) or 'none'})")
        return None

    def _leave(self, seat: int, round_no: int, scored: bool) -> None:
        """``seat`` left the running round (voted gone, or silent when its seeds were due): the
        round is void (not audited: the seat took its keys; ``scored``: the round just scored,
        its score taken back) and its contract dealt again, and ``seat`` pays the rules'
        ``leave_penalty``: once for one leave, so not if the host's stand-in played it
        (`Roster.stand_in`), nor if it was charged for its silence and has signed nothing
        since (``charged_silent``)."""
        paid = not self.stand_in(seat) and seat not in self.charged_silent
        leaver = seat if paid else None
        self.left.append((round_no, seat))
        if not paid:
            self.unpaid.add((round_no, seat))
        skipped = scored and self.public.round_no != round_no  # the next round had begun
        self.public.void_round(scored, leaver=leaver, go_on=True)
        self.replay.void(leaver)
        if skipped:  # the replay, a round behind, skips the begun round's number as well
            self.replay.void(None)
        self._void_own(scored, True, leaver)

    def _drop_round(self) -> None:
        """Forget what the voided round's deal still waited for: nothing of it is due now
        (no commitment nor pass: a seat that owed one is not silent for it), and it is not
        audited."""
        self.generations = set()
        self.rebuilds = {}
        for seat in self.idle_silenced:  # an idle seat's timeout spoke of this deal's stall
            self.silenced.pop(seat, None)
        self.idle_silenced.clear()
        self._reset_counts()
        self.outstanding.clear()
        self._shuffles.clear()
        self._publics.clear()
        self.audited = self.round

    def _void_own(self, scored: bool, go_on: bool = False, leaver: int | None = None) -> None:
        """Hook: a seat voids its own replica's round too (``go_on``: the round is dealt again,
        ``leaver`` pays for it)."""

    def _any_time(self, author: int, body: wm.VoidRound | wm.Complaint | wm.Approve | wm.HandOver
                  | wm.Leave) -> tuple[str | None, Callable[[], None]]:
        """A vote to void the round, a complaint, an approval, a hand-over or a leave, the
        bodies valid whether or not the deal is settled: why it has no place here (None: it
        has), and what it does."""
        if isinstance(body, wm.Leave):
            return None, lambda: self._quit_seat(author)
        if isinstance(body, wm.HandOver):
            return (self._handover_refused(author, body), lambda: self._hand_over(author, body))
        if isinstance(body, wm.VoidRound):
            return (self._vote_refused(author, body.round, body.seat),
                    lambda: self._vote(author, body.round, body.seat))
        if isinstance(body, wm.Approve):
            return (self._approval_refused(author, body.seq),
                    lambda: self._approve(author, body.seq))
        return (self._complaint_refused(author, body.round),
                lambda: self._accuse(author, body.reason))

    # -- a seat whose player quit ---------------------------------------------------------------

    def _quit_seat(self, seat: int) -> None:
        """``seat``'s ``leave``: its player quit, and that player's key plays no more (until
        another holder takes the seat, `_quit_refused`).  It is the seat's own signed word that
        it is gone, which the reference clients vote on at once (docs/dealing.md, "What the
        reference clients vote on"); the table's bars are those of any vote, and a leave
        makes no vote against the seat lapse (it is no sign of life: `_heard`)."""
        self.quit[seat] = self._players_before(seat)

    def _players_before(self, seat: int) -> int:
        return sum(1 for _ in self.holders[seat].earlier())

    def _quit_refused(self, author: int) -> str | None:
        """Why a message of seat ``author`` has no place because its player quit (None: it
        has): its ``leave`` was its last message, until a ``replace`` or a ``hand_over`` gave
        the seat another player (its first player coming back with the same keys included)."""
        if self.quit.get(author) != self._players_before(author):
            return None
        return (f"seat {author}'s player quit (its leave is sequenced): its key plays no more "
                "until another player takes the seat")

    def quitters(self) -> set[int]:
        """The seats whose player's ``leave`` is sequenced and that nobody else plays yet (not
        vacant: a seat voted gone waits for its replacement)."""
        return {seat for seat in self.quit
                if seat not in self.vacant and self._quit_refused(seat) is not None}

    # -- what a seat says the host did ---------------------------------------------------------

    def _protest(self, author: int, body: wm.Protest) -> None:
        """Record a seat's protest of a host timeout (Fault on one that has no place; after the
        game's end the host refuses it, and a seat names a host that relays it, first)."""
        seat, opened = self.host_timeouts.get(body.seq, (None, None))
        silenced = self.seeds_timeouts.get(body.seq)
        if silenced is not None:
            seat = silenced[0]
        if seat != author:
            raise Fault(author, f"seat {author}: protests seq {body.seq}, which is no host "
                                "timeout of its seat")
        if any(p.seq == body.seq for p in self.protests):
            raise Fault(author, f"seat {author}: a second protest of seq {body.seq}")
        claim = None
        if silenced is not None:
            claim = self._evidence_of_seeds(author, body, silenced[1])
        elif body.claim is not None:
            claim = self._evidence_of_claim(author, body, opened)
        self.protests.append(Protested(author, body.seq, body.reason, claim))

    def _evidence_of_seeds(self, author: int, body: wm.Protest, round_no: int) -> GameMessage:
        """The seeds a protest of a seeds timeout carries: the author's own signed ``seeds``
        of the round the timeout was in, which the host did not sequence.  What it shows: the
        seat signed them (when, and whether the host ever had them, no one but the host can
        tell), so they are the seat's word with its signature, not proof against the host."""
        try:
            seeds = GameMessage.from_wire({**(body.claim or {}), "type": "game"})
            self.chain.signed_by_author(seeds)
            step = parse_deal(seeds.body, self.game_id, author)
        except (ProtocolError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise Fault(author, f"seat {author}: its protest of the timeout of its seeds "
                                f"carries no seeds message it signed: {error}") from None
        if seeds.author != author or step.step != "seeds" or step.round != round_no:
            raise Fault(author, f"seat {author}: its protest of the timeout of its seeds "
                                f"carries no seeds of round {round_no}")
        return seeds

    def _evidence_of_claim(self, author: int, body: wm.Protest, opened: int) -> GameMessage:
        """The claim a protest carries: the author's own signed may_i or pass_claim, decided in
        the window the timeout closed (on a state from the window's opening, at seq ``opened``,
        to the timeout's).  A claim of an earlier window was sequenced there or lost with it:
        it is no evidence that the host kept this one from the table."""
        try:
            claim = GameMessage.from_wire({**body.claim, "type": "game"})
            self.chain.signed_by_author(claim)
        except (ProtocolError, ValueError, KeyError, TypeError) as error:
            raise Fault(author, f"seat {author}: its protest's claim is no message it signed: "
                                f"{error}") from None
        if claim.author != author or not isinstance(claim.body, (wm.MayI, wm.PassClaim)) or \
                claim.basis_seq is None or not opened <= claim.basis_seq < body.seq:
            raise Fault(author, f"seat {author}: its protest's claim is not its answer to the "
                                f"window the timeout at seq {body.seq} closed (that window "
                                f"opened at seq {opened})")
        return claim

    # -- a round stopped for its audit ---------------------------------------------------------

    def _complaint_refused(self, author: int, round_no: int) -> str | None:
        """Why a complaint has no place here, or None: it names the running round, whose deal
        has begun and is not being audited already (the game's end: see `_vote_refused`)."""
        if round_no != self.round or not self.generations:
            return f"a complaint about round {round_no}; the deal is in round {self.round}"
        if self.waiting_audit:
            return "a complaint while the round is being audited"
        return None

    def _accuse(self, complainer: int | None, reason: str) -> None:
        """Stop the round: no further move or deal step, every seat opens its seeds now."""
        self.accusation = (complainer, reason)
        self._audit_generations = sorted(g for g in self.generations if self._all_committed(g))
        self._audit_scored = False
        self._final_seeds = True
        self.outstanding.clear()
        self.waiting_audit = True
        self.seeds_from = set()
        self._send_seeds()

    def _seeds_timeout(self, seat: int, seq: int) -> None:
        """The host's word that ``seat``'s seeds did not come within the table's
        ``audit_timeout``.  That is no evidence against the seat: the host may have dropped
        them.  Once every seat's seeds came or were timed out, the round is audited with the
        seeds that came (`_conclude_audit`)."""
        if not self.waiting_audit or seat in self.seeds_from | self.missing_seeds | \
                (self.rebuilds.keys() & self.vacant.keys()):
            raise Fault(HOST_AUTHOR, f"the host timed out seat {seat}'s seeds, which were not "
                                     "due or had come")
        self.missing_seeds.add(seat)
        self.seeds_timeouts[seq] = (seat, self.round)
        if len(self.seeds_from) + len(self.missing_seeds) == self.seeds_due():
            self._audited()

    def seeds_due(self) -> int:
        """How many seats' seeds the audit waits for: every seat but one lost this round (R1),
        which is vacant (not replaced): its seeds are rebuilt, or rebuilt at the audit from
        the others'."""
        return self.players - len(self.rebuilds.keys() & self.vacant.keys())

    def run_audit(self) -> tuple[Fault | None, Exception | None]:
        """The round's audit, once ``audit_due``: (whom it names, None if every step matches;
        the fault that stops the table, if the audit broke it).  It touches nothing the game's
        replica or a console reads, so a caller may run it in a worker thread (the curve
        arithmetic releases the GIL) while it feeds the table nothing; then `finish_audit`."""
        try:
            return self._audit(), None
        except (Fault, CheatDetected) as error:
            return None, error

    def finish_audit(self, outcome: tuple[Fault | None, Exception | None]) -> None:
        """Go on from the audit `run_audit` made (raises the table's fault, if any)."""
        verdict, error = outcome
        self.audit_due = False

        def conclude() -> None:
            if error is not None:
                raise error
            self._conclude_audit(verdict)
            self._settle()

        self._guarded(conclude)
        if self.fault is not None:
            raise self.fault

    def _audited(self) -> None:
        """Every seat's seeds are in: audit (or leave it to the caller), then either go on or
        void the round and name."""
        if self.audit_elsewhere:
            self.audit_due = True  # still waiting for the audit: nothing moves meanwhile
            return
        self._conclude_audit(self._audit())

    def _conclude_audit(self, verdict: Fault | None) -> None:
        self.waiting_audit = False
        self.seeds_from = set()
        missing = sorted(self.missing_seeds - self.rebuilt_seeds)  # R2: a rebuilt seat is audited
        self.missing_seeds, self.rebuilt_seeds = set(), set()
        if verdict is None and missing:  # a seat's cheat might hide there: no one is cleared
            self._silent(missing)
            return
        if verdict is None and self.accusation is not None:
            complainer, reason = self.accusation
            verdict = Fault(complainer, (f"seat {complainer}: complained ({reason}), but every "
                                         "step of the deal matches its seed") if complainer
                            is not None else f"{reason}, yet every step matches its seed")
        if verdict is not None:
            self._convict(verdict)
            return
        self.audited = self.round
        if self.public.phase is Phase.OVER:
            self.finished = True

    def _silent(self, seats: list[int]) -> None:
        """The seeds of ``seats`` never came, and those that came name no one: each seat pays
        as a seat that left (`_leave`), once; the round is void (its score taken back if it was
        scored: a round cannot be kept by hiding its seeds), left undecided (a complaint's
        fault might hide in the missing seeds), and dealt again.  Whether the seat or the host
        kept the seeds back the table cannot tell, so the first time the seat keeps its place:
        one that is there deals on (and protests with the seeds it sent, protocol.md 11.6); one
        that is gone holds the new deal up and is voted gone, with no second charge.  A seat
        silent a second time in the game (whoever holds it) is vacant as one voted gone, so
        that silence voids at most one deal a seat that it does not vacate (the bound of
        protocol.md 11.6)."""
        scored, round_no = self._audit_scored, self.round
        self.accusation, self._final_seeds = None, False
        self._drop_round()
        for seat in seats:
            again = any(earlier == seat for _, earlier in self.silent)
            self.silent.add((round_no, seat))
            self._leave(seat, round_no, scored)
            if again:
                self.vacant[seat] = round_no
            else:
                self.charged_silent.add(seat)
            scored, round_no = False, self.void_target  # a second seat voids the deal again

    def _convict(self, verdict: Fault) -> None:
        """The audit named a seat (or the host): the round is void and the game over."""
        self.verdict = verdict
        self.voided = self.round
        self._final_seeds = True
        self.outstanding.clear()
        self.waiting_audit = False
        self.public.void_round(self._audit_scored)
        self._void_own(self._audit_scored)
        self.finished = True


def final_result(table: Disputes, game: Game) -> GameResult | None:
    """``game``'s result as the table ends it: a seat the deal's audit named is ranked last and
    wins nothing, whatever its totals (protocol.md 11.6)."""
    result = game.result
    verdict = table.verdict
    if result is None or verdict is None or verdict.culprit not in result.ranking:
        return result
    culprit = verdict.culprit
    ranking = tuple(s for s in result.ranking if s != culprit) + (culprit,)
    best = result.totals[ranking[0]]
    winners = tuple(s for s in ranking[:-1] if result.totals[s] == best)
    return dataclasses.replace(result, ranking=ranking, winners=winners)
