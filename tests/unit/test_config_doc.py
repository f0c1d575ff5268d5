"""docs/configuration.md is what scripts/gen_config_doc.py makes of the code: every RGPU_* variable the
sources read (with its meaning from scripts/config_vars.toml) and every option of every command. A
new variable or option without a regenerated reference fails here."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _gen():
    spec = importlib.util.spec_from_file_location("gen_config_doc", ROOT / "scripts" / "gen_config_doc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_configuration_reference_is_current():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_config_doc.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr + "\n(regenerate: .venv/bin/python scripts/gen_config_doc.py)"


def test_it_names_what_the_code_reads():
    text = (ROOT / "docs" / "configuration.md").read_text()
    for setting in ("`RGPU_MEM`", "`RGPU_SESSION_PORTS`", "`RGPU_SPIN_US`", "`rgpu run --mem`", "`rgpu reserve --shell`",
                    "`rgpu-server --session-ports`", "`rgpu-controller --init-secret`", "`rgpu-server --secret-file`"):
        assert setting in text, setting
    assert "| 127 |" in text and "| 2 |" in text            # the exit codes


def test_a_variable_without_a_meaning_is_refused(monkeypatch):
    gen = _gen()
    real = gen.variables_in_code
    new = "RGPU_" + "NEW_KNOB"     # spelt so that the scan of this file does not find it
    monkeypatch.setattr(gen, "variables_in_code", lambda: {**real(), new: {"server/x.py"}})
    with pytest.raises(SystemExit, match="RGPU_NEW_KNOB: found in server/x.py; say what it means"):
        gen.render()
    monkeypatch.setattr(gen, "variables_in_code", lambda: {k: v for k, v in real().items() if k != "RGPU_SHM"})
    with pytest.raises(SystemExit, match="RGPU_SHM: no longer in the code"):
        gen.render()
