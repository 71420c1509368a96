"""The conformance kit: a test host that drives a client through scripted situations.

The client under test is started as a command (``{host}`` and ``{port}`` in it are filled in). It
joins a table that our own `Host` runs on 127.0.0.1, beside three of our peers (`Peer` with a bot
that claims with MAY I and calls SHANGHAI whenever the rules let it), so the kit follows every
change of the protocol that the reference implementation makes. The client reaches the host
through a `Relay`, which forwards whole frames both ways and can also put frames of its own
before the client or cut its connection: that is how bad input, a fatal frame and a dropped
connection are scripted. Nothing is rigged that a real table could not do: the kit chooses the
rules (`KIT_RULES`), its own peers' moves and the moments of its own frames; the deal is the
real one, with the client's seeds in it.

Two more games make seats change hands (protocol.md 11.8, `SEAT_SITUATIONS`): in one a kit peer
beside the client leaves for good, the others vote it gone and the host's stand-in bot takes the
seat (the client approves it and uses its keys from the next deal); in the other the client is
handed a seat voted gone (the relay holds its ``hello`` back until the host has proposed its
keys), follows the game and plays the seat from the next deal.

Two short tables break one box key, one seat (protocol.md 6.2, 11.8, `box_keys`): the client
is sent a `start_game` that gives two seats one box key, or a ``replace`` the host sequenced
with another seat's box key; the relay holds back all of the host's after it, and the client
must leave, having signed nothing of that game, or approved nothing.

Three short tables share seeds (protocol version 10's dropout-tolerant deal, docs/dealing.md,
`sharing`), a kit seat cheating at each: it deals the client a share box that does not open
(the client must complain of it, naming the dealer, and pass no more of that generation), or,
with another seat silent at its seeds, its seeds carry a wrong share of that seat's seed, or the
silent seat committed to another seed than it shares; after the audit the relay holds the host
back, and the client must take the verdict and sign nothing more.  Two more (`lost`) lose a seat
mid-round (R1): a kit seat publishes a wrong share of it (the client must take the verdict), or
the host keeps a key share to it past its stand-in's approvals (the client must hand the
stand-in its box only once the seating waited for that share).

Each situation prints one line with the protocol.md section it covers and PASS or FAIL; the
exit status is 0 only if all pass (docs/protocol.md, "Testing a client: the conformance kit").

The package: `situations` (what is tried, and an `Outcome` line), `relay` (the `Relay`), `kit` (our
peers and one table of the kit), `runner` (the games, `run_conformance`), `report` (each
situation judged from the transcript), `box_keys` (the two tables that break one box key, one
seat), `sharing` (the three tables of the seed sharing), `lost` (the two of R1); `shanghai
conformance` is the command in cli/.
"""

from .runner import run_conformance, scripted_games
from .situations import Outcome

__all__ = ["run_conformance", "scripted_games", "Outcome"]
