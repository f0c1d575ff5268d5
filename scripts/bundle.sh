#!/usr/bin/env bash
# Makes a self-contained tarball for hosts without internet (GPU clusters often are): rgpu's wheel,
# the wheels of its dependencies for a target Python and platform, and rgpu-clientlib — the client
# library (librgpu.so) with the libzmq it links and libzmq's own dependencies beside it (and zmq.h in
# its include/), so a client host needs no system package. On the target host:
#
#   tar xf rgpu-bundle-*.tar.gz && rgpu-bundle-*/install.sh [PYTHON]     # pip --no-index, nothing fetched
#
# Usage: scripts/bundle.sh [--python 3.12] [--platform TAG]... [--extra k8s] [--with-source] [--out DIR]
#   --python    the target's Python version (default: this host's python3)
#   --platform  a pip platform tag the dependency wheels may have; repeatable (default: the manylinux
#               tags up to glibc 2.28, e.g. RHEL 8: pip does not widen a tag to older ones itself)
#   --extra     an optional dependency group of rgpu to include (e.g. k8s; test: the test and
#               benchmark tools); repeatable
#   --with-source  the checkout's committed tree too (source/: tests, benchmarks), to run the suites
#               or benchmarks/native on the target (`--extra test --with-source`)
#   --out       where the tarball goes (default: dist/)
#   --without   a dependency the target already has, left out (repeatable): a lent GPU machine's image
#               has numpy and llvmlite (75 MB of wheels) and takes at most 64 MiB of files per call;
#               install.sh then needs a Python that sees them (a virtualenv --system-site-packages)
# The client library is built here (gcc, libzmq's headers), so it needs a glibc on the target no
# older than this host's symbols ask for (printed at the end).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
pyver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
platforms=()
extras=()
source=0
without=()
out="$root/dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --python) pyver=$2; shift 2 ;;
        --platform) platforms+=("$2"); shift 2 ;;
        --extra) extras+=("$2"); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --with-source) source=1; shift ;;
        --without) without+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "bundle.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
done
[[ $pyver =~ ^3\.[0-9]+$ ]] || { echo "bundle.sh: --python wants MAJOR.MINOR, got $pyver" >&2; exit 2; }
[ ${#platforms[@]} -gt 0 ] || platforms=(manylinux2014_x86_64 manylinux_2_24_x86_64 manylinux_2_27_x86_64 manylinux_2_28_x86_64)
version=$("$py" -c 'import tomllib; print(tomllib.load(open("'"$root"'/pyproject.toml","rb"))["project"]["version"])')
name="rgpu-bundle-$version-cp${pyver/./}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/wheels" "$stage/lib"

# rgpu itself: pure Python, one wheel for every target.
"$py" -m pip wheel -q --no-deps --no-build-isolation -w "$dir/wheels" "$root" >/dev/null
wheel=$(ls "$dir/wheels"/rgpu_pool-*.whl)   # the distribution rgpu-pool (its import package is rgpu)
extras_spec=""
[ ${#extras[@]} -gt 0 ] && extras_spec="[$(IFS=,; echo "${extras[*]}")]"
spec="rgpu-pool$extras_spec"

# Its dependencies as the target's pip would pick them: binary wheels only (the target may have no
# compiler), resolved for the target's Python and platform rather than this host's.
platform_args=()
for p in "${platforms[@]}"; do platform_args+=(--platform "$p"); done
more=()
[ $source -eq 1 ] && more=("setuptools>=77" wheel)  # to install source/ editable, offline
"$py" -m pip download -q --only-binary :all: --python-version "$pyver" --implementation cp \
    "${platform_args[@]}" -d "$dir/wheels" "$spec @ file://$wheel" "${more[@]}"
for w in "${without[@]}"; do  # wheel file names spell the distribution with underscores
    dropped=$(ls "$dir/wheels/${w//-/_}"-*.whl 2>/dev/null) || { echo "bundle.sh: --without $w: no such wheel" >&2; exit 2; }
    rm -f $dropped
done

# The client library and the shared libraries it needs that a host may lack, as a wheel.
bash "$root/libhook/build.sh" "$stage/lib" >/dev/null
bash "$root/docker/bundle-libs.sh" "$stage/lib" >/dev/null
# and libzmq's header, which librgpu.so was compiled with, for what a target compiles against the
# bundled libzmq (benchmarks/harness/bench.c) where it has no libzmq development package
mkdir -p "$stage/include"
zmq_h=$(echo '#include <zmq.h>' | ${CC:-gcc} -M -x c - | tr ' \\' '\n\n' | grep '/zmq\.h$' | head -1)
cp "$zmq_h" "$stage/include/"
[ ! -f "$(dirname "$zmq_h")/zmq_utils.h" ] || cp "$(dirname "$zmq_h")/zmq_utils.h" "$stage/include/"
"$py" "$root/scripts/clientlib_wheel.py" "$stage/lib" "$version" "$dir/wheels" "$stage/include"

cat > "$dir/install.sh" <<EOF
#!/usr/bin/env bash
# Installs rgpu $version and its client library from this directory alone (pip --no-index); with
# source/, rgpu from it, editable (EXTRAS: default "$extras_spec", the bundle's).
# Usage: install.sh [PYTHON [EXTRAS]]   (default python3; a virtualenv's python installs into it)
set -euo pipefail
here=\$(cd "\$(dirname "\$0")" && pwd)
py=\${1:-python3}
if [ -d "\$here/source" ]; then  # the checkout, editable: its tests and benchmarks import rgpu from it
    "\$py" -m pip install --no-index --find-links "\$here/wheels" setuptools wheel
    "\$py" -m pip install --no-index --find-links "\$here/wheels" --no-build-isolation -e "\$here/source\${2:-$extras_spec}" \\
        rgpu-clientlib==$version
else
    "\$py" -m pip install --no-index --find-links "\$here/wheels" "$spec==$version" rgpu-clientlib==$version
fi
EOF
chmod +x "$dir/install.sh"
cp "$root/README.md" "$root/LICENSE" "$dir/" && cp -r "$root/docs" "$dir/docs"   # the guides, offline too
if [ $source -eq 1 ]; then
    mkdir -p "$dir/source"
    git -C "$root" archive --format=tar HEAD | tar -x -C "$dir/source"
fi
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
glibc=$(objdump -T "$stage/lib/librgpu.so" "$stage"/lib/libzmq.so.* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "bundle: $out/$name.tar.gz ($(ls "$dir/wheels" | wc -l) wheels; the client library needs ${glibc:-glibc} or newer)"
