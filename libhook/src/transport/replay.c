/* Replay after a move (live migration): the messages kept until a reply says they ran, and the
 * attach to the new worker that sends again, in order, those the old one did not run. */
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
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

rgpu_replay_msg *rgpu_replay_new(rgpu_session *s) {
    if (s->nreplay == s->replaycap) {
        size_t cap = s->replaycap ? s->replaycap * 2 : 8;
        void *grown = realloc(s->replay, cap * sizeof(rgpu_replay_msg));
        if (!grown) return NULL;
        s->replay = grown, s->replaycap = cap;
    }
    rgpu_replay_msg *r = &((rgpu_replay_msg *)s->replay)[s->nreplay++];
    memset(r, 0, sizeof *r);
    return r;
}

void rgpu_replay_keep(rgpu_session *s, rgpu_replay_msg *r, zmq_msg_t *m) {
    if (!r) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        zmq_msg_t *grown = realloc(r->frames, cap * sizeof(zmq_msg_t));
        if (!grown) return;
        r->frames = grown, r->cap = cap;
    }
    zmq_msg_init(&r->frames[r->n]);
    zmq_msg_copy(&r->frames[r->n], m);
    r->bytes += zmq_msg_size(m);
    s->replaybytes += zmq_msg_size(m);
    r->n++;
}

static void replay_free(rgpu_replay_msg *r) {
    for (size_t i = 0; i < r->n; i++) zmq_msg_close(&r->frames[i]);
    free(r->frames);
    free(r->async_hdr);
}

/* A reply came: everything sent before it has run. */
void rgpu_replay_clear(rgpu_session *s) {
    for (size_t i = 0; i < s->nreplay; i++) replay_free(&((rgpu_replay_msg *)s->replay)[i]);
    s->nreplay = 0;
    s->replaybytes = 0;
}

/* Sends a kept message again (its frames shared, not copied). */
int rgpu_replay_resend(rgpu_session *s, rgpu_replay_msg *m) {
    int rc = 0;
    for (size_t i = 0; i < m->n && rc >= 0; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &m->frames[i]);
        int more = i + 1 < m->n ? ZMQ_SNDMORE : 0; /* frame 0 is the head */
        rc = i ? rgpu_send_part(s, &copy, more) : rgpu_send_head(s, &copy, more);
        if (rc < 0) zmq_msg_close(&copy);
    }
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    return rc >= 0 ? 0 : -1;
}

/* Sends again a message whose sync call `c` (seq `seq`) moved its data through the old worker's
 * shared segment: its async calls as they were, the sync call encoded anew for the new worker's
 * segment (or frames). The kept message is replaced by the new one. */
static int resend_rebuilt(rgpu_session *s, rgpu_replay_msg *m, struct rgpu_call *c, uint64_t seq) {
    size_t shm_len = 0;
    int shm = rgpu_shm_mode(s, c, &shm_len);
    mp_writer hdr;
    rgpu_encode_head(&hdr, m->async_hdr, m->async_len, m->nasync, c, seq, shm, shm_len, 0); /* no followers */
    if (hdr.oom) return -1;
    rgpu_replay_msg nm;
    memset(&nm, 0, sizeof nm);
    nm.last_seq = m->last_seq;
    if (shm) {
        nm.shm = 1;
        nm.async_hdr = m->async_hdr, nm.async_len = m->async_len, nm.nasync = m->nasync;
        nm.async_frames = m->async_frames;
        m->async_hdr = NULL;
    }
    int cframes = rgpu_input_in_frames(shm) ? c->nbulk : 0;
    size_t nframes = m->async_frames + (size_t)cframes;
    if (shm == SEG_STAGED_IN) rgpu_stage_begin(s, seq);
    zmq_msg_t head;
    zmq_msg_init_data(&head, hdr.buf, hdr.len, rgpu_free_bytes, NULL);
    rgpu_replay_keep(s, &nm, &head);
    int rc = rgpu_send_head(s, &head, nframes ? ZMQ_SNDMORE : 0);
    for (size_t i = 0; i < m->async_frames && i + 1 < m->n; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &m->frames[1 + i]);
        rgpu_replay_keep(s, &nm, &copy);
        if (rc >= 0) rc = rgpu_send_part(s, &copy, i + 1 < nframes ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&copy);
    }
    for (int i = 0; i < cframes; i++) {
        zmq_msg_t f;
        zmq_msg_init_data(&f, (void *)c->bulk[i], c->bulk_len[i], NULL, NULL);
        rgpu_replay_keep(s, &nm, &f);
        if (rc >= 0) rc = rgpu_send_part(s, &f, i + 1 < cframes ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&f);
    }
    replay_free(m);
    *m = nm;
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    if (rc >= 0 && shm == SEG_STAGED_IN) rgpu_stage_progressive(s, c);
    return rc >= 0 ? 0 : -1;
}

/* Sends again every kept message, in order, to a session opened anew (failover.c's recovery): the last,
 * if its sync call `c` (seq `cseq`) moved its data through the old segment, rebuilt for the new one (or
 * frames), without its followers. 1 when it was rebuilt, 0, or -1 when the socket refused one. The
 * reply comes on the socket. */
int rgpu_replay_resend_all(rgpu_session *s, struct rgpu_call *c, uint64_t cseq) {
    rgpu_replay_msg *all = s->replay;
    int rebuilt = 0;
    s->replaybytes = 0;
    for (size_t i = 0; i < s->nreplay; i++) {
        rgpu_replay_msg *m = &all[i];
        rebuilt = m->shm && c && i + 1 == s->nreplay;
        if ((rebuilt ? resend_rebuilt(s, m, c, cseq) : rgpu_replay_resend(s, m)) != 0) return -1;
        if (!rebuilt) s->replaybytes += m->bytes; /* a rebuilt one counted itself */
    }
    s->ring_wait = 0;
    return rebuilt;
}

/* The session moved (live migration): the old worker's MOVED notice (its outs a `moved` record:
 * URL@KEY#GPU, endpoint, session, key, seq of the last call it ran) is `rep`. Attach to the new worker and send again, in
 * order, the kept messages the old one did not run; `c` is the sync call in flight (seq `cseq`), or
 * NULL. 0 on success; the reply to `c` then comes from the new worker. */
int rgpu_session_follow(rgpu_session *s, int dev, const rgpu_env_reply *rep, struct rgpu_call *c, uint64_t cseq) {
    char url[sizeof s->url] = "", endpoint[300] = "", sid[64] = "", key[64] = "";
    char *fields[4] = {url, endpoint, sid, key};
    size_t caps[4] = {sizeof url, sizeof endpoint, sizeof sid, sizeof key};
    rgpu_env_moved mv;
    const char *why = "";
    mp_reader r = rgpu_outs_record(rep);
    if (rgpu_env_read_moved(&r, &mv, &why)) {
        rgpu_log(RGPU_LOG_WARN, "a malformed notice of a move: %s", why);
        return -1;
    }
    const rgpu_env_bytes got[4] = {mv.url, mv.endpoint, mv.session, mv.key};
    for (int i = 0; i < 4; i++) {
        if (got[i].n >= caps[i]) return -1;
        memcpy(fields[i], got[i].p, got[i].n);
        fields[i][got[i].n] = 0;
    }
    uint64_t done = mv.last_seq;
    /* The old worker holds nothing now: close our end (and our shared segment: the new worker,
     * if it is on this host too, maps one of its own). */
    zmq_socket_monitor(s->sock, NULL, 0);
    zmq_close(s->mon);
    zmq_close(s->sock);
    s->sock = s->mon = NULL;
    s->tcp_fd = -1;
    rgpu_shm_unmap(s);
    rgpu_bulk_close(s);
    char *hash = strrchr(url, '#');
    s->gpu = hash ? atoi(hash + 1) : 0;
    if (hash) *hash = 0;
    snprintf(s->url, sizeof s->url, "%s", url);
    if (rgpu_attach_worker(s, dev, endpoint, sid, key) != 0) return -1;
    s->moves++;
    rgpu_replay_msg *all = s->replay;
    size_t kept = 0, sent = 0;
    int rc = 0;
    s->replaybytes = 0;
    for (size_t i = 0; i < s->nreplay; i++) {
        rgpu_replay_msg *m = &all[i];
        if (m->last_seq <= done) { /* the old worker ran it */
            replay_free(m);
            continue;
        }
        if (rc == 0) rc = m->shm && c && m->last_seq == cseq ? resend_rebuilt(s, m, c, cseq) : rgpu_replay_resend(s, m);
        s->replaybytes += m->bytes;
        all[kept++] = *m;
        sent++;
    }
    s->nreplay = kept;
    rgpu_log(RGPU_LOG_INFO, "device %d moved to %s (session %s): %zu message(s) sent again", dev, s->url, sid, sent);
    return rc;
}

