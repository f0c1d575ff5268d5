"""generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit"""
# protocol/contract/constants.toml: the client library has the same values (rgpu_wire.h)

PROTOCOL_VERSION = 7
ATTACH = 0
GOODBYE = 1
BARRIER = 2
UNPIN = 3
PARAMS = 4
PARAMS_MAX = 4096
MOVED = 20001
SESSION_ENDED = 46
PIECE_IN = 2
SYNC_PIECES_OUT = 3
PIECE_OUT = 20002
OUT_LATER = 4
LATE_OUT = 20003
PIECE_MIN = 4194304
PIECE_MAX = 8388608
PIECE_COUNT = 8
H2D_CHUNK = 4194304
D2H_CHUNK = 16777216
MAX_CHUNKS = 64
MAX_FRAMES = 68
SHM_DATA = 4096
