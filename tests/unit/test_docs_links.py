"""The README and docs/ link only to files and headings that exist (GitHub's heading anchors), and the
README keeps its two commands."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    out = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_link_resolves():
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_keeps_its_two_commands_and_links_the_guides():
    readme = (ROOT / "README.md").read_text()
    assert "    ./scripts/demo.sh\n" in readme and "    ./scripts/test.sh\n" in readme
    for page in ("getting-started", "cluster", "frameworks", "configuration", "troubleshooting", "architecture"):
        assert f"docs/{page}.md" in readme, page
    assert "../shared" not in readme and all("../shared" not in p.read_text() for p in PAGES)
