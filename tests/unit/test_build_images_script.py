"""scripts/build_images.sh on a host without a container engine that can build: exit status 3 (which
tests/e2e/test_images.py reads as "skip: no engine here") and a message that names what is missing.
The script runs with a PATH of only the tools it needs before that point, plus a fake `docker`
client whose engine does not answer."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_images.sh"


@pytest.fixture
def bare_path(tmp_path) -> Path:
    """A folder of only bash, dirname, id, cat and sed (what the script runs before its engine check)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "id", "cat", "sed"):
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        (bin_dir / tool).symlink_to(found)
    return bin_dir


def run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RGPU_IMAGE_ENGINE"}
    return subprocess.run([str(bin_dir / "bash"), str(SCRIPT), *args], capture_output=True, text=True,
                          env={**env, "PATH": str(bin_dir)}, timeout=30)


def test_no_engine_at_all_names_both_and_how_to_install(bare_path):
    p = run(bare_path)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "neither docker nor podman is installed" in p.stderr and "apt-get install podman" in p.stderr


def test_a_docker_client_without_an_engine_says_so(bare_path):
    (bare_path / "docker").write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    (bare_path / "docker").chmod(0o755)
    p = run(bare_path)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "docker client is installed but no Docker engine answers it" in p.stderr, p.stderr
    assert "podman is not installed" in p.stderr


def test_an_engine_named_but_missing(bare_path):
    p = run(bare_path, "--engine", "podman")
    assert p.returncode == 3 and "--engine podman: podman is not installed" in p.stderr, p.stderr
    bad = run(bare_path, "--engine", "lxc")
    assert bad.returncode == 1 and "--engine must be docker or podman, not lxc" in bad.stderr, bad.stderr
