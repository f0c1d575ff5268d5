/* The driver's hidden tables as a runtime sees them (libhook/src/driver/export_tables.c): prints the
 * integrity check's answer and every input it is computed from, so the test can recompute it; asks for
 * a table rgpu does not know and one it declines (NVRTC's), and one whose slots fail (SHARED_1734DC26's);
 * checks the size headers and context-local storage. Built with gcc against
 * CUDA's headers and rgpu's libcuda. */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const CUuuid CUDART = {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}};
static const CUuuid INTEGRITY = {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}};
static const CUuuid CLS = {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}};
static const CUuuid NVRTC = {{0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f, 0x26, 0xd5, 0x33, 0xe3, 0x28}};
static const CUuuid SHARED = {{0x17, 0x34, 0xdc, 0x26, 0x80, 0x0d, 0x47, 0x45, 0x87, 0x26, 0xc0, 0xf1, 0xe7, 0xdd, 0x8b, 0xca}};
static const CUuuid UNKNOWN = {{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}};

typedef CUresult (*integrity_fn)(uint32_t version, uint64_t seconds, uint64_t out[2]);
typedef CUresult (*cls_put_fn)(CUcontext, void *key, void *value, void (*dtor)(CUcontext, void *, void *));
typedef CUresult (*cls_get_fn)(void **value, CUcontext, void *key);
typedef int (*outs_fn)(void **, void **);

int main(void) {
    const void *const *cudart = NULL, *const *integrity = NULL, *const *cls = NULL, *unknown = (void *)1;
    if (cuInit(0) || cuGetExportTable((const void **)&cudart, &CUDART) ||
        cuGetExportTable((const void **)&integrity, &INTEGRITY) || cuGetExportTable((const void **)&cls, &CLS)) {
        printf("FAIL tables\n");
        return 1;
    }
    int refused = (int)cuGetExportTable(&unknown, &UNKNOWN);
    printf("unknown %d %d\n", refused, unknown == NULL);
    const void *nvrtc = (void *)1;
    refused = (int)cuGetExportTable(&nvrtc, &NVRTC);
    printf("declined %d %d\n", refused, nvrtc == NULL);
    /* answered, as cuBLASLt needs it to be (it calls slot 4 without checking the table), every slot failing:
     * slot 4 as cuBLASLt calls it, with its two zeroed out-pointers left as they were */
    const void *const *shared = NULL;
    int got_shared = (int)cuGetExportTable((const void **)&shared, &SHARED);
    void *out = NULL, *more = NULL;
    int slot4 = shared ? ((outs_fn)shared[4])(&out, &more) : -1;
    int slot7 = shared ? ((outs_fn)shared[7])(&out, &more) : -1;
    printf("shared %d %zu %d %d %d\n", got_shared, shared ? (size_t)(uintptr_t)shared[0] : 0, slot4, out == NULL && more == NULL,
           slot7);
    printf("sizes %zu %zu\n", (size_t)(uintptr_t)cudart[0], (size_t)(uintptr_t)integrity[0]);
    uint64_t h[2];
    integrity_fn check = (integrity_fn)integrity[1];
    int fixed = (int)check(13000, 1234, h);
    printf("fixed %d %016llx %016llx\n", fixed, (unsigned long long)h[0], (unsigned long long)h[1]);
    uint64_t now = 1763900000;
    int rc = check(13002, now, h);
    int ndev = 0, version = 0;
    cuDeviceGetCount(&ndev);
    cuDriverGetVersion(&version);
    printf("hash %d %016llx %016llx\n", rc, (unsigned long long)h[0], (unsigned long long)h[1]);
    printf("inputs %d %u %u %llx %llx %llx %llu\n", version, (unsigned)getpid(), (unsigned)(uintptr_t)pthread_self(),
           (unsigned long long)(uintptr_t)cudart, (unsigned long long)(uintptr_t)integrity,
           (unsigned long long)(uintptr_t)integrity[1], (unsigned long long)now);
    for (int d = 0; d < ndev; d++) {
        CUuuid u;
        int dom = 0, bus = 0, dv = 0;
        cuDeviceGetUuid_v2(&u, d);
        cuDeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
        cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
        cuDeviceGetAttribute(&dv, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
        printf("device ");
        for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)u.bytes[i]);
        printf(" %d %d %d\n", dom, bus, dv);
    }
    /* context-local storage: a value per (context, key), gone with a key deleted */
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, 0);
    cuCtxSetCurrent(ctx);
    static int key, value;
    void *got = NULL;
    int put = ((cls_put_fn)cls[0])(ctx, &key, &value, NULL);
    int get = ((cls_get_fn)cls[2])(&got, NULL, &key);
    printf("cls %d %d %d\n", put, get, got == &value);
    return 0;
}
