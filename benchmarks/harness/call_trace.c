/* The calls one CUDA call makes inside librgpu, for benchmarks/call_path.py: linked into a build of the
 * library compiled with -finstrument-functions, so gcc calls these two at every function's entry and
 * exit. Of the thread that calls CALL_TRACE_FN (an exported name, e.g. cudaMemcpy) for the
 * CALL_TRACE_NTH time (default 50: after warm-up, when nothing is set up any more), every function
 * entered until that call returns is written to CALL_TRACE_OUT, a line each: its depth below the traced
 * call and its offset in the library (addr2line names it and its file). Everything else runs as usual. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_TRACE __attribute__((no_instrument_function))

static void *target;        /* the traced function's address, found at the first entry of anything */
static int looked, calls;   /* guarded by the traced program being single-threaded where it calls it */
static __thread int depth, tracing;
static FILE *out;
static char *base;

NO_TRACE static void look(void) {
    looked = 1;
    const char *name = getenv("CALL_TRACE_FN");
    Dl_info me;
    if (!name || !dladdr((void *)look, &me)) return;
    void *self = dlopen(me.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!self) return;
    target = dlsym(self, name);  /* -Bsymbolic: the address the library's own calls enter */
    base = me.dli_fbase;
}

NO_TRACE void __cyg_profile_func_enter(void *fn, void *site) {
    (void)site;
    if (!looked) look();
    if (!target) return;
    if (!tracing && fn == target) {
        const char *nth = getenv("CALL_TRACE_NTH");
        if (++calls != (nth ? atoi(nth) : 50)) return;
        const char *path = getenv("CALL_TRACE_OUT");
        if (!path || !(out = fopen(path, "w"))) return;
        tracing = 1, depth = 0;
    }
    if (tracing) fprintf(out, "%d %lx\n", depth++, (unsigned long)((char *)fn - base));
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site) {
    (void)site;
    if (!tracing) return;
    if (--depth == 0 && fn == target) {
        tracing = 0;
        fclose(out);
        out = NULL;
    }
}
