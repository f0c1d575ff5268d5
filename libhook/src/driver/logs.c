/* Driver log callbacks (cuLogsRegisterCallback, CUDA 12.9+). PyTorch registers one at start-up to
 * hear the driver's own log lines. The driver whose lines those would be is the server's; the client
 * library, which stands in for it here, writes its lines through RGPU_LOG instead. So a registration
 * is accepted and kept, and no entry ever reaches it: what a driver with nothing to log does. */
#include <pthread.h>
#include <stdlib.h>

#include "rgpu_call.h"

/* A handle is the struct CUlogsCallbackHandle points to (rgpu defines what CUDA leaves opaque). */
struct CUlogsCallbackEntry_st {
    CUlogsCallback fn;
    void *user;
    struct CUlogsCallbackEntry_st *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUlogsCallbackEntry_st *callbacks;

CUresult cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData, CUlogsCallbackHandle *callback_out) {
    if (!callbackFunc) return rgpu_invalid_value(RGPU_DRIVER);
    struct CUlogsCallbackEntry_st *e = malloc(sizeof *e);
    if (!e) return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
    pthread_mutex_lock(&mu);
    *e = (struct CUlogsCallbackEntry_st){callbackFunc, userData, callbacks};
    callbacks = e;
    pthread_mutex_unlock(&mu);
    if (callback_out) *callback_out = e;
    return RGPU_SUCCESS;
}

CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle callback) {
    pthread_mutex_lock(&mu);
    struct CUlogsCallbackEntry_st **p = &callbacks;
    while (*p && *p != callback) p = &(*p)->next;
    struct CUlogsCallbackEntry_st *found = *p;
    if (found) *p = found->next;
    pthread_mutex_unlock(&mu);
    if (!found) return rgpu_invalid_value(RGPU_DRIVER);
    free(found);
    return RGPU_SUCCESS;
}
