/* Round trips and asynchronous calls counted by call (stats.c). */
#ifndef RGPU_STATS_H
#define RGPU_STATS_H
#include <stddef.h>
#include <stdint.h>

#define RGPU_STATS_HELLO 5u /* the hello to a server's supervisor; the worker's calls 0..4 are the transport's (rgpu_wire.h) */

void rgpu_stats_wait(int dev, uint32_t id, const char *name);  /* a blocking round trip for this call */
void rgpu_stats_async(int dev, uint32_t id, const char *name); /* an asynchronous call queued */
void rgpu_stats_message(int dev, int on_ring);                 /* a message sent without a wait */
void rgpu_stats_session(int dev, uint64_t out[3]);             /* the session's round trips, async calls, messages */
size_t rgpu_stats_text(char *buf, size_t cap);
void rgpu_stats_print(void);                                   /* at exit, with RGPU_STATS=1 */
#endif
