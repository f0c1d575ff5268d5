#!/usr/bin/env bash
# Builds librgpu.so and the names CUDA programs look for (libcudart.so.13, libcuda.so.1, ...), and
# NVML's (libnvidia-ml.so.1: pynvml and frameworks inside a program see its vGPUs)
# into OUT (default build/lib). Needs gcc and libzmq's headers (Debian: libzmq3-dev).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../build/lib}
mkdir -p "$out"
cc=${CC:-gcc}
# arena.c, the cuda backend's allocator, is the client's too: memory/placed.c lays the program's
# allocations out with its rules, so that the worker can place each one where the client said.
# src/ is split by floor and API family (transport, state, submit, memory, module, stream, graph, managed, driver,
# runtime); every family's headers are visible to every other, as one library's are. Every file sees
# the generated CUDA prototypes (generated/rgpu_cuda.h, through rgpu_call.h): a hook whose signature is
# not CUDA's, or a call with the wrong pointer types, does not compile.
# RPATH $ORIGIN: the libzmq (and libzmq's own dependencies) that docker/bundle-libs.sh copies beside
# librgpu.so is found there without LD_LIBRARY_PATH, by a program linked with -lcuda or run outside
# `rgpu run`, or by NVIDIA's libcudart when it dlopen()s libcuda.so.1; a folder without them falls
# through to the system's libzmq. DT_RPATH (--disable-new-dtags), not DT_RUNPATH: the loader uses a
# RUNPATH only for the object's own NEEDED entries, so libzmq.so.5 would be found beside it but
# libsodium, libpgm... which libzmq needs would not; an RPATH is searched for the whole tree librgpu
# loads (the cost: it is searched before LD_LIBRARY_PATH, so the copies beside win over it).
# $ORIGIN is the folder of the name the library was loaded by, so a lone link to librgpu.so elsewhere
# finds nothing there. GNU ld, linking a program with -lcuda, finds libzmq.so.5 through this RPATH but
# not what libzmq needs: such a link also wants -Wl,-rpath-link,<this folder> where the system has no libzmq.
families=$(find "$here/src" -mindepth 1 -maxdepth 1 -type d | sort)
includes=()
for d in $families; do includes+=(-I"$d"); done
$cc -O2 -g -fPIC -shared -Wall -Wno-unused-parameter -Werror=incompatible-pointer-types \
    -Werror=implicit-function-declaration -Werror=int-conversion \
    "${includes[@]}" -I"$here/generated" \
    "$here"/src/*/*.c "$here"/generated/*.c \
    "$here/../server/backends/cuda/native/arena.c" \
    -Wl,--version-script="$here/exports.map" -Wl,-soname,librgpu.so -Wl,--no-undefined -Wl,-Bsymbolic \
    -Wl,-rpath,'$ORIGIN' -Wl,--disable-new-dtags -lzmq -lpthread -o "$out/librgpu.so.tmp"
mv "$out/librgpu.so.tmp" "$out/librgpu.so"
# The libzmq librgpu.so loads: where a Python with pyzmq's wheel is at hand (RGPU_ZMQ_PYTHON, default
# the checkout's .venv), the libzmq and libsodium that wheel carries, copied beside librgpu.so (libzmq
# as libzmq.so.5, the name librgpu.so asks for; libsodium under its own, which that libzmq asks for
# and finds through its RPATH $ORIGIN), which the RPATH $ORIGIN above loads before the system's.
# Why: a pool's wire is CURVE, whose cipher (libsodium's XSalsa20-Poly1305, on one ZeroMQ I/O thread
# at each end) is what limits a session's copies across hosts; on this project's 2-core VM the
# system's libsodium 1.0.18 (Debian 12) encrypted 1.41 GB/s, pyzmq 27.3's 1.0.22 2.45 GB/s, and 64 MiB
# copies on the test bed's CURVE wire were 10-25% faster in every A/B pair (H2D 0.79-0.93 to 0.89-1.03
# GB/s uncapped; benchmarks/results/bed-2026-12-03-curve.md), the plain wire unchanged within noise.
# The same libzmq (4.3.5) is what the servers' workers use through pyzmq. RGPU_SYSTEM_ZMQ=1, or no
# such Python: the system's libzmq, as linked.
rm -f "$out/libzmq.so.5" "$out"/libsodium-*.so*
zpy=${RGPU_ZMQ_PYTHON:-$here/../.venv/bin/python}
if [ "${RGPU_SYSTEM_ZMQ:-0}" != 1 ] && [ -x "$zpy" ]; then
    wheel_libs=$("$zpy" -c 'import pathlib, zmq; d = pathlib.Path(zmq.__file__).parent.parent / "pyzmq.libs"; print(d if d.is_dir() else "")' 2>/dev/null || true)
    zmq_lib=$(ls "${wheel_libs:-/nonexistent}"/libzmq-*.so.5* 2>/dev/null | head -1 || true)
    if [ -n "$zmq_lib" ]; then
        for dep in $(readelf -d "$zmq_lib" | sed -n 's/.*(NEEDED).*\[\(libsodium-[^]]*\)\]/\1/p'); do
            cp "$wheel_libs/$dep" "$out/$dep"
        done
        cp "$zmq_lib" "$out/libzmq.so.5.tmp"
        mv "$out/libzmq.so.5.tmp" "$out/libzmq.so.5"
    fi
fi
# The cuda backend's compiled launch loop, kernel clock and printf check (server/backends/cuda's
# launches.py, timing.py and printf.py load it on the server), and the worker's end of the call ring
# (server/native/ring.c, for every backend: server/ring.py; it reads messages with the client's
# msgpack reader and links nothing but libc), and the heads a client sends as deltas made whole
# (server/head_delta.py: the client's own log_delta.c). The serving loop's socket door
# (server/native/sock_serve.c) calls libzmq through the copy pyzmq loaded, opened by path at run
# time: libzmq's header only, no link.
$cc -O2 -g -fPIC -shared -Wall -Wno-unused-parameter -Werror=incompatible-pointer-types \
    -Werror=implicit-function-declaration -Werror=int-conversion \
    -I"$here/src/transport" -I"$here/generated" \
    "$here/../server/backends/cuda/native/launches.c" "$here/../server/backends/cuda/native/clock.c" \
    "$here/../server/backends/cuda/native/printf.c" "$here/../server/backends/cuda/native/copies.c" \
    "$here/../server/backends/cuda/native/arena.c" \
    "$here/../server/native/ring.c" \
    "$here/../server/native/serve.c" "$here/../server/native/sock_serve.c" "$here/../server/native/heads.c" \
    "$here/../server/native/sched.c" "$here/../server/native/quota.c" \
    "$here/../server/native/digest.c" \
    "$here/src/transport/mpack.c" "$here/src/transport/log_delta.c" \
    -Wl,--version-script="$here/../server/backends/cuda/native/launches.map" -Wl,--no-undefined -lpthread -ldl \
    -o "$out/librgpu_launches.so.tmp"
mv "$out/librgpu_launches.so.tmp" "$out/librgpu_launches.so"
for name in libcuda.so.1 libcuda.so libcudart.so.13 libcudart.so.12 libcudart.so libnvidia-ml.so.1 libnvidia-ml.so; do
    ln -sf librgpu.so "$out/$name"
done
echo "built $out/librgpu.so"
