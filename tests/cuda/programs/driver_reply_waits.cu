// How a thread waits, by CUDA's scheduling flags: a device's flags are its primary context's, for
// every thread (cudaSetDeviceFlags, cudaGetDeviceFlags, cuCtxGetFlags and cuCtxSetFlags agree), and
// one scheduling flag at most is valid. Then it waits HOLD_MS for a kernel under each flag and prints
// the waiting thread's own CPU time and sleeps: a thread that spins spends it and never sleeps, one
// that blocks sleeps and spends next to none (through
// rgpu, the spin lasts RGPU_SPIN_US at most: libhook/src/transport/session.c, spin_for_reply).
//   driver_reply_waits [HOLD_MS]
#include <cstdlib>
#include <thread>
#include <sys/resource.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "driver_check.h"

#define RT(call) CK((CUresult)(call))  // the Runtime's codes of these calls are the Driver's

__global__ void hold(long long ns) {
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

// This thread's CPU time (ms) and how often it slept (voluntary context switches).
static double thread_cpu_ms(long *slept) {
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    *slept = u.ru_nvcsw;
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

// The CPU time this thread spends, and how often it sleeps, in a cudaDeviceSynchronize that waits `ns`
// for a kernel.
static double wait_cpu_ms(long long ns, double *out, long *sleeps) {
    hold<<<1, 1>>>(ns);
    if (cudaGetLastError() != cudaSuccess) return -1;
    long s0, s1;
    double t0 = thread_cpu_ms(&s0);
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    *out = thread_cpu_ms(&s1) - t0;
    *sleeps = s1 - s0;
    return 0;
}

int main(int argc, char **argv) {
    long long ns = (argc > 1 ? atoll(argv[1]) : 300) * 1000000LL;
    unsigned f = 99;
    RT(cudaGetDeviceFlags(&f));
    EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleAuto);
    EXPECT(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);
    EXPECT(cudaSetDeviceFlags(0x100) == cudaErrorInvalidValue);
    cudaGetLastError();
    RT(cudaGetDeviceFlags(&f));
    EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleAuto);  // a refused call changes nothing

    RT(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    RT(cudaGetDeviceFlags(&f));
    EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    RT(cudaFree(0));  // the Runtime binds the device's primary context to this thread
    unsigned cf = 0;
    int active = 0;
    CK(cuCtxGetFlags(&cf));
    EXPECT((cf & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC);
    CK(cuDevicePrimaryCtxGetState(0, &cf, &active));
    EXPECT((cf & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC);
    unsigned other = 0;
    std::thread([&] { cudaGetDeviceFlags(&other); }).join();  // the device's, not this thread's
    EXPECT((other & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);

    double blocked = 0, spun = 0, yielded = 0, ctx_blocked = 0;
    long z[4];
    EXPECT(wait_cpu_ms(ns, &blocked, &z[0]) == 0);
    RT(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    EXPECT(wait_cpu_ms(ns, &spun, &z[1]) == 0);
    RT(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
    EXPECT(wait_cpu_ms(ns, &yielded, &z[2]) == 0);
    CK(cuCtxSetFlags(CU_CTX_SCHED_BLOCKING_SYNC));  // the current context's: the primary one
    RT(cudaGetDeviceFlags(&f));
    EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    EXPECT(wait_cpu_ms(ns, &ctx_blocked, &z[3]) == 0);
    printf("cpu_ms blocked %.1f spin %.1f auto %.1f ctx_blocked %.1f\n", blocked, spun, yielded, ctx_blocked);
    printf("sleeps blocked %ld spin %ld auto %ld ctx_blocked %ld\n", z[0], z[1], z[2], z[3]);
    printf("OK driver_reply_waits\n");
    return 0;
}
