"""The store contract registry (issue 33): which test calls each public store function on both
databases. ``tests/store/test_store_registry.py`` lists every public function of the
``core/store/*.py`` modules and fails when one has no case here (or in its ``KNOWN_MISSING``).

Two ways to register a case, in any ``tests/store/test_*.py`` file (they run on both backends):

- ``@contract_case(answers.save_answer, get_answer)`` on a test: the test calls those functions;
- ``@contract_table(CASES)`` on a ``test_x(db, case)`` with ``CASES`` a list of
  :class:`ContractCase`: one test per row (``case.run(db)``), each row's functions registered.

Functions are passed as objects, not names: a renamed or deleted function breaks the import, not
the registry. A registered test is marked ``store_contract``; collection refuses one that does not
run on PostgreSQL (``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

#: ``module.function`` (the module's name under ``core.store``) -> the tests that call it.
REGISTRY: dict[str, set[str]] = {}


def qualified(function: Callable[..., Any]) -> str:
    """``answers.save_answer`` for ``core.store.answers.save_answer``."""
    module = function.__module__
    if not module.startswith("core.store."):
        raise ValueError(f"{module}.{function.__qualname__} is not a core.store function")
    return f"{module.removeprefix('core.store.')}.{function.__qualname__}"


def _register(functions: Sequence[Callable[..., Any]], where: str) -> None:
    if not functions:
        raise ValueError(f"{where}: a contract case names at least one store function")
    for function in functions:
        REGISTRY.setdefault(qualified(function), set()).add(where)


def contract_case(*functions: Callable[..., Any]) -> Callable[[Any], Any]:
    """Decorator of a test that calls ``functions`` (store functions) on both databases."""

    def mark(test: Any) -> Any:
        _register(functions, f"{test.__module__}::{test.__qualname__}")
        return pytest.mark.store_contract(test)

    return mark


@dataclass(frozen=True)
class ContractCase:
    """One row of a table-driven contract test: ``run(db)`` calls ``functions`` and asserts."""

    name: str
    functions: tuple[Callable[..., Any], ...]
    run: Callable[[Any], None] = field(repr=False)


def contract_table(cases: Sequence[ContractCase]) -> Callable[[Any], Any]:
    """Decorator of a ``test_x(db, case)``: parametrised over ``cases`` (ids = their names)."""
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"contract case names repeat: {sorted(names)}")

    def mark(test: Any) -> Any:
        for case in cases:
            _register(case.functions, f"{test.__module__}::{test.__qualname__}[{case.name}]")
        parametrised = pytest.mark.parametrize("case", cases, ids=names)(test)
        return pytest.mark.store_contract(parametrised)

    return mark
