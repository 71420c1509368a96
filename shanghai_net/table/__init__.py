"""The table protocol, sans IO: what every party computes from the host's sequenced stream of
signed game messages.  `StreamTable` (stream.py) is the game as the stream builds it; a seat's
side is `PeerTable` (seat.py) with its `Outbox`; the host's sequencer, a spectator and
`shanghai verify` run `PublicTable` (public.py).  No sockets, clocks or randomness: the trio
drivers in `shanghai_net.net` feed these objects and send what they return."""

from .fault import Fault
from .outbox import Outbox
from .public import PublicTable
from .seat import PeerTable

__all__ = ["Fault", "Outbox", "PeerTable", "PublicTable"]
