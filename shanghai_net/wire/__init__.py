"""The shanghai-net wire protocol, sans IO: framing, messages, signatures, connection states.

See docs/protocol.md for the specification and protocol/ for schemas and golden vectors.
"""

from .connection import NEED_DATA, SUPPORTED_VERSIONS, Connection, ConnectionClosed
from .errors import ERROR_CODES, FATAL_CODES, LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import DEFAULT_MAX_FRAME, FrameDecoder, decode_frame_body, encode_frame
from .messages import *  # noqa: F403 (the catalogue is the public API)
from .messages import __all__ as _message_names
from .signing import (DOMAIN, GENESIS, PROOF_DOMAIN, START_DOMAIN, Chain, canonical, chain_hash,
                      check_proof, proof_bytes, sign_game, sign_wire, sign_proof, signed_bytes, start_digest)
from .state import CLIENT, HOST, Role, State

__all__ = [
    "Connection", "ConnectionClosed", "NEED_DATA", "SUPPORTED_VERSIONS",
    "ERROR_CODES", "FATAL_CODES", "ProtocolError", "LocalProtocolError", "RemoteProtocolError",
    "DEFAULT_MAX_FRAME", "FrameDecoder", "decode_frame_body", "encode_frame",
    "DOMAIN", "GENESIS", "START_DOMAIN", "Chain", "canonical", "chain_hash", "sign_game", "sign_wire",
    "signed_bytes", "start_digest", "PROOF_DOMAIN", "proof_bytes", "sign_proof", "check_proof",
    "CLIENT", "HOST", "Role", "State",
    *_message_names,
]
