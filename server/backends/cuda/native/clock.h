/* The cuda backend's kernel clock (clock.c): what the launch loop (launches.c) and Python
 * (server/backends/cuda/timing.py) call. */
#ifndef RGPU_CLOCK_H
#define RGPU_CLOCK_H
#include <stdint.h>

#include "rgpu_cuda.h"

typedef struct rgpu_clock rgpu_clock;

/* The driver's cuEventCreate, cuEventRecord, cuEventQuery, cuEventElapsedTime_v2 and
 * cuEventDestroy_v2 (any may be NULL for a stand-in driver that has none: a call that needs it then
 * answers CUDA_ERROR_NOT_SUPPORTED). */
rgpu_clock *rgpu_clock_new(void *create, void *record, void *query, void *elapsed, void *destroy);
void rgpu_clock_free(rgpu_clock *c);
CUresult rgpu_clock_open(rgpu_clock *c, void *stream);
CUresult rgpu_clock_close(rgpu_clock *c);
CUresult rgpu_clock_completed(rgpu_clock *c, double *done);
/* rgpu_clock_close, then rgpu_clock_completed: the session's settle at every reply, in one call. */
CUresult rgpu_clock_settle(rgpu_clock *c, double *done);
double rgpu_clock_running(rgpu_clock *c, double now);
uint64_t rgpu_clock_windows(rgpu_clock *c);
void rgpu_clock_destroy(rgpu_clock *c);
#endif
