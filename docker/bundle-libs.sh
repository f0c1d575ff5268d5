#!/usr/bin/env bash
# Copy the shared libraries librgpu.so needs that a CUDA image may lack (libzmq and what it links:
# libsodium, libpgm, libnorm, Kerberos, libbsd) beside it in DIR, so that the directory works alone
# with LD_LIBRARY_PATH=DIR in any glibc image. glibc itself and the C++ runtime (libstdc++,
# libgcc_s) are left out on purpose: the image's own must win, since its programs were built
# against them. librgpu.so's RPATH $ORIGIN (libhook/build.sh) finds the copies without
# LD_LIBRARY_PATH too. Usage: docker/bundle-libs.sh DIR   (DIR holds librgpu.so)
set -euo pipefail
dir=${1:?usage: bundle-libs.sh DIR}
system='^(linux-vdso|ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so'
ldd "$dir/librgpu.so" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
    if [[ $name =~ $system ]] || [ "$(dirname "$path")" -ef "$dir" ]; then
        continue  # glibc's own, or already here (a second run: the RPATH finds the copies)
    fi
    cp -L "$path" "$dir/$name"
    echo "bundled $name"
done
