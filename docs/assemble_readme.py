"""Rebuild README.md from the sections in docs/readme/ (the test suite checks they agree).

Run: ``.venv/bin/python docs/assemble_readme.py``. Edit the sections, not README.md.
"""

from __future__ import annotations

from pathlib import Path

PARTS = [
    "00_intro",
    "models",
    "generation",
    "pipeline",
    "statistics",
    "app",
    "xrag",
    "exam",
    "99_reference",
]
ROOT = Path(__file__).resolve().parent.parent


def assemble() -> str:
    """README text: the sections in order, separated by one blank line."""
    texts = [
        (ROOT / "docs" / "readme" / f"{p}.md").read_text(encoding="utf-8").strip() for p in PARTS
    ]
    header = "<!-- Generated from docs/readme/*.md by docs/assemble_readme.py: edit those. -->\n"
    return header + "\n\n".join(texts) + "\n"


if __name__ == "__main__":
    (ROOT / "README.md").write_text(assemble(), encoding="utf-8")
    print("README.md rebuilt from", ", ".join(PARTS))
