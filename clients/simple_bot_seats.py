"""The seats that change hands (docs/protocol.md 11.5, 11.8, 11.9), as simple_bot's table
follows them: votes that a seat left, and the round they void; what the table cannot go on
without; the host's proposals of who plays a vacant seat, their approvals, and hand-overs.  A
part of simple_bot's ``Table`` (``SeatChanges``, whose state ``Table`` holds); part of
clients/simple_bot.py (see its docstring), importing nothing from ``shanghai_net``."""

from __future__ import annotations

from simple_bot_wire import HOST_AUTHOR, BotStopped, SeatTaken


class Proposal:
    """A host ``replace`` waiting for its approvals (protocol.md 11.8)."""

    def __init__(self, seq: int, body: dict) -> None:
        self.seq, self.body = seq, body
        self.approvals: set[int] = set()


class SeatChanges:
    """The part of simple_bot's ``Table`` that follows who plays each seat: see the module."""

    def auditing(self) -> bool:
        """The round's audit waits for its seeds: no vote has a place (11.5)."""
        return self.stopped or self.over and not any(map(self.hidden, range(self.n)))

    def voted(self, author: int, round_no: int, seat: int) -> None:
        """A seat's vote that ``seat`` left round ``round_no``: more than half the seats naming
        the same seat void the round; the seat pays ``leave_penalty`` and is vacant, and the
        round's contract is dealt again as the next round (once the seat is played again)."""
        if self.finished or self.auditing() or round_no != self.round_no \
                or author in self.voters.get(round_no, ()) \
                or not 0 <= seat < self.n or seat in self.vacant:
            raise BotStopped(f"the host sequenced seat {author}'s vote that seat {seat} left "
                             f"round {round_no}, which has no place (we are in round "
                             f"{self.round_no})")
        self.voters.setdefault(round_no, set()).add(author)
        self.votes.setdefault((round_no, seat), set()).add(author)
        if author == self.seat:
            self.vote = None  # sequenced: should it lapse, the seat chooses again
        self.count_votes()

    def lapse(self, seat: int) -> None:
        """``seat`` sent a deal step, a move or an approval (it was not gone), or the host timed
        it out as silent while it owed nothing (only the majority could carry them): the votes
        of the running round that it left lapse; they count no more, and their voters may vote
        again this round (11.5)."""
        lapsed = self.votes.pop((self.round_no, seat), set())
        self.voters.get(self.round_no, set()).difference_update(lapsed)

    def spend_votes(self, round_no: int) -> None:
        """The votes of round ``round_no`` made it void: they are spent, and each voter may
        vote again (a void of round 0 picks the first dealer again, still round 0: 11.5)."""
        self.voters.pop(round_no, None)
        for ballot in [key for key in self.votes if key[0] == round_no]:
            del self.votes[ballot]

    def stalled_by(self) -> set[int]:
        """The seats the table cannot go on without (11.5): `waiting_for`, and, the deal
        settled, the seats with a decision to make."""
        if self.finished or self.auditing():
            return set()
        seats = self.waiting_for()
        if self.settled() and self.phase in ("draw", "play"):
            window = self.window
            if window is None or not window.chose_stock:
                seats.add(self.turn)
            if window is not None:
                seats |= {s for s in window.order if s not in window.decided}
        return seats - set(self.vacant)

    def still_silent(self) -> set[int]:
        """The seats the host timed out as silent (not while they owed nothing) that still
        hold the table up and have signed nothing since."""
        return self.silences()[0]

    def waiting_for(self) -> set[int]:
        """The seats that owe the deal a step (11.5, "What each seat owes": a commit, a pass,
        a key share or reveal, a pick's step, a ``share_reveal``, a handed box), and those a
        replacement of a
        vacant seat waits for the approval of."""
        if self.finished or self.auditing():
            return set()
        seats: set[int] = set()
        if self.pick is not None:
            parties = set(self.pick.parties)
            seats |= parties - set(self.pick.commits) or parties - set(self.pick.nonces)
        for gen in self.gens.values():
            if len(gen.commits) < self.n:
                seats |= set(range(self.n)) - set(gen.commits)
            elif len(gen.outputs) < 2 * self.n:
                seats.add(len(gen.outputs) % self.n)
        for owers in [*self.owed.values(), *self.public_owed.values()]:
            seats |= owers
        if self.over:
            seats |= {s for s in range(self.n) if self.hidden(s)}
        for proposal in self.proposals.values():
            if proposal.body["seat"] in self.vacant:
                seats |= self.needed(proposal)
        for rebuild in self.rebuilds.values():
            seats |= set(rebuild.owing())
        for seat, number in self.handing:
            seats |= self.handed_due(seat, number)
        return seats - set(self.vacant)

    def carried(self, round_no: int, seat: int) -> bool:
        """More than half the seats voted that ``seat`` left; or it is silent since the host's
        timeout and the table cannot go on without it, and more than half the seats that can
        vote (not vacant, not it, not silent so themselves) did (11.5)."""
        votes = self.votes.get((round_no, seat), set())
        if 2 * len(votes) > self.n:
            return True
        silent, idle = self.silences()
        if seat not in silent:
            return False
        voters = set(range(self.n)) - set(self.vacant) - silent - idle - {seat}
        return 2 * len(votes & voters) > len(voters)

    def silences(self) -> tuple[set[int], set[int]]:
        """(The seats silent since the host's timeout that the table cannot go on without;
        the seats timed out while they owed nothing that still owe nothing, while every seat
        the table waits on is silent, else none): neither votes (11.5)."""
        stalled = self.stalled_by()
        silent = (self.silent.keys() - self.idle) & stalled
        if not stalled or stalled - silent:
            return silent, set()
        return silent, (self.silent.keys() & self.idle) - stalled

    def forget_idle(self) -> None:
        """The round is void: a timeout of a seat that owed nothing spoke of its stall."""
        for seat in self.idle:
            self.silent.pop(seat, None)
        self.idle.clear()

    def split_carried(self, round_no: int) -> int | None:
        """Votes against silent seats count together (11.5): once more than half the seats
        that can vote (not vacant, not silent) named one silent seat or another, the one named
        most leaves (ties: the one timed out first)."""
        silent, idle = self.silences()
        voters = set(range(self.n)) - set(self.vacant) - silent - idle
        named = {s: len(self.votes.get((round_no, s), set()) & voters) for s in silent}
        if 2 * sum(named.values()) <= len(voters):
            return None
        return max(sorted(named), key=lambda s: (named[s], -self.silent[s]))

    def count_votes(self) -> None:
        """The first seat (in seat order) whose votes of the running round carry leaves it,
        else the silent seat the votes against silent seats name together: the round is void,
        the seat pays and is vacant, the contract is dealt again."""
        if self.auditing():
            return
        round_no = self.round_no
        seat = next((s for r, s in sorted(self.votes) if r == round_no
                     and s not in self.vacant and self.carried(r, s)), None)
        if seat is None:
            seat = self.split_carried(round_no)
        if seat is None or self.lost_or_waiting(seat, round_no):
            return
        self.voided_gone(seat, round_no)

    def lost_or_waiting(self, seat: int, round_no: int) -> bool:
        """Whether the votes that carry against ``seat`` lose it with the round going on, or
        wait for more votes, instead of voiding the round (sharing on, R1: `LostSeats`)."""
        return False

    def voided_gone(self, seat: int, round_no: int, pays: bool = True) -> None:
        """``seat`` is gone: the round is void and its contract dealt again once the seat is
        played again; the seat pays (unless ``pays`` is false: it paid when it was lost)."""
        self.silent.pop(seat, None)
        self.forget_idle()
        self.spend_votes(round_no)
        self.vacant[seat] = round_no
        if pays:
            self.charge(seat)
        self.vote, self.changes = None, self.changes + 1
        if self.round_no == 0:  # voided before the first deal: the first dealer is picked
            picks = self.picks  # again as the round's next pick, once every seat is played
            self.reset()
            self.picks, self.waiting_seats = picks, True
            self.begin_deal()
            return
        self.voided.add(round_no)
        self.start_round(self.round_no + 1, again=True)

    def take_seat(self, seq: int) -> None:
        """The ``replace`` at ``seq``, approved by every seat it needs, seats its keys: the
        seat's signing and box keys are the replacement's, it is no longer vacant (and no share
        holder, unless its first player is back with both its keys).  Ours, it owes its say on
        the proposals already waiting, as if each had just come (11.8)."""
        body = self.proposals.pop(seq).body
        seat = body["seat"]
        self.keys_before[seat].add(self.sign_keys[seat])
        if body["role"] != "bot" or body["sign_key"] in self.keys_before[seat]:
            self.given_back.add(seat)  # not a stand-in: once a game (11.8)
        self.sign_keys[seat], self.box_keys[seat] = body["sign_key"], body["box_key"]
        self.box_keys_held[seat].add(body["box_key"])
        if (body["sign_key"], body["box_key"]) == self.dealt_keys[seat]:
            self.replaced.discard(seat)  # its first player, back with both its keys
        else:
            self.replaced.add(seat)
        self.roles[seat] = body["role"]
        self.vacant.pop(seat, None)
        self.boxes_due.pop(seat, None)  # its box key is the replacement's from here
        self.quit.discard(seat)
        self.unheard.add(seat)
        self.rekeyed.append(seat)
        if seat == self.seat and body["sign_key"] != self.sign_key:
            raise SeatTaken(f"seat {seat} is played by {body['name']!r} with another key "
                            f"from round {self.round_no}: the table voted us gone")
        if seat == self.taking and body["sign_key"] == self.sign_key:
            self.seat, self.taking = seat, None  # ours from this deal on (or mid-round, R1)
        if seat == self.seat:  # ours (again): we owe our say on the proposals already waiting
            self.to_approve = [q for q, p in sorted(self.proposals.items())
                               if self.seat not in p.approvals and self.approves(p.body["seat"])]

    def charge(self, seat: int) -> None:
        """``seat`` left a round: it pays ``leave_penalty``, once a leave: not for a stand-in
        (a bot a ``replace`` seated with a key new to the seat), nor again for a seat charged
        for its silence that has signed nothing since (11.5)."""
        stand_in = self.roles[seat] == "bot" and self.keys_before[seat] and \
            self.sign_keys[seat] not in self.keys_before[seat]
        if not stand_in and seat not in self.charged_silent:
            self.scores[seat] += self.rules["leave_penalty"]

    def proposed(self, seq: int, body: dict) -> None:
        """The host proposes who plays ``body["seat"]`` (a later one for the seat replaces an
        earlier one still waiting).  This seat approves any proposal for a vacant seat or one
        a stand-in bot plays (its own too, when it is that stand-in: it is a bot), and nothing
        else: nobody takes a seat from the person playing it."""
        seat, key = body["seat"], body["sign_key"]
        if self.finished or not 0 <= seat < self.n:
            raise BotStopped(f"seq {seq}: the host proposed seat {seat} of a game over or none")
        for other in range(self.n):
            if self.sign_keys[other] == key and (other != seat or seat not in self.vacant):
                raise BotStopped(f"seq {seq}: the host proposed the key seat {other} plays "
                                 f"with for seat {seat}: one key, one seat")
        for other in self.proposals.values():
            if other.body["sign_key"] == key and other.body["seat"] != seat:
                raise BotStopped(f"seq {seq}: the host proposed for seat {seat} the key it "
                                 f"proposed for seat {other.body['seat']}: one key, one seat")
        if key == self.sign_keys.get(HOST_AUTHOR):
            raise BotStopped(f"seq {seq}: the host proposed its own key for seat {seat}")
        if self.box_key_taken(body["box_key"], seat):
            raise BotStopped(f"seq {seq}: the host proposed for seat {seat} a box key another "
                             "seat has held or is proposed: one box key, one seat")
        if seat in self.given_back and (body["role"] != "bot" or key in self.keys_before[seat]
                                        or key == self.sign_keys[seat]):
            raise BotStopped(f"seq {seq}: the host proposed {body['name']!r} for seat {seat}, "
                             "which a replace gave back to its player or to a late arrival "
                             "once already: only a stand-in takes it now (11.8)")
        for old in [q for q, p in self.proposals.items() if p.body["seat"] == seat]:
            del self.proposals[old]
            self.changes += 1
            if old in self.to_approve:
                self.to_approve.remove(old)
        self.proposals[seq] = Proposal(seq, body)
        if self.approves(seat):
            self.to_approve.append(seq)

    def approves(self, seat: int) -> bool:
        """Whether this seat, played by us and not vacant, approves a ``replace`` of ``seat``:
        of a vacant seat or one a stand-in bot plays (11.8, "The reference seats' rule")."""
        return self.seat is not None and self.seat not in self.vacant and (
            seat in self.vacant or self.roles[seat] == "bot")

    def box_key_taken(self, box_key: bytes, seat: int) -> bool:
        """Whether another seat than ``seat`` has held ``box_key`` in the game, or a waiting
        ``replace`` names it for another seat (a seat's own earlier box key is allowed)."""
        return any(box_key in keys for other, keys in self.box_keys_held.items()
                   if other != seat) or any(p.body["box_key"] == box_key
                                            and p.body["seat"] != seat
                                            for p in self.proposals.values())

    def handed(self, seq: int, author: int, body: dict) -> None:
        """Seat ``author`` hands itself over: its next messages are signed with the successor's
        key (a key new to the table), its shares sealed to the successor's box key from the
        next round's deal."""
        key = body["sign_key"]
        if key in self.sign_keys.values() or any(p.body["sign_key"] == key
                                                 for p in self.proposals.values()):
            raise BotStopped(f"seq {seq}: seat {author} handed over to a key already at the "
                             "table: one key, one seat")
        if self.box_key_taken(body["box_key"], author):
            raise BotStopped(f"seq {seq}: seat {author} handed over to a box key another seat "
                             "has held or is proposed: one box key, one seat")
        self.box_keys_held[author].add(body["box_key"])
        self.keys_before[author].add(self.sign_keys[author])
        self.sign_keys[author] = key
        self.boxes_due[author] = body["box_key"]
        self.rekeyed.append(author)
        if author == self.seat:
            raise SeatTaken(f"seq {seq}: our seat {author} was handed over to {body['name']!r}")

    def approved(self, author: int, seq: int) -> None:
        proposal = self.proposals.get(seq)
        if proposal is None or author in proposal.approvals:
            raise BotStopped(f"the host sequenced seat {author}'s approval of seq {seq}, which "
                             "is no replace waiting for it (or a second one)")
        proposal.approvals.add(author)
        if author == self.seat and seq in self.to_approve:
            self.to_approve.remove(seq)
