"""Every public store function has a store contract case (issue 33): a test that calls it on
SQLite and on PostgreSQL, registered with ``contract_registry`` (how: tests/store/README.md).

The functions that have none yet are :data:`KNOWN_MISSING`; the list only shrinks (its length
may not pass :data:`MOST_MISSING`; lower that number when you add cases)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import contract_registry

import core.store

HERE = Path(__file__).resolve().parent

#: Public store functions without a contract case yet: none (issue 33). Never add a name: a new
#: public store function comes with its case.
KNOWN_MISSING: frozenset[str] = frozenset()
#: The most :data:`KNOWN_MISSING` may hold: it only goes down.
MOST_MISSING = 0


def store_modules() -> list[ModuleType]:
    """Every module ``core/store/*.py`` (not the migrations package)."""
    infos = pkgutil.iter_modules(core.store.__path__)
    return [importlib.import_module(f"core.store.{i.name}") for i in infos if not i.ispkg]


def public_functions(modules: Iterable[ModuleType]) -> set[str]:
    """``module.function`` of each public function defined in ``modules`` (not imported into
    them: an imported name is its own module's)."""
    found = set()
    for module in modules:
        short = module.__name__.rsplit(".", 1)[-1]
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value):
                continue
            if value.__module__ == module.__name__:
                found.add(f"{short}.{name}")
    return found


def registered() -> dict[str, set[str]]:
    """The registry after importing every ``tests/store/test_*.py`` (their decorators fill it)."""
    for path in sorted(HERE.glob("test_*.py")):
        importlib.import_module(path.stem)
    return contract_registry.REGISTRY


def test_every_public_store_function_has_a_contract_case() -> None:
    public = public_functions(store_modules())
    uncovered = public - set(registered()) - KNOWN_MISSING
    assert not uncovered, (
        f"{len(uncovered)} public store function(s) without a contract case: "
        f"{sorted(uncovered)}; add a test on both databases with @contract_case(...) "
        "(tests/store/README.md)"
    )


def test_known_missing_only_shrinks() -> None:
    public = public_functions(store_modules())
    assert len(KNOWN_MISSING) <= MOST_MISSING
    gone = KNOWN_MISSING - public
    assert not gone, f"no longer public store functions, delete from KNOWN_MISSING: {sorted(gone)}"
    done = KNOWN_MISSING & set(registered())
    assert not done, f"these have a contract case now, delete from KNOWN_MISSING: {sorted(done)}"


def test_the_lister_sees_a_planted_function_and_not_an_import() -> None:
    planted = ModuleType("core.store.planted")
    exec(  # a module as a file would be
        "from core.store.answers import get_answer\n"
        "def new_reader(db): return 1\n"
        "def _helper(): return 2\n",
        planted.__dict__,
    )
    assert public_functions([planted]) == {"planted.new_reader"}
    assert "planted.new_reader" not in registered()
