"""The cuda backend's compiled part, librgpu_launches.so (native/launches.c, clock.c and printf.c,
built by libhook/build.sh): its declarations and its loading, shared by the launch loop (launches.py),
the kernel clock (timing.py) and the device printf capture (printf.py)."""
from __future__ import annotations

import cffi
import structlog

log = structlog.get_logger()

LIBRARY = "librgpu_launches.so"
# the structs below are also defined in C; tests/unit/server/test_native_layouts.py has gcc check that both
# lay them out alike, field by field
_CDEF = """
typedef struct rgpu_clock rgpu_clock;
rgpu_clock *rgpu_clock_new(void *create, void *record, void *query, void *elapsed, void *destroy);
void rgpu_clock_free(rgpu_clock *c);
int rgpu_clock_open(rgpu_clock *c, void *stream);
int rgpu_clock_close(rgpu_clock *c);
int rgpu_clock_completed(rgpu_clock *c, double *done);
int rgpu_clock_settle(rgpu_clock *c, double *done);
double rgpu_clock_running(rgpu_clock *c, double now);
uint64_t rgpu_clock_windows(rgpu_clock *c);
void rgpu_clock_destroy(rgpu_clock *c);

int rgpu_printf_pending(int fd);

typedef struct rgpu_launcher rgpu_launcher;
typedef struct { uint32_t served; uint64_t last_seq; int runtime; int settled; double done; int pending;
                 uint32_t kernels; } rgpu_launch_run;
rgpu_launcher *rgpu_launcher_new(void *launch, rgpu_clock *clock, uint64_t driver_id, uint64_t runtime_id);
void rgpu_launcher_free(rgpu_launcher *l);
int rgpu_launcher_learn(rgpu_launcher *l, uint64_t h, void *object, int kind);
void rgpu_launcher_forget(rgpu_launcher *l, uint64_t h);
void rgpu_launcher_clear(rgpu_launcher *l);
void rgpu_launcher_run(rgpu_launcher *l, const void *header, size_t len, uint64_t token, uint32_t start,
                       rgpu_launch_run *out);
void rgpu_launcher_waits(rgpu_launcher *l, void *query, void *synchronize, const uint64_t ids[4]);
void rgpu_launcher_more_waits(rgpu_launcher *l, void *event_query, void *event_synchronize, void *ctx_synchronize,
                              const uint64_t ids[6]);
void rgpu_launcher_printf(rgpu_launcher *l, int fd);
void rgpu_launcher_graphs(rgpu_launcher *l, void *graph_launch, uint64_t id);
void rgpu_launcher_clusters(rgpu_launcher *l, void *launch_ex, uint64_t id);
void rgpu_launcher_attributes(rgpu_launcher *l, void *set, uint64_t id, const int64_t attrs[2]);
int rgpu_launcher_attribute(rgpu_launcher *l, void *object, int64_t attr, int32_t value);
int rgpu_launcher_attribute_of(rgpu_launcher *l, void *object, int64_t attr, int32_t *value);
void rgpu_launcher_poll(rgpu_launcher *l, long ns);
int rgpu_launcher_done_object(void *unused);
int rgpu_launcher_done_device(void);
int rgpu_launcher_aliases(rgpu_launcher *l, const uint64_t *triples, size_t n);
int rgpu_launcher_wait(rgpu_launcher *l, const void *header, size_t len, uint64_t token, uint32_t index,
                       rgpu_launch_run *out);
int rgpu_launcher_wait_alone(rgpu_launcher *l, const void *header, size_t len, rgpu_launch_run *out);
typedef struct rgpu_copier rgpu_copier;
int rgpu_launcher_step_checked(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                               int settle_first, rgpu_launch_run *out);
uint32_t rgpu_launcher_shape(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, unsigned char *seg,
                             uint64_t seg_size, int *kind, uint64_t *count);
void rgpu_launcher_run_calls(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             rgpu_launch_run *out);
int rgpu_launcher_frame_step(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             int settle_first, void *buf, uint64_t cap, rgpu_launch_run *out);
typedef struct { uint64_t id; uint32_t op, width, stream, runtime; } rgpu_copy_call;
rgpu_copier *rgpu_copier_new(rgpu_launcher *l, void *htod, void *dtoh, void *set8, void *set16, void *set32,
                             const rgpu_copy_call *calls, uint32_t ncalls);
void rgpu_copier_free(rgpu_copier *c);
void rgpu_copier_frames(rgpu_copier *c, const void *const *p, const uint64_t *n, uint32_t count);
uint32_t rgpu_copier_frames_left(const rgpu_copier *c);
uint64_t rgpu_copier_frame_bytes(const rgpu_copier *c);
uint32_t rgpu_copier_pieces(const rgpu_copier *c);
int rgpu_copier_piece(rgpu_copier *c, const void *header, size_t len, const void *data, uint64_t n, uint64_t *seq,
                      int *runtime);
void rgpu_copier_late_buffer(rgpu_copier *c, void *buf, uint64_t cap);
uint32_t rgpu_copier_late_n(const rgpu_copier *c);
void rgpu_copier_late_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count);
void rgpu_copier_pulls(rgpu_copier *c, uint64_t id);
uint32_t rgpu_copier_pull_n(const rgpu_copier *c);
void rgpu_copier_pull_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count,
                          uint8_t *digest, int *same);
int rgpu_copier_track(rgpu_copier *c, uint64_t start, uint64_t size);
void rgpu_copier_untrack(rgpu_copier *c, uint64_t start);
void rgpu_copier_clear(rgpu_copier *c);
void rgpu_copier_hold(rgpu_copier *c);
void rgpu_copier_let_go(rgpu_copier *c);
void rgpu_copier_live(const rgpu_copier *c, const uint64_t *ranges, size_t n, uint8_t *live);
void rgpu_copier_plain(rgpu_copier *c, uint64_t start, int plain);
void rgpu_copier_memory(rgpu_copier *c, void *alloc, void *free_);
void rgpu_copier_dtod(rgpu_copier *c, void *dtod);
void rgpu_copier_events(rgpu_copier *c, void *record);
int rgpu_copier_pin(rgpu_copier *c, const char *name, const uint8_t *nonce, uint64_t size, uint64_t addr,
                    uint64_t *bytes);
void rgpu_copier_unpin(rgpu_copier *c, const char *name);
void rgpu_copier_arena(rgpu_copier *c, void *arena);
void rgpu_copier_flat(rgpu_copier *c, uint64_t base, void *host, uint64_t span);
int64_t rgpu_copier_spare(const rgpu_copier *c);
void rgpu_copier_set_spare(rgpu_copier *c, int64_t spare, int64_t cap);

typedef struct rgpu_arena rgpu_arena;
rgpu_arena *rgpu_arena_open(void *const f[7], int dev, uint64_t gran, uint64_t hint, uint64_t span,
                            int shareable);
uint64_t rgpu_arena_base(const rgpu_arena *a);
uint64_t rgpu_arena_span(const rgpu_arena *a);
void rgpu_arena_limit(rgpu_arena *a, uint64_t n);
int rgpu_arena_alloc(rgpu_arena *a, uint64_t size, uint64_t *addr);
int rgpu_arena_alloc_aligned(rgpu_arena *a, uint64_t size, uint64_t align, uint64_t *addr);
int rgpu_arena_place(rgpu_arena *a, uint64_t addr, uint64_t size);
int rgpu_arena_holds(const rgpu_arena *a, uint64_t addr);
int rgpu_arena_lent(const rgpu_arena *a, uint64_t addr, uint64_t span);
int rgpu_arena_free(rgpu_arena *a, uint64_t addr);
void rgpu_arena_close(rgpu_arena *a);
int rgpu_arena_physical(const rgpu_arena *a, uint64_t addr, uint64_t *handle, uint64_t *start, uint64_t *len);
int rgpu_arena_shareable(const rgpu_arena *a);
"""

ffi = cffi.FFI()
ffi.cdef(_CDEF)
_lib = None
_unavailable = ""  # why the library could not be loaded (logged once per worker)


def library():
    """The loaded library, or None (logged once: why)."""
    global _lib, _unavailable
    if _lib is None and not _unavailable:
        from rgpu.paths import LibraryMissing, libdir
        try:
            _lib = ffi.dlopen(str(libdir() / LIBRARY))
        except (LibraryMissing, OSError) as e:
            _unavailable = str(e)
            log.warning("compiled_backend_unavailable", reason=_unavailable)
    return _lib


def unavailable() -> str:
    return _unavailable


def address(obj) -> int:
    """A driver object or function (a cdata pointer of any cffi) as a number; None is 0."""
    return int(ffi.cast("uintptr_t", obj)) if obj is not None else 0
