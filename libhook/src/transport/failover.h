/* Failover of a --failover lease's sessions (failover.c): the checkpoint and the log kept here, and
 * the resume on another server when the session's server dies. */
#ifndef RGPU_FAILOVER_H
#define RGPU_FAILOVER_H
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#include "rgpu_envelope.h"
#include "session.h"
#include "session_parts.h"

struct rgpu_call;
/* The lease id of RGPU_FAILOVER, or NULL when failover is off. */
const char *rgpu_failover_lease(void);
/* The session's failover state, made at first use; NULL when failover is off. */
struct rgpu_failover *rgpu_fo_state(rgpu_session *s);
/* A message whose reply came: copied into the log (frames, n of them). */
void rgpu_fo_logged(rgpu_session *s, zmq_msg_t *frames, size_t n, size_t owned);
/* The message with sync call c (seq `seq`) whose data went through the same-host segment, whose reply
 * came: logged as it would have gone without the segment (c encoded anew, its input in frames). */
void rgpu_fo_logged_rebuilt(rgpu_session *s, const rgpu_replay_msg *m, struct rgpu_call *c, uint64_t seq);
/* What the program saw of sync call seq: its reply's head and data (streamed bytes into c's buffer,
 * then its kept frames). */
void rgpu_fo_seen(rgpu_session *s, uint64_t seq, const rgpu_env_reply *rep, struct rgpu_call *c, size_t streamed);
/* The data of async D2H copy seq (RGPU_OUT_LATER) as it came into the program's memory. */
void rgpu_fo_seen_late(rgpu_session *s, uint64_t seq, const void *data, size_t n);
/* Who may know the digest of an async copy's data without reading it (managed.c: a shadow that came
 * back unchanged). The function returns 1 and sets *dig, or 0: the log digests the data itself. */
void rgpu_fo_late_digests(int (*known)(const void *data, size_t n, uint64_t *dig));
/* 1 when a checkpoint is due (the interval passed since the last). */
int rgpu_fo_due(rgpu_session *s);
/* CHECKPOINT's argument: 1 when the session holds a chain of images a delta can follow (failover.c). */
int rgpu_fo_wants_delta(rgpu_session *s);
/* A CHECKPOINT call's reply (its result rc): its image kept (after the chain's, when a delta), the log
 * emptied; a refusal is logged once. */
void rgpu_fo_checkpointed(rgpu_session *s, struct rgpu_call *c, int rc, double took_s);
/* The server is lost: another one from the controller, the checkpoint restored there, the log replayed
 * and checked. 0, the session attached there; -1 and why. The lock is held. */
int rgpu_fo_recover(rgpu_session *s, int dev, char *why, size_t cap);
/* session.c: close the session's connection and open it on `server` (URL@KEY#N) */
int rgpu_session_reopen(rgpu_session *s, int dev, const char *server);
/* lease.c: the controller's failover {lease, vgpu, lost, avoid}: the vGPU's new server (URL@KEY#N) and the
 * token; `avoid` (navoid of them): servers lost earlier in the same recovery, not to be chosen again */
int rgpu_lease_failover(const char *lease, int vgpu, const char *lost, const char *const *avoid, int navoid,
                        char *server, size_t cap, char *token, size_t tcap, char *why, size_t wcap);
#endif
