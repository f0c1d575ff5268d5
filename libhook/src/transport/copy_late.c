/* The copy path of an async D2H copy into pinned memory the worker does not map (RGPU_OUT_LATER):
 * its data comes on the socket before the next reply, and memory it is still to come into is drained
 * before it is read or freed. A --failover session beside its worker names the memory instead, and the
 * worker writes the data there before its next reply (memcpy.c): the same wait, no message. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "copies.h"
#include "rgpu_envelope.h"
#include "failover.h"
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

/* A LATE_OUT message (its head read): the data of the async D2H copy `rseq` (RGPU_OUT_LATER), into the
 * pinned memory it was made for, whose entry goes. Its frames are read here in any case. */
void rgpu_take_late(rgpu_session *s, uint64_t rseq, zmq_msg_t *head) {
    int at = -1;
    for (int i = 0; i < s->nlate && at < 0; i++)
        if (s->late[i].seq == rseq) at = i;
    size_t got = 0;
    for (int more = zmq_msg_more(head); more;) {
        zmq_msg_t b;
        zmq_msg_init(&b);
        size_t into = 0, room = at >= 0 && got < s->late[at].len ? s->late[at].len - got : 0;
        more = rgpu_recv_part_into(s, &b, room ? (char *)s->late[at].dst + got : NULL, room, &into);
        size_t len = into ? into : zmq_msg_size(&b);
        if (!into && at >= 0 && got + len <= s->late[at].len) memcpy((char *)s->late[at].dst + got, zmq_msg_data(&b), len);
        got += len;
        zmq_msg_close(&b);
    }
    if (at < 0) return;
    if (got != s->late[at].len)
        rgpu_log(RGPU_LOG_ERROR, "an async copy of %zu bytes out of the device brought %zu", s->late[at].len, got);
    else if (s->fo) rgpu_fo_seen_late(s, rseq, s->late[at].dst, got); /* what the program will read */
    s->late_bytes -= s->late[at].len;
    s->late[at] = s->late[--s->nlate];
}

/* A reply to seq came: the copies sent before it whose data did not come failed (their error is the
 * session's deferred one), and theirs never will. Those whose data the worker wrote into the memory
 * they named (`seg`) have it there now: a --failover session digests it for its log before this
 * reply's own entry, in seq order (the log's entries are), unless the reply brings an error of
 * earlier work, which may be the copy's own (its data then never came: nothing the program saw). */
void rgpu_late_settled(rgpu_session *s, uint64_t seq, int deferred) {
    for (;;) {
        int at = -1;
        for (int i = 0; i < s->nlate; i++)
            if (s->late[i].seg && s->late[i].seq < seq && (at < 0 || s->late[i].seq < s->late[at].seq)) at = i;
        if (at < 0) break;
        s->late[at].seg = 0;
        if (s->fo && !deferred) rgpu_fo_seen_late(s, s->late[at].seq, s->late[at].dst, s->late[at].len);
    }
    for (int i = 0; i < s->nlate;)
        if (s->late[i].seq < seq) {
            s->late_bytes -= s->late[i].len;
            s->late[i] = s->late[--s->nlate];
        } else {
            i++;
        }
}

/* How many of the copies awaited bring their data on the socket (a LATE_OUT message ahead of the next
 * reply, which must then come there too). */
int rgpu_late_on_socket(const rgpu_session *s) {
    int n = 0;
    for (int i = 0; i < s->nlate; i++) n += !s->late[i].seg;
    return n;
}

int rgpu_sessions_drain_late(void) {
    int rc = 0, n = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < n; i++) {
        rgpu_session *s = &all[i];
        if (!__atomic_load_n(&s->nlate, __ATOMIC_RELAXED)) continue;
        pthread_mutex_lock(&s->mu);
        int r = s->nlate && s->state == 1 && !rgpu_sessions_closed() ? rgpu_session_barrier(s, i) : 0;
        pthread_mutex_unlock(&s->mu);
        if (r && !rc) rc = r;
    }
    return rc;
}

int rgpu_sessions_late_overlap(const void *p, size_t n) {
    int hit = 0, count = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < count && !hit; i++) {
        rgpu_session *s = &all[i];
        if (!__atomic_load_n(&s->nlate, __ATOMIC_RELAXED)) continue;
        pthread_mutex_lock(&s->mu);
        for (int k = 0; k < s->nlate && !hit; k++)
            hit = (const char *)p < (const char *)s->late[k].dst + s->late[k].len &&
                  (const char *)s->late[k].dst < (const char *)p + n;
        pthread_mutex_unlock(&s->mu);
    }
    return hit;
}

