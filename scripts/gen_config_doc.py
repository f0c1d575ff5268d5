"""Writes docs/configuration.md from the code: every RGPU_* environment variable the sources read (found
in them: string literals of Python and C, expansions in shell and compose files) with its meaning from
scripts/config_vars.toml, every option of every command (rgpu and its subcommands, rgpu-server,
rgpu-controller, rgpu-k8s) from the click commands themselves, and the `rgpu` exit codes.

    .venv/bin/python scripts/gen_config_doc.py            # writes docs/configuration.md
    .venv/bin/python scripts/gen_config_doc.py --check    # exit 1 when the file is stale (CI)

It refuses to write while a variable found in the code has no line in config_vars.toml, or a line
there names a variable the code no longer has: the reference cannot drift from the code silently.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "configuration.md"
DESCRIPTIONS = ROOT / "scripts" / "config_vars.toml"
SKIP_DIRS = ("protocol/generated/", "libhook/generated/", "k8s/generated/", "docs/")
SOURCE = re.compile(r"\.(py|c|h|sh|toml|ya?ml)$|(^|/)Dockerfile$|\.Dockerfile$")
VARIABLE = re.compile(r"""["']\s*(RGPU_[A-Z][A-Z0-9_]*)\s*["']|\$\{?(RGPU_[A-Z][A-Z0-9_]*)""")


def source_files() -> list[Path]:
    """The tracked sources (git ls-files), or in a tree without .git (a bundle's source/) every file
    outside hidden folders and build outputs."""
    try:
        names = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not any(part.startswith(".") or part in ("build", "dist")
                                            for part in p.relative_to(ROOT).parts)]
    return [ROOT / n for n in sorted(names) if SOURCE.search(n) and not n.startswith(SKIP_DIRS)
            and n != "scripts/config_vars.toml"]


def variables_in_code() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in source_files():
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for m in VARIABLE.finditer(text):
            found.setdefault(m.group(1) or m.group(2), set()).add(str(path.relative_to(ROOT)))
    return found


def commands() -> list[tuple[str, object]]:
    """(the command line that names it, click command) of every command and subcommand."""
    from rgpu.client.cli import cli as rgpu_cli
    from rgpu.controller.daemon import main as controller_main
    from rgpu.server.cli import main as server_main
    out = []

    def walk(prefix: str, cmd) -> None:
        out.append((prefix, cmd))
        for name in sorted(getattr(cmd, "commands", {}) or {}):
            walk(f"{prefix} {name}", cmd.commands[name])

    walk("rgpu", rgpu_cli)
    out.append(("rgpu-server", server_main))
    out.append(("rgpu-controller", controller_main))
    try:
        from rgpu.k8s.cli import cli as k8s_cli
    except ImportError:   # the k8s extra (grpc) is not installed: the reference still lists it from a full install
        raise SystemExit("gen_config_doc: rgpu.k8s.cli does not import (install the k8s extra: pip install -e '.[test]')")
    walk("rgpu-k8s", k8s_cli)
    return out


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(opt) -> str:
    if opt.is_flag and not opt.secondary_opts:
        return ""
    d = opt.default
    if callable(d) or d is None or d is False or d == () or type(d).__name__ == "Sentinel":
        return ""   # computed at run time (its help says how), or none
    return f"`{d}`"


def option_rows() -> list[tuple[str, str, str, str]]:
    import click
    rows = []
    for line, cmd in commands():
        for p in cmd.params:
            if not isinstance(p, click.Option) or p.hidden or p.name in ("help",):
                continue
            flags = ", ".join(p.opts + p.secondary_opts)
            env = p.envvar if isinstance(p.envvar, str) else ", ".join(p.envvar or ())
            meaning = _cell(p.help or "")
            if env:
                meaning += f" (env `{env}`)" if env not in meaning else ""
            rows.append((f"`{line} {flags}`", line, _default(p), meaning))
    return rows


def variable_rows() -> list[tuple[str, str, str, str]]:
    described = tomllib.loads(DESCRIPTIONS.read_text())
    meanings, ignored = described["variables"], described.get("not_variables", {})
    found = variables_in_code()
    missing = sorted(set(found) - set(meanings) - set(ignored))
    stale = sorted((set(meanings) | set(ignored)) - set(found))
    if missing or stale:
        lines = [f"  {v}: found in {', '.join(sorted(found[v])[:3])}; say what it means" for v in missing]
        lines += [f"  {v}: no longer in the code; remove its line" for v in stale]
        raise SystemExit("gen_config_doc: scripts/config_vars.toml does not match the code:\n" + "\n".join(lines))
    rows = []
    for name in sorted(meanings):
        who, _, meaning = meanings[name].partition(" | ")
        rows.append((f"`{name}`", _cell(who), "", _cell(meaning)))
    return rows


def render() -> str:
    from rgpu.client import exits
    table = ["| setting | read by | default | meaning |", "|---|---|---|---|"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in variable_rows() + option_rows()]
    codes = ["| exit code | meaning |", "|---|---|"] + [f"| {code} | {_cell(text)} |" for code, text in exits.TABLE]
    return "\n".join([
        "# Configuration reference",
        "",
        "<!-- Generated by scripts/gen_config_doc.py from the code and scripts/config_vars.toml: do not edit by",
        "     hand. CI fails when it is stale (tests/unit/test_config_doc.py). -->",
        "",
        "Every `RGPU_*` environment variable the code reads (client library, CLI, daemons, tests, benchmarks,",
        "scripts) and every option of every command, in one table; regenerate it with",
        "`.venv/bin/python scripts/gen_config_doc.py`. An option wins over its variable.",
        "",
        "Sizes (`--mem`, `RGPU_MEM`, `--sim-memory`, `rgpu.io/memory`): a bare number is MiB, every unit is",
        "binary (`512M`, `16G` = `16GB` = `16GiB`), and a share of a GPU is written with `%` (`50%`) or",
        "`--mem-fraction 0.5`. URLs: `tcp://HOST:PORT`, `HOST:PORT` or `ipc://PATH`.",
        "",
        *table,
        "",
        "## Exit codes of `rgpu`",
        "",
        "Every failure prints one line, `rgpu: error: MESSAGE [code]` (the daemons: `rgpu-server: error: ...`),",
        "or with `--json` one object `{\"ok\": false, \"error\": CODE, \"message\": ...}` on stdout, and exits with",
        "the code of its class (`client/exits.py`):",
        "",
        *codes,
        "",
    ])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/configuration.md is not what the code says")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run .venv/bin/python scripts/gen_config_doc.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
