/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
/* Constants the client and the server share (protocol/contract/constants.toml). */
#ifndef RGPU_WIRE_H
#define RGPU_WIRE_H

#define RGPU_PROTOCOL_VERSION 12
#define RGPU_ATTACH 0
#define RGPU_GOODBYE 1
#define RGPU_BARRIER 2
#define RGPU_UNPIN 3
#define RGPU_PARAMS 4
#define RGPU_PARAMS_MAX 4096
#define RGPU_MAP_HOST 5
#define RGPU_CHECKPOINT 6
#define RGPU_RESTORE 7
#define RGPU_MOVED 20001
#define RGPU_SESSION_ENDED 46
#define RGPU_PIECE_IN 2
#define RGPU_SYNC_PIECES_OUT 3
#define RGPU_PIECE_OUT 20002
#define RGPU_OUT_LATER 4
#define RGPU_LATE_OUT 20003
#define RGPU_LATE_MAX_COPIES 64
#define RGPU_LATE_MAX_BYTES 67108864
#define RGPU_BULK_MIN 262144
#define RGPU_STREAM_MIN 2097152
#define RGPU_BULK_HEAD_MAX 48
#define RGPU_HEAD_DELTA_MIN 4096
#define RGPU_HEAD_DELTA_MAX 1048576
#define RGPU_HEAD_DELTA_SLOTS 8
#define RGPU_PIECE_MIN 4194304
#define RGPU_PIECE_MAX 8388608
#define RGPU_PIECE_COUNT 16
#define RGPU_H2D_CHUNK 4194304
#define RGPU_D2H_CHUNK 16777216
#define RGPU_MAX_CHUNKS 64
#define RGPU_MAX_FRAMES 68
#define RGPU_SHM_DATA 4096
#define RGPU_RING_ASYNC 1
#define RGPU_RING_FRAMES 2
#define RGPU_RING_WRAP 0xfffffffeu
#define RGPU_RING_FRAMES_MAX 256
#define RGPU_RING_PIECE 245760

#endif
