"""The test matrix (issue 33, rules in tests/conftest.py): the store's tests run on both databases,
everything above the store once, on SQLite; a test marked ``postgresql`` (the browser smoke test)
or choosing its backend itself keeps its PostgreSQL run; a store contract case must run on both."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# tests/conftest.py by its path (as tests/test_parallel.py does: ``import conftest`` is ambiguous)
_spec = importlib.util.spec_from_file_location("tests_matrix_conftest", ROOT / "tests/conftest.py")
assert _spec is not None and _spec.loader is not None
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)


@dataclass
class _Callspec:
    params: dict[str, Any]


@dataclass
class _Mark:
    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Item:
    """What the rules read of a ``pytest.Item``."""

    nodeid: str
    backend: str | None
    marks: list[_Mark] = field(default_factory=list)

    @property
    def callspec(self) -> _Callspec | None:
        return None if self.backend is None else _Callspec({"backend": self.backend})

    def get_closest_marker(self, name: str) -> _Mark | None:
        return next((m for m in self.marks if m.name == name), None)

    def iter_markers(self, name: str) -> list[_Mark]:
        return [m for m in self.marks if m.name == name]


class _Config:
    def __init__(self, backends: str = "sqlite,postgresql", everywhere: bool = False) -> None:
        self.options = {"--backends": backends, "--pg-everywhere": everywhere}

    def getoption(self, name: str) -> Any:
        return self.options[name]


def _runs(item: _Item, config: _Config | None = None) -> bool:
    return not _conftest._deselected(config or _Config(), item)


def test_the_store_runs_on_both_and_the_rest_on_sqlite_only() -> None:
    for backend in ("sqlite", "postgresql"):
        assert _runs(_Item(f"tests/store/test_x.py::test_y[{backend}]", backend))
    assert _runs(_Item("tests/cli/test_x.py::test_y[sqlite]", "sqlite"))
    assert not _runs(_Item("tests/cli/test_x.py::test_y[postgresql]", "postgresql"))
    assert not _runs(_Item("tests/test_team_load.py::test_y[postgresql]", "postgresql"))
    assert _runs(_Item("tests/cli/test_x.py::test_no_database", None))


def test_a_marked_test_or_one_choosing_postgresql_keeps_its_postgresql_run() -> None:
    marked = _Mark("postgresql", ("the browser smoke test",))
    assert _runs(_Item("tests/app/test_browser.py::test_y[postgresql]", "postgresql", [marked]))
    for argnames in ("backend", "backend, other", ("other", "backend")):
        chosen = _Mark("parametrize", (argnames, ["postgresql"]))
        assert _runs(_Item("tests/cli/test_x.py::test_y[postgresql]", "postgresql", [chosen]))
    unrelated = _Mark("parametrize", ("backends_seen", [1]))
    assert not _runs(_Item("tests/cli/test_x.py::test_y[postgresql]", "postgresql", [unrelated]))


def test_pg_everywhere_and_backends_still_choose() -> None:
    item = _Item("tests/cli/test_x.py::test_y[postgresql]", "postgresql")
    assert _runs(item, _Config(everywhere=True))
    assert not _runs(item, _Config(backends="sqlite", everywhere=True))
    store = _Item("tests/store/test_x.py::test_y[postgresql]", "postgresql")
    assert not _runs(store, _Config(backends="sqlite"))
    only = _Mark("sqlite_only", ("a test of the SQLite file",))
    assert not _runs(_Item("tests/store/test_x.py::test_y[postgresql]", "postgresql", [only]))


def test_a_contract_case_that_does_not_run_on_both_is_refused() -> None:
    case = _Mark("store_contract")
    _conftest._check_contract_case(_Item("tests/store/test_x.py::test_y[sqlite]", "sqlite", [case]))
    refused = [
        _Item("tests/store/test_x.py::test_y", None, [case]),
        _Item("tests/cli/test_x.py::test_y[sqlite]", "sqlite", [case]),
        _Item("tests/store/test_x.py::test_y[sqlite]", "sqlite", [case, _Mark("sqlite_only")]),
        _Item(
            "tests/store/test_x.py::test_y[postgresql]",
            "postgresql",
            [case, _Mark("parametrize", ("backend", ["postgresql"]))],
        ),
    ]
    for item in refused:
        with pytest.raises(pytest.UsageError, match="runs on both backends"):
            _conftest._check_contract_case(item)
