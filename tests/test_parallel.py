"""The units of the parallel run (``make test``: pytest-xdist, scheduler in tests/conftest.py):
every real-browser test file shares the one browser scope, every other test stays with its file,
and the files started first exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# tests/conftest.py by its path: a bare ``import conftest`` finds whichever conftest module
# (tests/store/ has one) pytest imported first.
_spec = importlib.util.spec_from_file_location(
    "tests_root_conftest", ROOT / "tests" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
_root_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_root_conftest)
BROWSER_SCOPE = _root_conftest.BROWSER_SCOPE
SLOW_FIRST = _root_conftest.SLOW_FIRST
SHARED_SCOPE = _root_conftest.SHARED_SCOPE
xdist_scope = _root_conftest.xdist_scope
#: How a test file marks its tests as real-browser tests (the whole module, or one test).
MARKED = re.compile(r"^(pytestmark = .*pytest\.mark\.browser|\s*@pytest\.mark\.browser)", re.M)


def _test_files() -> list[Path]:
    return sorted((ROOT / "tests").rglob("test_*.py"))


def test_browser_tests_share_one_scope_and_others_keep_their_file() -> None:
    browser = []
    for path in _test_files():
        rel = path.relative_to(ROOT).as_posix()
        scope = xdist_scope(f"{rel}::test_something[case-1]")
        if MARKED.search(path.read_text(encoding="utf-8")):
            browser.append(rel)
            assert scope == BROWSER_SCOPE, rel
        else:
            assert scope == SHARED_SCOPE.get(rel, rel)
    assert len(browser) >= 5, browser  # the five browser files at the time of writing


def test_a_class_and_a_parameter_stay_in_the_file() -> None:
    nodeid = "tests/stats/test_x.py::TestY::test_z[a::b]"
    assert xdist_scope(nodeid) == "tests/stats/test_x.py"


def test_the_files_started_first_exist() -> None:
    for rel in SLOW_FIRST:
        assert (ROOT / rel).is_file(), rel


def test_files_sharing_a_cache_share_a_unit() -> None:
    """test_translated_novels runs in test_entity_measure's unit: one worker, one spaCy cache."""
    novels = "tests/generation/test_translated_novels.py::test_x[goriot]"
    assert xdist_scope(novels) == "tests/generation/test_entity_measure.py"
    for rel, unit in SHARED_SCOPE.items():
        assert (ROOT / rel).is_file() and (ROOT / unit).is_file(), (rel, unit)
        assert xdist_scope(f"{rel}::test_y") == xdist_scope(f"{unit}::test_z") == unit
