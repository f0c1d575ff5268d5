"""Where rgpu keeps a user's configuration: the cluster secret of the single-machine default, the
controller's public certificate, the user's credential and (for a controller) its users directory.

``RGPU_CONFIG_DIR`` names it; else ``$XDG_CONFIG_HOME/rgpu``; else ``~/.config/rgpu``."""
from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    if os.environ.get("RGPU_CONFIG_DIR"):
        return Path(os.environ["RGPU_CONFIG_DIR"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "rgpu"
