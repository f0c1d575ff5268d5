/* Logging for the client library: a level read once from RGPU_LOG (error, warn, info, debug; rgpu_log in
 * rgpu_call.h compares it before calling here),
 * every line prefixed "rgpu[pid:tid]" on stderr so it never mixes with the program's stdout. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rgpu_call.h"

#define UNREAD 99 /* above every level: the first line asked for comes here and reads RGPU_LOG */
int rgpu_log_level = UNREAD;
static const char *names[] = {"error", "warn", "info", "debug"};

static int log_level(void) {
    int level = __atomic_load_n(&rgpu_log_level, __ATOMIC_RELAXED);
    if (level == UNREAD) {
        const char *e = getenv("RGPU_LOG");
        level = RGPU_LOG_WARN;
        for (int i = 0; e && i < 4; i++)
            if (strcasecmp(e, names[i]) == 0) level = i;
        __atomic_store_n(&rgpu_log_level, level, __ATOMIC_RELAXED);
    }
    return level;
}

void rgpu_log_line(int lvl, const char *fmt, ...) {
    if (lvl > log_level()) return;
    char line[4096]; /* a kernel's mangled name and the server's reason fit */
    int n = snprintf(line, sizeof line, "rgpu[%d:%ld] %s: ", (int)getpid(), (long)syscall(SYS_gettid), names[lvl]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
