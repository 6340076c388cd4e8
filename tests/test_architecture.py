"""Layering rules of docs/ARCHITECTURE.md, checked on the source text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
CORE = sorted((ROOT / "core").rglob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_run_no_sql_and_render_no_html(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\b(execute|executemany|query)\(", text), "SQL belongs in core"
    assert not re.search(r"(?i)\b(select|insert|update|delete)\s+[\w*(]", text.replace(
        "select a row", "")), "SQL belongs in core"
    assert "unsafe_allow_html=True" not in text


@pytest.mark.parametrize("module", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_streamlit(module):
    assert not re.search(r"^\s*(import|from)\s+streamlit\b", module.read_text(encoding="utf-8"),
                         re.M)


@pytest.mark.parametrize("name", ["ranking_counts", "ranking_fit", "ranking_board",
                                  "ranking_length", "agreement", "agreement_measures",
                                  "agreement_bias", "stats"])
def test_statistics_modules_import_nothing_of_the_project_but_errors(name):
    """Statistics modules may use each other and core.errors, nothing else of the project."""
    text = (ROOT / "core" / f"{name}.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^\s*(?:from|import)\s+(core\.[\w.]+)", text, re.M))
    assert not re.search(r"^\s*from\s+\.", text, re.M), "use absolute imports"
    statistics = {"core.stats", "core.stats.pairwise_counts", "core.stats.bradley_terry", "core.stats.leaderboard",
                  "core.stats.length_control", "core.stats", "core.stats.agreement",
                  "core.stats.rater_bias", "core.stats.significance"}
    assert imported <= statistics | {"core.errors"}, imported
