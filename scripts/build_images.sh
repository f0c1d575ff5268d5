#!/usr/bin/env bash
# Builds rgpu's container images from this checkout (docker/Dockerfile) with the container engine
# this host has, Docker or Podman:
#   rgpu:TAG          the runtime target: rgpu-controller, rgpu-server, rgpu (docs/containers.md)
#   rgpu-client:TAG   the client target: /opt/rgpu (client library, rgpu wheel) for a CUDA image
# Nothing comes from a container registry: the Debian base is made here by mmdebstrap from a Debian
# mirror (RGPU_IMAGE_MIRROR, default deb.debian.org) and imported as localhost/rgpu-base:bookworm
# (made once, kept; --rebuild-base makes it again for Debian's updates). The images' Python
# packages are wheels this host's pip fetches from the indexes it is configured with (build/
# image-wheels, removed after); the build's apt-get reaches the base's mirror.
#
# Writes build/images/engine.env: the engine command and the `run` options this host needs (a host
# that is itself a container needs some for Podman); tests/e2e/test_images.py reads it.
#
# Usage: scripts/build_images.sh [--tag TAG] [--engine docker|podman] [--base IMAGE] [--rebuild-base]
#   --tag     image tag (default dev)
#   --engine  the engine (default RGPU_IMAGE_ENGINE, else docker when its engine answers, else podman)
#   --base    a base image to build FROM instead of the local one (debian:bookworm-slim pulls it)
# Exit status 3: no container engine here that can run containers (the message says what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."

tag=dev engine=${RGPU_IMAGE_ENGINE:-} base="" rebuild_base=""
while [ $# -gt 0 ]; do
    case $1 in
        --tag) tag=$2; shift 2 ;;
        --engine) engine=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        --rebuild-base) rebuild_base=1; shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build_images.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "build_images.sh: $*" >&2; exit 1; }
# exit status 3: this host has no container engine that can run containers (the message says why)
no_engine() { echo "build_images.sh: $*" >&2; exit 3; }
say() { echo "build_images.sh: $*" >&2; }

# --- the engine ---------------------------------------------------------------------------------
if [ -z "$engine" ]; then
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
        engine=docker
    elif command -v podman >/dev/null; then
        engine=podman
    elif command -v docker >/dev/null; then
        no_engine "no container engine: the docker client is installed but no Docker engine answers it" \
            "(docker info fails), and podman is not installed (Debian: apt-get install podman runc)"
    else
        no_engine "no container engine: neither docker nor podman is installed (Debian: apt-get install podman runc)"
    fi
fi
case $engine in
    docker|podman) command -v "$engine" >/dev/null || no_engine "--engine $engine: $engine is not installed" ;;
    *) die "--engine must be docker or podman, not $engine" ;;
esac
eng=("$engine")      # the engine with its global options
run_opts=()          # what `run` needs on this host besides
if [ "$engine" = podman ] && [ "$(id -u)" -ne 0 ]; then
    # rootless Podman needs subordinate ids (uidmap) and user namespaces: its own errors say which
    say "running Podman rootless (as uid $(id -u))"
fi

# --- can the engine run a container here? ----------------------------------------------------------
# Asked before anything is built, with a one-program image of this host's own `true` and the
# libraries it loads: a host that cannot run containers (an unprivileged container) exits 3 here.
# Podman inside a container (CI machines often are one) may need more than its defaults: crun refuses
# a hybrid cgroup hierarchy, and the container may not raise its resource limits to Podman's
# (1,048,576 open files). Then runc and the limits this process has.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
true_bin=$(type -P true)   # the program, not the shell builtin
for f in "$true_bin" $(ldd "$true_bin" | grep -o '/[^ ]*'); do
    mkdir -p "$scratch/probe$(dirname "$f")"
    cp -L "$f" "$scratch/probe$f"
done
probe=localhost/rgpu-probe:latest
import_probe() { tar -C "$scratch/probe" -c . | "${eng[@]}" import -q - "$probe" 2>&1 >/dev/null; }
if ! err=$(import_probe); then
    [ "$engine" = podman ] || no_engine "docker cannot import an image here: $err"
    # Podman's overlay storage on a root file system that is overlayfs itself (a container's) is
    # refused: vfs then (slower, a full copy per layer), in a storage root of its own, since a root
    # keeps the driver it was made with.
    vfs_root=/var/lib/containers/vfs-storage
    [ "$(id -u)" -eq 0 ] || vfs_root=${XDG_DATA_HOME:-$HOME/.local/share}/containers/vfs-storage
    # vfs copies every layer whole: the two images took about 10 GB at their peak here. A host with
    # less room is told so (exit 3) rather than filled: a full disk fails everything else running.
    mkdir -p "$vfs_root"
    free_gb=$(( $(df -Pk "$vfs_root" | awk 'NR==2 {print $4}') / 1048576 ))
    [ "$free_gb" -ge 14 ] \
        || no_engine "podman needs vfs storage here (overlay refused), which needs about 14 GB free; $vfs_root has $free_gb GB"
    eng+=(--storage-driver vfs --root "$vfs_root")
    err=$(import_probe) || no_engine "podman cannot store an image here, with vfs storage either: $err"
    say "podman stores its images with vfs here ($vfs_root)"
fi
try_run() { "${eng[@]}" run --rm --network host "${run_opts[@]}" "$probe" "$true_bin" 2>&1; }
if ! err=$(try_run); then
    [ "$engine" = podman ] || no_engine "docker cannot run a container here: $err"
    command -v runc >/dev/null \
        || no_engine "podman cannot run a container here and runc is not installed (Debian: apt-get install runc): $err"
    # Podman caps its own process limit at kernel.pid_max; asking for more fails.
    nproc=$(ulimit -Hu); pid_max=$(cat /proc/sys/kernel/pid_max)
    { [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; } && nproc=$pid_max
    eng+=(--runtime runc)
    run_opts=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=$nproc:$nproc")
    err=$(try_run) || no_engine "podman cannot run a container here, with runc and this host's limits either: $err"
    say "podman needs here: ${eng[*]} run ${run_opts[*]}"
fi
"${eng[@]}" rmi "$probe" >/dev/null

# --- the base -----------------------------------------------------------------------------------
has_image() { "${eng[@]}" image inspect "$1" >/dev/null 2>&1; }
if [ -z "$base" ]; then
    base=localhost/rgpu-base:bookworm
    if [ -n "$rebuild_base" ] || ! has_image "$base"; then
        command -v mmdebstrap >/dev/null \
            || die "mmdebstrap is not installed: it makes the Debian base (Debian: apt-get install mmdebstrap;" \
                   "or --base debian:bookworm-slim to pull one from a registry)"
        mirror=${RGPU_IMAGE_MIRROR:-http://deb.debian.org/debian}
        mirror=${mirror%/}
        say "making $base from $mirror (mmdebstrap)"
        started=$SECONDS
        # minbase (essential packages and apt), trimmed as Debian's -slim images are: no manuals,
        # no translations, only the copyright files of /usr/share/doc. The dpkg rules stay in the
        # image, so the packages the Dockerfile installs are trimmed too.
        mmdebstrap --quiet --variant=minbase --mode="$([ "$(id -u)" -eq 0 ] && echo root || echo unshare)" \
            --format=tar \
            --dpkgopt='path-exclude=/usr/share/man/*' \
            --dpkgopt='path-exclude=/usr/share/locale/*' \
            --dpkgopt='path-include=/usr/share/locale/locale.alias' \
            --dpkgopt='path-exclude=/usr/share/doc/*' \
            --dpkgopt='path-include=/usr/share/doc/*/copyright' \
            --dpkgopt='path-exclude=/usr/share/info/*' \
            bookworm - \
            "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
            "deb $mirror-security bookworm-security main" \
            | "${eng[@]}" import -q - "$base" >/dev/null
        say "made $base in $((SECONDS - started)) s"
    fi
fi

# --- the wheels -----------------------------------------------------------------------------------
# pip in the image is Debian's Python 3.11; wheels fetched by another Python would not install there.
wheels=build/image-wheels log=build/images/build.log
rm -rf "$wheels"
mkdir -p build/images
trap 'rm -rf "$scratch" "$wheels"' EXIT
py=.venv/bin/python
[ -x "$py" ] || py=python3
if "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    # what pyproject.toml names (rgpu's dependencies, the k8s extra, the build backend), not rgpu
    # itself: the image builds that from its copy of the source
    "$py" -c 'import tomllib
t = tomllib.load(open("pyproject.toml", "rb"))
print("\n".join(t["project"]["dependencies"] + t["project"]["optional-dependencies"]["k8s"]
                + t["build-system"]["requires"]))' > "$log"
    "$py" -m pip wheel -q -w "$wheels" -r "$log" > "$log.pip" 2>&1 \
        || { tail -n 30 "$log.pip" >&2; die "pip could not fetch the image's wheels (all of it: $log.pip)"; }
else
    say "this host's Python is not 3.11: the image's pip fetches its packages from its default index"
fi

# --- the images ---------------------------------------------------------------------------------
build_opts=(-f docker/Dockerfile --build-arg "BASE=$base")
if [ "$engine" = podman ]; then
    # the host's network for apt-get (no bridge to set up), the same limits as `run`
    build_opts+=(--network host --layers "${run_opts[@]}")
fi
started=$SECONDS
: > "$log"
# rgpu-build:TAG, the build stage, is tagged so that it stays as the next build's cache (its apt
# layer) while the untagged images of earlier builds are pruned below.
for target in build runtime client; do
    name=rgpu:$tag
    [ $target = runtime ] || name=rgpu-$target:$tag
    "${eng[@]}" build "${build_opts[@]}" --target $target -t "$name" . >> "$log" 2>&1 \
        || { tail -n 30 "$log" >&2; die "building $name failed (all of it: $log)"; }
done
"${eng[@]}" image prune -f --filter label=rgpu.dockerfile >/dev/null
say "built rgpu:$tag and rgpu-client:$tag with $engine in $((SECONDS - started)) s (base $base)"

words() { [ $# -eq 0 ] || printf '%q ' "$@"; }
{   # each value: shell words
    echo "ENGINE=$(words "${eng[@]}")"
    echo "RUN_OPTIONS=$(words "${run_opts[@]}")"
    echo "TAG=$(words "$tag")"
} > build/images/engine.env
"${eng[@]}" image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "(^|/)rgpu(-client|-build|-base)?:($tag|bookworm) " >&2 || true
