/* Whether a session's worker still sends anything: one wait's looks at its connection (liveness.c). */
#ifndef RGPU_LIVENESS_H
#define RGPU_LIVENESS_H

/* Two looks of one wait further apart than this: the program was stopped in between (Ctrl-Z, a
 * debugger) and the worker's silence is counted again from the later one. */
#define RGPU_STOPPED_GAP_S 3.0

typedef struct { double start, last; } rgpu_watch;

void rgpu_watch_begin(rgpu_watch *w, double now);
/* 1 when the TCP connection `fd` brought no data for `silence` seconds of this wait (*quiet_s: for how
 * long, as its kernel saw it); 0 otherwise: nothing came for less, no look is due (one a second), or
 * `fd` is no TCP socket. */
int rgpu_watch_look(rgpu_watch *w, int fd, double now, double silence, double *quiet_s);

#endif
