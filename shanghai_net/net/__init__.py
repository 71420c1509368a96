"""Networked play: the sans-IO game protocol of one seat (`PeerTable`), the host's public view
(`PublicTable`), and their trio drivers (`shanghai_net.net.host`, `shanghai_net.net.peer`)."""

from .fault import Fault
from .outbox import Outbox
from .peer_table import PeerTable
from .public_table import PublicTable

__all__ = ["Fault", "Outbox", "PeerTable", "PublicTable"]
