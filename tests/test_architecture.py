"""The code's shape, checked on the source (docs/ARCHITECTURE.md).

import-linter (``pyproject.toml``, run by ``make test``) enforces the layers and the absence of
cycles; these tests check what it cannot: page rules, module size, the top level of ``core``,
module ``__getattr__`` shims, and a reason beside every import made inside a function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
CORE = sorted((ROOT / "core").rglob("*.py"))
MAX_LINES = 400


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_run_no_sql_and_render_no_html(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\b(execute|executemany|query)\(", text), "SQL belongs in core"
    assert not re.search(
        r"(?i)\b(select|insert|update|delete)\s+[\w*(]", text.replace("select a row", "")
    ), "SQL belongs in core"
    assert "unsafe_allow_html=True" not in text


def test_core_top_level_has_at_most_16_entries():
    entries = [p.name for p in (ROOT / "core").iterdir() if p.name != "__pycache__"]
    assert len(entries) <= 16, sorted(entries)


@pytest.mark.parametrize("module", CORE, ids=_rel)
def test_module_is_short(module):
    n = len(module.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{_rel(module)} has {n} lines; split it by job"


@pytest.mark.parametrize("module", CORE, ids=_rel)
def test_no_module_getattr_and_reasoned_deferred_imports(module):
    text = module.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    assert not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body), (
        "no module __getattr__ shims"
    )
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for st in ast.walk(fn):
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                span = lines[st.lineno - 1 : st.end_lineno]
                assert any("#" in line for line in span), (
                    f"{_rel(module)}:{st.lineno}: an import inside a function needs a one-line "
                    "reason (an optional or heavy dependency, or CLI start-up)"
                )
                mod = st.module if isinstance(st, ast.ImportFrom) else st.names[0].name
                if (
                    mod
                    and mod.startswith("core")
                    and not _rel(module).startswith(("core/cli/", "core/__main__.py"))
                ):
                    pytest.fail(f"{_rel(module)}:{st.lineno}: project imports belong at the top")


@pytest.mark.parametrize(
    "package",
    sorted(p for p in (ROOT / "core").iterdir() if p.is_dir() and p.name != "__pycache__"),
    ids=lambda p: p.name,
)
def test_package_init_reexports_nothing(package):
    """A package's ``__init__`` holds its docstring only: every name has one import path."""
    init = package / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], _rel(init)
