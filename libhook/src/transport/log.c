/* Logging for the client library: a level read once from RGPU_LOG (error, warn, info, debug),
 * every line prefixed "rgpu[pid:tid]" on stderr so it never mixes with the program's stdout. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rgpu_call.h"

static int level = -1;
static const char *names[] = {"error", "warn", "info", "debug"};

static int log_level(void) {
    if (level < 0) {
        const char *e = getenv("RGPU_LOG");
        int l = RGPU_LOG_WARN;
        for (int i = 0; e && i < 4; i++)
            if (strcasecmp(e, names[i]) == 0) l = i;
        level = l;
    }
    return level;
}

void rgpu_log(int lvl, const char *fmt, ...) {
    if (lvl > log_level()) return;
    char line[4096]; /* a kernel's mangled name and the server's reason fit */
    int n = snprintf(line, sizeof line, "rgpu[%d:%ld] %s: ", (int)getpid(), (long)syscall(SYS_gettid), names[lvl]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
