/* What the compiled serving loop (server/native/serve.c) calls of the cuda backend's launcher
 * (launches.c): one declaration of the run record and the entry points both files use. */
#ifndef RGPU_LAUNCHER_H
#define RGPU_LAUNCHER_H
#include <stddef.h>
#include <stdint.h>

#include "mpack.h"

typedef struct rgpu_launcher rgpu_launcher;
typedef struct rgpu_copier rgpu_copier; /* the copies and memsets the serving loop serves (copies.c) */

/* What a run served: how many calls, the last one's sequence number and face (1: runtime), and how
 * many of them were kernel launches (a step's memsets and device-to-device copies are not: the
 * scheduler counts kernels). A wait alone in its message (rgpu_launcher_wait_alone) also settles the
 * clock for Python (settled: 1, the device time counted in done) and says how much printf output
 * waits in the pipe (pending; -1 for a device that does not capture it). */
typedef struct {
    uint32_t served;
    uint64_t last_seq;
    int runtime;
    int settled;
    double done;
    int pending;
    uint32_t kernels;
} rgpu_launch_run;

int rgpu_launcher_wait_alone(rgpu_launcher *l, const void *header, size_t len, rgpu_launch_run *out);
/* A step: a message of calls the loop runs (launches; with a copier, also async memsets,
 * device-to-device copies and copies from and to pinned segments the worker mapped:
 * rgpu_copier_step_call) and then one wait, as rgpu_launcher_shape (below) found it. */
int rgpu_launcher_step_checked(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                               int settle_first, rgpu_launch_run *out);

/* The shape of such a message, whose last call may also be a sync copy instead of the wait (launches.c):
 * the calls before it, and which last call (*kind). */
enum { RGPU_STEP_WAIT = 1, RGPU_STEP_COPY = 2, RGPU_STEP_FRAME = 3, RGPU_STEP_ASYNC = 4 };
uint32_t rgpu_launcher_shape(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, unsigned char *seg,
                             uint64_t seg_size, int *kind, uint64_t *count);
/* The `n` calls of a message it found RGPU_STEP_ASYNC, run (out->served: how many did). */
void rgpu_launcher_run_calls(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             rgpu_launch_run *out);

/* For the copies (copies.c): launches.c's stream lookup, idle check, stream wait and message end. */
int rgpu_launcher_stream(rgpu_launcher *l, uint64_t h, void **stream);
int rgpu_launcher_event(rgpu_launcher *l, uint64_t h, void **event);
int rgpu_launcher_idle(rgpu_launcher *l);
int rgpu_launcher_finish(rgpu_launcher *l, void *stream, uint64_t bytes); /* a copy of `bytes` queued */
void rgpu_launcher_end(rgpu_launcher *l, rgpu_launch_run *out);

/* A step's async D2H copies into pinned memory whose data must be there before the step's reply (`sync`
 * RGPU_OUT_LATER with a pinned record: a --failover session's, libhook's memory/memcpy.c): how many, and
 * the stream they are on (`one`: all on that one). */
typedef struct {
    int n, one;
    void *stream;
} rgpu_step_late;

/* The data frames of a socket message the next pass reads (copies.c rgpu_copier_frames: an async H2D
 * copy with one frame takes the next, as a large copy's piece does), those the pass left, the bytes it
 * copied from them, and how many of its copies were pieces (PIECE_IN). */
void rgpu_copier_frames(rgpu_copier *c, const void *const *p, const uint64_t *n, uint32_t count);
uint32_t rgpu_copier_frames_left(const rgpu_copier *c);
uint64_t rgpu_copier_frame_bytes(const rgpu_copier *c);
uint32_t rgpu_copier_pieces(const rgpu_copier *c);
int rgpu_copier_piece(rgpu_copier *c, const void *header, size_t len, const void *data, uint64_t n, uint64_t *seq,
                      int *runtime);
int rgpu_copier_is_piece(const rgpu_copier *c, const void *header, size_t len);
/* A message of one sync H2D copy whose data is its one frame (copies.c rgpu_copier_h2d_frame), run. */
int rgpu_copier_h2d_frame(rgpu_copier *c, const void *header, size_t len, rgpu_launch_run *out);
/* A message of one sync D2H copy whose data goes back in frames, too large for the frame buffer (copies.c
 * rgpu_copier_d2h_alone), and its reading into the caller's buffer (rgpu_copier_d2h). */
typedef struct {
    uint64_t dev, count, seq;
    int pieces; /* the client takes it in pieces (SYNC_PIECES_OUT) */
    int runtime;
} rgpu_d2h;
int rgpu_copier_d2h_alone(const rgpu_copier *c, const void *header, size_t len, rgpu_d2h *d);
int rgpu_copier_d2h(rgpu_copier *c, void *buf, uint64_t dev, uint64_t n);
/* The buffer the late copies a step ends with (OUT_LATER without a pinned region) are read into once its
 * wait is answered (copies.c late_frame_one), how many the pass took, each one's seq, place and bytes,
 * and their reading (rgpu_launcher_step_checked makes it). */
void rgpu_copier_late_buffer(rgpu_copier *c, void *buf, uint64_t cap);
uint32_t rgpu_copier_late_n(const rgpu_copier *c);
void rgpu_copier_late_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count);
int rgpu_copier_late_run(rgpu_copier *c);
/* The managed pulls (rgpuManagedPull) a step's wait may carry from another host, read into the same
 * buffer after the late copies once the wait is answered (copies.c rgpu_copier_pull_call). */
void rgpu_copier_pulls(rgpu_copier *c, uint64_t id);
int rgpu_copier_pull_call(rgpu_copier *c, mp_reader *r);
int rgpu_copier_pull_run(rgpu_copier *c);
uint32_t rgpu_copier_pull_n(const rgpu_copier *c);
void rgpu_copier_pull_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count,
                          uint8_t *digest, int *same);

/* The call at `r` if it is an async memset, device-to-device copy, pinned-memory copy, H2D copy with its
 * data in the message's next frame (rgpu_copier_frames; a large copy's piece too) or event record the copier serves in a step: 1
 * (run: queued on its stream; *seq and *runtime its seq and face), or 0 (nothing queued; `r` is then
 * anywhere). Everything it takes is checked as the Python path checks it. With `late`, also such a
 * copy whose data must be in place before the next reply, counted there: the caller serves it only
 * where the step's wait covers its stream. */
int rgpu_copier_step_call(rgpu_copier *c, mp_reader *r, int run, uint64_t *seq, int *runtime, rgpu_step_late *late);

/* What a copy or memset the copier served asks of the reply and the session's counts. */
#define RGPU_PLACE_MAX 8 /* placed allocations a message the copier serves may begin with */
typedef struct {
    int sync;           /* 1: it wants a reply (0: an async memset) */
    uint64_t out_len;   /* a D2H copy's bytes, in the segment at RGPU_SHM_DATA (the reply names them) */
    uint64_t shm_in;    /* an H2D copy's bytes read from the segment */
    uint64_t addr;      /* an allocation made (size > 0: the reply's out) or freed (size < 0), else 0 */
    int64_t size;
    uint32_t nplaced;   /* the allocations the client placed, served before the call (rgpuMemPlace) */
    uint64_t placed_addr[RGPU_PLACE_MAX];
    int64_t placed_size[RGPU_PLACE_MAX];
} rgpu_copy_done;
typedef struct rgpu_quota rgpu_quota; /* server/native/quota.c */

/* 1: the message (one frame, not decoded by Python) was one copy, memset, allocation or free (quota:
 * the session's memory charge, NULL: allocations and frees are Python's), served whole (out: its seq
 * and face, the clock settled and the printf pipe checked; done: what its reply and counts need).
 * 0: Python's (nothing ran, or what ran did nothing Python's run of the same call would not redo). */
int rgpu_copier_serve(rgpu_copier *c, const void *header, size_t len, unsigned char *seg, uint64_t seg_size,
                      rgpu_quota *quota, rgpu_launch_run *out, rgpu_copy_done *done);
/* A step's last call (rgpu_launcher_copy_step); the step itself, served as rgpu_launcher_step_checked
 * serves one, its copy once every stream is done. */
int rgpu_copier_last(rgpu_copier *c, mp_reader *r, const void *end, unsigned char *seg, uint64_t seg_size, int run,
                     rgpu_launch_run *out, rgpu_copy_done *done);
int rgpu_launcher_copy_step(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                            int settle_first, unsigned char *seg, uint64_t seg_size, rgpu_launch_run *out,
                            rgpu_copy_done *done);
/* The same on the socket, for a last call that is a sync device-to-host copy whose data goes back in a
 * frame (the worker's Python sends it). */
int rgpu_copier_frame_d2h(rgpu_copier *c, mp_reader *r, const void *end, void *buf, uint64_t cap, int run,
                          uint64_t *count, rgpu_launch_run *out);
int rgpu_launcher_frame_step(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             int settle_first, void *buf, uint64_t cap, rgpu_launch_run *out);
#endif
