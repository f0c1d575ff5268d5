/* Whether a session's worker is gone although its connection is up. A session worker pings its client
 * every second (server/liveness.py), and this library pings it, which any ZeroMQ peer answers; so a
 * worker whose process froze, or whose host froze, lost its power or was cut off, sends nothing.
 * Linux's TCP_INFO says how long ago the connection last brought data, as the kernel saw it, pings
 * included, also while the program is in the middle of sending a message (where a ping of ours
 * queues behind it; the worker's still come).
 *
 * That is what ZeroMQ's heartbeat timeout would say, but counted on the waiting thread's clock, one
 * look a second: libzmq runs its timers before it reads what came, so a program continued after a
 * stop longer than the timeout would take its worker for gone before reading the answer that came
 * meanwhile. Here a gap between looks (the program was stopped) starts the count again, and a verdict
 * needs that much silence within one wait. */
#include "liveness.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

void rgpu_watch_begin(rgpu_watch *w, double now) {
    w->start = w->last = now;
}

int rgpu_watch_look(rgpu_watch *w, int fd, double now, double silence, double *quiet_s) {
    if (now - w->last < 1.0) return 0;
    if (now - w->last > RGPU_STOPPED_GAP_S) w->start = now;
    w->last = now;
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 || len < 64) return 0;
    double quiet = ti.tcpi_last_data_recv * 1e-3, watched = now - w->start;
    *quiet_s = quiet;
    return (quiet < watched ? quiet : watched) >= silence;
}
