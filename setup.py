"""Maps the design's folders (protocol/, server/, controller/, client/) to subpackages of `rgpu`.

setuptools cannot express "every package below folder X becomes rgpu.X.*" in pyproject.toml alone,
so the walk lives here; everything else is in pyproject.toml.
"""
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent
FOLDERS = {"rgpu": "rgpu", "rgpu.protocol": "protocol", "rgpu.server": "server",
           "rgpu.controller": "controller", "rgpu.client": "client", "rgpu.k8s": "k8s"}

packages, package_dir = [], {}
for pkg, folder in FOLDERS.items():
    for init in sorted((ROOT / folder).rglob("__init__.py")):
        rel = init.parent.relative_to(ROOT / folder)
        name = ".".join([pkg, *rel.parts]) if rel.parts else pkg
        packages.append(name)
        package_dir[name] = str(init.parent.relative_to(ROOT))

setup(packages=packages, package_dir=package_dir,
      package_data={"rgpu.protocol": ["contract/*.toml", "contract/calls/*.toml"], "rgpu.protocol.generated": ["*.py"]})
