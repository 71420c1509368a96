"""What each game's transcript shows of the client: one `Outcome` for every situation, read
from the host's history and the relay's notes after the game."""

from __future__ import annotations

from ..wire.messages import (DEAL_STEPS, Approve, Complaint, Deal, GameMessage, HandOver,
                             MayI as MayIBody, PassClaim, Replace, Timeout, VoidRound)
from .kit import RematchRun, Run, client_tail
from .relay import Relay
from .situations import REMATCH_SITUATIONS, SCRIPTED, SEAT_SITUATIONS, Outcome

__all__ = ["judged", "judged_replaced", "judged_handed", "judged_rematch", "unoffered"]


def client_seat(run: Run) -> int | None:
    start, hello = run.host.start, run.relay.hello if run.relay else None
    if start is None or hello is None:
        return None
    return next((s.seat for s in start.seats if s.sign_key == hello.get("sign_key")), None)


def _steps(history, seat: int) -> list[Deal]:
    return [m.body for m in history if m.author == seat and isinstance(m.body, Deal)]


def judged(run: Run) -> list[Outcome]:
    """Every situation's outcome: the scripted ones, then what the game's transcript shows."""
    seat = client_seat(run)
    seated = seat is not None
    out = [Outcome("5", "handshake, lobby and start_game: seated and ready", seated,
                   "" if seated else "the game did not start with the client seated")]
    out += run.scripted
    seen = {o.situation for o in run.scripted}
    out += [Outcome(section, situation, False, f"not reached: {run.stopped or 'the game ended'}")
            for section, situation in SCRIPTED if situation not in seen]
    seat = seat if seated else -1  # no message has that author: every check below fails
    history = run.host.history.messages
    steps = _steps(history, seat)
    missing = [name for name in DEAL_STEPS if not any(s.step == name for s in steps)]
    out.append(Outcome("11.2", "deal steps: " + ", ".join(DEAL_STEPS), not missing,
                       f"never sent {', '.join(missing)}" if missing else f"{len(steps)} steps"))
    answers = sum(m.author == seat and isinstance(m.body, (PassClaim, MayIBody)) for m in history)
    timed_out = sum(isinstance(m.body, Timeout) and m.body.seat == seat for m in history)
    out.append(Outcome("11.4", "claim windows (MAY I): answered in time", answers > 0 and not timed_out,
                       f"{answers} answers, {timed_out} timeouts of the client's seat"))
    placed = run.relay.placed if run.relay else []
    chained = [m.seq for m in history if m.author == seat and m.basis_seq is not None
               and placed and m.basis_seq >= placed[0]]
    broken = sum(e.get("code") == "broken_chain" for e in run.relay.errors_to_client)
    out.append(Outcome("6.3", "its own messages placed (`placed`): chained as if relayed",
                       bool(chained) and not broken,
                       f"{len(placed)} placed, {len(chained)} moves on a basis past the first, "
                       f"{broken} broken_chain answers"))
    calls = sum(m.body.KIND == "call_shanghai" for m in history)
    picks = [s for s in steps if s.step == "pick_reveal" and s.data.get("round", 0) > 0]
    out.append(Outcome("11.3", "SHANGHAI pick on the client's discard", bool(picks),
                       f"{calls} calls, {len(picks)} picks the client took part in"))
    later = {s.data.get("generation") for s in steps if s.step == "pass" and s.data.get("generation", 0) > 0}
    out.append(Outcome("11.1", "reshuffle: commit and both passes of a new generation", bool(later),
                       f"generations {sorted(later)}" if later else "the client shuffled no reshuffle"))
    public = run.host.public
    over = public is not None and public.finished and public.fault is None
    process = run.done.get("process")
    errors = sorted({e.get("code") for e in run.relay.errors_to_client} - {"stale"})
    clean = over and process is not None and process.returncode == 0 and not errors
    detail = run.stopped or (f"errors answered to the client: {', '.join(map(str, errors))}; " if errors
                             else "") + client_tail(run.done)
    out.append(Outcome("11.3", "the game's end: every round audited, the client exits 0", clean, detail))
    return out


def unoffered(run: Run) -> list[str]:
    """What a scripted game that ended cleanly with the client seated never gave the client the
    chance to do, by the luck of the deal (the client draws its own seeds): a SHANGHAI call on
    its discard (no discard of its extended a meld on the table while our peers could call), a
    reshuffle (a round ended before the stock ran out).  Such a game proves nothing either way:
    the kit plays the scripted game again."""
    seat = client_seat(run)
    public = run.host.public
    if seat is None or public is None or not public.finished or public.fault is not None \
            or run.stopped:
        return []
    steps = [m.body for m in run.host.history.messages if isinstance(m.body, Deal)]
    missing = []
    if not any(s.step == "pick_commit" and s.data.get("round", 0) > 0
               and seat in s.data.get("parties", ()) for s in steps):
        missing.append("SHANGHAI call on the client's discard")
    if not any(s.step == "commit" and s.data.get("generation", 0) > 0 for s in steps):
        missing.append("reshuffle")
    return missing


def _clean_end(run: Run, void_seq: int | None = None) -> tuple[bool, str]:
    """Whether the game ended with every round audited and no complaint, the host answered the
    client nothing but ``stale`` (or a refusal the vote at ``void_seq`` overtook) and the
    client exited 0; what was seen."""
    public = run.host.public
    over = public is not None and public.finished and public.fault is None
    complaints = sum(isinstance(m.body, Complaint) for m in run.host.history.messages)
    errors = sorted({str(e.get("code")) for e in run.relay.errors_to_client
                     if e.get("code") != "stale" and not _overtaken(run.relay, e, void_seq)})
    process = run.done.get("process")
    clean = over and not complaints and not errors and process is not None \
        and process.returncode == 0
    detail = run.stopped or "; ".join(
        ([f"the game stopped: {public.fault}"] if public is not None and public.fault else [])
        + ([f"{complaints} complaints"] if complaints else [])
        + ([f"errors answered to the client: {', '.join(errors)}"] if errors else [])
        + [client_tail(run.done)])
    return clean, detail


def _overtaken(relay: Relay, error: dict, void_seq: int | None) -> bool:
    """An ``out_of_turn`` refusal that the table's moving on overtook, no fault of the
    client's: of its vote or approval (the others' votes void the round first), or of a
    message it sent before it had been sent the vote that voided the round (at ``void_seq``),
    a step the voided round no longer owes."""
    kind, seen = relay.sent.get(error.get("ref_counter"), ("", -1))
    return error.get("code") == "out_of_turn" and (
        kind in ("void_round", "approve") or (void_seq is not None and seen < void_seq))


def _replace_of(history, seat: int | None) -> GameMessage | None:
    return next((m for m in history if isinstance(m.body, Replace) and m.body.seat == seat), None)


def judged_replaced(run: Run) -> list[Outcome]:
    """The game where the client's neighbour is voted gone and the host's bot replaces it."""
    seat, leaver = client_seat(run), run.leaver
    history = run.host.history.messages
    votes: set[int] = set()
    void = None
    for m in history:
        if isinstance(m.body, VoidRound) and m.body.seat == leaver and leaver is not None:
            votes.add(m.author)
            if void is None and 2 * len(votes) > run.host.players:
                void = m
    voted = seat in votes
    on = void is not None and any(m.author == seat and m.seq > void.seq for m in history)
    out = [Outcome(*SEAT_SITUATIONS[0], on,
                   f"seat {leaver} voted gone at seq {void.seq}; the client "
                   f"{'voted' if voted else 'did not vote'}" if void is not None else
                   f"no majority voted seat {leaver} gone: {run.stopped or 'the game ended'}")]
    replace = _replace_of(history, leaver)
    approved = replace is not None and any(m.author == seat and isinstance(m.body, Approve)
                                           and m.body.seq == replace.seq for m in history)
    out.append(Outcome(*SEAT_SITUATIONS[1], approved,
                       f"replace at seq {replace.seq}" + ("" if approved else ": not approved")
                       if replace is not None else "the host proposed no replacement"))
    again = void.body.round + 1 if void is not None else None
    sealed = [m.seq for m in history if m.author == seat and isinstance(m.body, Deal)
              and m.body.step == "shares" and again is not None
              and m.body.data.get("round", 0) >= again
              and any(box.get("to") == leaver for box in m.body.data.get("boxes", ()))]
    clean, detail = _clean_end(run, void.seq if void is not None else None)
    out.append(Outcome(*SEAT_SITUATIONS[2], bool(sealed) and clean,
                       f"{len(sealed)} shares sealed to the new holder of seat {leaver}; {detail}"))
    out.append(_judged_hand_over(run, seat, clean, detail))
    return out


def _judged_hand_over(run: Run, seat: int | None, clean: bool, detail: str) -> Outcome:
    """A kit seat handed over in round 1: its successor played on, the client sealed its
    shares of a later round to the successor, and the game ended clean."""
    history, handed = run.host.history.messages, run.handed
    over = next((m for m in history if isinstance(m.body, HandOver) and m.author == handed), None)
    if over is None:
        return Outcome(*SEAT_SITUATIONS[5], False, f"no kit seat was handed over "
                                                     f"({run.stopped or 'the game ended'})")
    played = sum(m.author == handed and m.seq > over.seq for m in history)
    later = [m.seq for m in history if m.author == seat and isinstance(m.body, Deal)
             and m.body.step == "shares" and m.body.data.get("round", 0) > 1
             and any(box.get("to") == handed for box in m.body.data.get("boxes", ()))]
    return Outcome(*SEAT_SITUATIONS[5], bool(played) and bool(later) and clean,
                   f"seat {handed} handed over at seq {over.seq}; {played} messages of its "
                   f"successor; {len(later)} shares of the client's sealed to it in later "
                   f"rounds; {detail}")


def judged_handed(run: Run) -> list[Outcome]:
    """The game where the client is handed a seat voted gone.  Until its first message in the
    seat is sequenced it may sign nothing; after that the host may answer it ``stale`` (a
    move that raced the game's moving on), as any seat, and nothing else (`_clean_end`)."""
    history = run.host.history.messages
    hello, seat = run.relay.hello if run.relay else None, run.leaver
    replace = _replace_of(history, seat)
    ours = replace is not None and hello is not None and replace.body.sign_key == hello.get("sign_key")
    proved = bool(run.relay and run.relay.pairs and run.relay.pairs[0].proved)
    first = next((m for m in history if replace is not None and m.seq > replace.seq
                  and m.author == seat), None)
    sent = run.relay.sent if run.relay else {}
    early = {counter: kind for counter, (kind, _) in sent.items()
             if first is None or counter < first.counter}
    refused = sorted({f"{e.get('code')} ({early[e['ref_counter']]})"
                      for e in run.relay.errors_to_client if e.get("ref_counter") in early}) \
        if run.relay else []
    if hello is None or not ours:
        seen = "the client never said hello" if hello is None else "its keys were never proposed"
        seen += f" ({run.stopped or client_tail(run.done)})"
    else:
        seen = ("proof sent" if proved else "no proof") + (
            f"; it signed {', '.join(sorted(set(early.values())))} before it played the seat"
            if early else "") + (f"; the host refused: {', '.join(refused)}" if refused else "")
    out = [Outcome(*SEAT_SITUATIONS[3], ours and proved and not early, seen)]
    committed = first is not None and isinstance(first.body, Deal) and first.body.step == "commit"
    clean, detail = _clean_end(run)
    out.append(Outcome(*SEAT_SITUATIONS[4], ours and committed and clean,
                       (f"its first message, at seq {first.seq}: {first.body.KIND} "
                        f"{getattr(first.body, 'step', '')}; " if first is not None
                        else "it never played the seat; ") + detail))
    return out


def judged_rematch(run: RematchRun) -> list[Outcome]:
    """The client asked for the rematch, and played the next game at its seat, with its key
    and a fresh nonce, to its end (every round audited, nothing but ``stale`` answered to it,
    exit 0)."""
    relay, opened = run.relay, run.server.opened
    asked = relay is not None and relay.rematches > 0
    out = [Outcome(*REMATCH_SITUATIONS[0], asked,
                   "" if asked else run.stopped or "the client sent no rematch")]
    key = relay.hello.get("sign_key") if relay is not None and relay.hello else None
    starts = [t.host.start for t in opened if t.host.start is not None]
    seats = [next((s.seat for s in start.seats if s.sign_key == key), None) for start in starts]
    second = opened[1].host if len(opened) > 1 else None
    over = second is not None and second.public is not None and second.public.finished \
        and second.public.fault is None
    again = len(seats) == 2 and seats[0] is not None and seats[0] == seats[1] and \
        starts[0].nonces[seats[0]] != starts[1].nonces[seats[1]]
    errors = sorted({str(e.get("code")) for e in relay.errors_to_client} - {"stale"}) \
        if relay is not None else []
    process = run.done.get("process")
    clean = over and again and not errors and process is not None and process.returncode == 0
    detail = run.stopped or "; ".join(
        ([] if again else [f"its seat in each game: {seats}"])
        + ([] if over else ["the next game did not end"])
        + ([f"errors answered to the client: {', '.join(errors)}"] if errors else [])
        + [client_tail(run.done)])
    out.append(Outcome(*REMATCH_SITUATIONS[1], clean, detail))
    return out
