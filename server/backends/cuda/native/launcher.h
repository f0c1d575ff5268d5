/* What the compiled serving loop (server/native/serve.c) calls of the cuda backend's launcher
 * (launches.c): one declaration of the run record and the entry points both files use. */
#ifndef RGPU_LAUNCHER_H
#define RGPU_LAUNCHER_H
#include <stddef.h>
#include <stdint.h>

typedef struct rgpu_launcher rgpu_launcher;

/* What a run served: how many calls, the last one's sequence number and face (1: runtime). A wait
 * alone in its message (rgpu_launcher_wait_alone) also settles the clock for Python (settled: 1, the
 * device time counted in done) and says how much printf output waits in the pipe (pending; -1 for
 * a device that does not capture it). */
typedef struct {
    uint32_t served;
    uint64_t last_seq;
    int runtime;
    int settled;
    double done;
    int pending;
} rgpu_launch_run;

int rgpu_launcher_wait_alone(rgpu_launcher *l, const void *header, size_t len, rgpu_launch_run *out);
uint32_t rgpu_launcher_step_shape(rgpu_launcher *l, const void *header, size_t len);
int rgpu_launcher_step(rgpu_launcher *l, const void *header, size_t len, int settle_first, rgpu_launch_run *out);

#endif
