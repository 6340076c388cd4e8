"""The store boundary (issue 26): every table is queried only in ``core/store/``, and the views
only read.

The table list is not written here: it is read from ``sqlite_master`` of a database with every
migration applied, so a table added by a new migration is covered without editing this file.
Each check has planted cases below that it must flag (the checks can fail).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sqlite3
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from bound_sql import sql_rows

from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
OUTSIDE_STORE = sorted(p for p in CORE.rglob("*.py") if p.relative_to(CORE).parts[0] != "store")
VIEWS = sorted((CORE / "views").rglob("*.py"))
#: Methods that run SQL on a connection or a `core.store.engine.Database`.
SQL_METHODS = {"execute", "executemany", "executescript", "query", "table", "rows_where"}
#: SQL verbs that change the database.
WRITE_VERBS = re.compile(r"(?i)\b(insert|update|delete|replace|create|drop|alter)\b")


@cache
def migrated_tables() -> frozenset[str]:
    """Every table and view the migrations create."""
    db = open_db(":memory:")
    try:
        return frozenset(db.table_names() + db.view_names())
    finally:
        db.conn.close()


@cache
def _sql_on_table() -> re.Pattern[str]:
    names = "|".join(sorted(map(re.escape, migrated_tables()), key=len, reverse=True))
    return re.compile(
        rf"(?is)\b(select|insert|update|delete|replace|with|create|drop|alter|pragma)\b.*"
        rf"\b(from|into|update|join|table|exists|on|table_info)\s*[\[\"'(]?\s*({names})\b"
    )


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Code strings (not docstrings): constants, and f-strings with ``{}`` for each value."""
    skip = _docstrings(tree) | {
        id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            yield (
                node.lineno,
                "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values),
            )


def _name(node: ast.expr) -> str:
    """The last identifier of ``db`` / ``self.db`` / ``x.conn`` (``""`` otherwise)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def sql_outside_store(source: str, name: str = "<module>") -> list[str]:
    """Where ``source`` (a module outside ``core/store``) touches the database itself: a string
    with SQL on a migrated table, a call of a connection's SQL method, ``db["table"]``, or an
    import of ``core.store.connection.rows`` (the raw-SQL reader)."""
    tree = ast.parse(source)
    tables = migrated_tables()
    found = [
        f"{name}:{line}: SQL on a table: {text.strip()[:60]!r}"
        for line, text in _strings(tree)
        if _sql_on_table().search(text)
    ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_METHODS
        ):
            found.append(f"{name}:{node.lineno}: .{node.func.attr}() runs SQL")
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value in tables
            and ("db" in _name(node.value).lower() or "conn" in _name(node.value).lower())
        ):
            found.append(f"{name}:{node.lineno}: {ast.unparse(node)} names a table")
        elif isinstance(node, ast.ImportFrom) and node.module == "core.store.connection":
            raw = {a.name for a in node.names} & {"rows", "connect"}
            if raw:
                found.append(f"{name}:{node.lineno}: imports {sorted(raw)} (raw SQL)")
    return found


@pytest.mark.parametrize("module", OUTSIDE_STORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_sql_outside_core_store(module: Path) -> None:
    """No module outside core/store runs SQL or names a table in a SQL string."""
    source = module.read_text(encoding="utf-8")
    assert sql_outside_store(source, str(module.relative_to(ROOT))) == []


def test_table_list_comes_from_the_migrations() -> None:
    tables = migrated_tables()
    # a few of each family, none of them written in a list the check uses
    assert {"judgments", "documents", "mentions", "llm_cache", "exam_grades", "xrag_results"} <= (
        tables
    )
    assert len(tables) >= 40


def test_boundary_check_flags_planted_sql() -> None:
    planted = (
        '"""Reads from documents (a docstring: allowed)."""\n'
        "from core.store.connection import rows\n"
        "def f(db):\n"
        '    return db.execute(f"select * from   passages where id = {1}")\n'
        "def g(db):\n"
        '    db["mentions"].insert({})\n'
        "def h(db, t):\n"
        "    return db.table(t)\n"
        "SQL = 'insert into llm_cache (key) values (?)'\n"
        "def i(conn):\n"
        "    conn.executemany(SQL, [])\n"
    )
    found = sql_outside_store(planted, "bad.py")
    lines = sorted(int(f.split(":")[1]) for f in found)
    assert lines == [2, 4, 4, 6, 8, 9, 11], found
    clean = "def f(store, x):\n    return store.documents(x)\nMSG = 'no documents found'\n"
    assert sql_outside_store(clean) == []


# -- views only read --------------------------------------------------------------------------


#: `core.store.engine.Table` methods that write.
TABLE_WRITERS = {"insert", "insert_all", "upsert", "upsert_all", "update", "delete", "delete_where"}


def _table_write(node: ast.AST) -> bool:
    """``db["t"].insert(...)`` / ``db.table("t").upsert(...)`` and the like (a pandas
    ``frame.insert`` or ``dict.update`` is not a database write)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in TABLE_WRITERS
    ):
        return False
    table = node.func.value
    if isinstance(table, ast.Subscript):
        return "db" in _name(table.value).lower()
    return isinstance(table, ast.Call) and _name(table.func) == "table"


#: SQLAlchemy Core's write builders: ``sa.insert(t)``, ``postgresql.insert(t)``,
#: ``statements.insert(db, t)``, ``sa.update`` / ``sa.delete`` (a ``dict.update`` is none).
CORE_WRITES = {"insert", "update", "delete", "upsert"}


def _core_write(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or _name(node.func) not in CORE_WRITES:
        return False
    func = node.func
    return isinstance(func, ast.Name) or (
        isinstance(func.value, ast.Name)
        and func.value.id in {"sa", "sqlalchemy", "postgresql", "sqlite", "statements"}
    )


@cache
def core_write_names() -> frozenset[str]:
    """Names of the store's Core write statements built once (a module constant holding an
    insert, update or delete, e.g. ``judgment_queries.INSERT``) and of the functions that build
    one (``question_queries.set_columns``): a store function using one writes."""
    out: set[str] = set()
    for path in sorted((CORE / "store").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = getattr(node, "value", None)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and value is not None:
                if any(_core_write(n) for n in ast.walk(value)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    out |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.FunctionDef) and node.name not in CORE_WRITES:
                if any(_core_write(n) for n in ast.walk(node)):
                    out.add(node.name)
    return frozenset(out)


def _writes_in(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(fn):
        if _table_write(node) or _core_write(node):
            return True
        if isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in core_write_names():
            return True
        if isinstance(node, ast.Call) and _name(node.func) in {"transaction", "executemany"}:
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.match(r"(?is)\s*(insert|update|delete|replace)\b", node.value)
        ):
            return True
    return False


@cache
def store_writers() -> frozenset[str]:
    """``core.store.<module>.<function>`` of every store function that writes: it opens a
    transaction, runs INSERT/UPDATE/DELETE, or calls a table writer (one level deep within
    its module: a function calling a writer of its own module writes too)."""
    out: set[str] = set()
    for path in sorted((CORE / "store").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        fns = {
            n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        writing = {name for name, fn in fns.items() if _writes_in(fn)}
        for name, fn in fns.items():
            calls = {_name(c.func) for c in ast.walk(fn) if isinstance(c, ast.Call)}
            if calls & writing:
                writing.add(name)
        out |= {f"core.store.{path.stem}.{name}" for name in writing}
    return frozenset(out)


def view_writes(source: str, name: str = "<view>") -> list[str]:
    """Static check of a view module: no write SQL, no table writer, no store writer."""
    tree = ast.parse(source)
    found = [
        f"{name}:{line}: write SQL {text.strip()[:50]!r}"
        for line, text in _strings(tree)
        if re.match(r"(?is)\s*(insert|update|delete|replace)\s+(into\s+)?\w+", text)
        and WRITE_VERBS.search(text)
    ]
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("core.store")
        ):
            for a in node.names:
                imported[a.asname or a.name] = f"{node.module}.{a.name}"
    writers = store_writers()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target = imported.get(_name(node.func), "") if isinstance(node.func, ast.Name) else ""
        if target in writers or target.endswith(".transaction"):
            found.append(f"{name}:{node.lineno}: calls the store writer {target}")
        if _table_write(node):
            found.append(f"{name}:{node.lineno}: .{_name(node.func)}() writes")
    return found


@pytest.mark.parametrize("module", VIEWS, ids=lambda p: str(p.relative_to(ROOT)))
def test_views_do_not_write(module: Path) -> None:
    assert view_writes(module.read_text(encoding="utf-8"), str(module.relative_to(ROOT))) == []


def test_view_write_check_flags_planted_writes() -> None:
    assert "core.store.judgments.insert_judgment" in store_writers()
    assert "core.store.judgments.latest_verdicts" not in store_writers()
    planted = (
        "from core.store.judgments import insert_judgment, latest_verdicts\n"
        "from core.store.connection import transaction\n"
        "def show(db):\n"
        "    return latest_verdicts(db, 'c')\n"
        "def record(db):\n"
        "    with transaction(db):\n"
        "        insert_judgment(db, {})\n"
        "    db['x'].upsert({}, pk='id')\n"
        "SQL = 'delete from settings'\n"
        "def frame(table):\n"
        "    table.insert(0, 'rank', [1])\n"
    )
    lines = sorted(int(f.split(":")[1]) for f in view_writes(planted, "bad.py"))
    assert lines == [6, 7, 8, 9]


# -- views only read, at run time -------------------------------------------------------------

_WRITE_ACTIONS = {
    getattr(sqlite3, name)
    for name in dir(sqlite3)
    if name.startswith(("SQLITE_INSERT", "SQLITE_UPDATE", "SQLITE_DELETE", "SQLITE_DROP_"))
    or name.startswith(("SQLITE_CREATE_", "SQLITE_ALTER_TABLE"))
}


class WriteGuard:
    """A sqlite authorizer that refuses and records every write to the main database."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def __call__(
        self, action: int, a: str | None, b: str | None, dbname: str | None, _: Any
    ) -> int:
        if action in _WRITE_ACTIONS and dbname in ("main", None):
            self.writes.append(f"{action}:{a}")
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK


def call_views(
    db: Any, functions: list[Callable[..., Any]], values: dict[str, Any]
) -> tuple[list[str], int]:
    """Call each function whose required parameters are all in ``values`` on ``db`` under a
    :class:`WriteGuard`; return ``(writes, number called)``. Errors other than a refused write
    are the function's business (odd sample arguments): the guard records the attempt either
    way."""
    guard = WriteGuard()
    db.conn.set_authorizer(guard)
    called = 0
    try:
        for fn in functions:
            params = inspect.signature(fn).parameters.values()
            needed = [p for p in params if p.default is p.empty and p.kind <= p.KEYWORD_ONLY]
            if not all(p.name in values for p in needed):
                continue
            before = len(guard.writes)
            called += 1
            try:
                fn(**{p.name: values[p.name] for p in needed})
            except Exception:  # noqa: BLE001 - only the writes matter here
                pass
            guard.writes[before:] = [
                f"{fn.__module__}.{fn.__name__}: {w}" for w in guard.writes[before:]
            ]
    finally:
        db.conn.set_authorizer(None)
    return guard.writes, called


def _public_view_functions() -> list[Callable[..., Any]]:
    out = []
    for path in VIEWS:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if name.endswith("__init__"):
            continue
        mod = importlib.import_module(name)
        out += [
            f
            for n, f in sorted(vars(mod).items())
            if not n.startswith("_") and inspect.isfunction(f) and f.__module__ == mod.__name__
        ]
    return out


@pytest.fixture(scope="module")
def fixture_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    from browser_support import build_fixture_db  # the shared fixture database of the page tests

    path = tmp_path_factory.mktemp("views") / "v.db"
    ids = build_fixture_db(path)
    db = open_db(path)
    yield db, ids
    db.conn.close()


def _sample_values(db: Any, ids: dict[str, Any]) -> dict[str, Any]:
    from core.store.judgments import pairwise_raters  # a store reader, for sample arguments

    raters = sorted(pairwise_raters(db)) or ["auto:none"]
    return {
        "db": db,
        "question_id": ids["generated"][0],
        "doc_id": ids["document_id"],
        "document_id": ids["document_id"],
        "rater": raters[0],
        "rater_a": raters[0],
        "rater_b": raters[-1],
        "task": "side-by-side",
        "seed": 0,
        "n_boot": 20,
        "viewer": None,
    }


def test_views_write_nothing_when_called(fixture_db: tuple[Any, dict[str, Any]]) -> None:
    """Every public view function that can be called with sample arguments runs on the fixture
    database without one write."""
    db, ids = fixture_db
    writes, called = call_views(db, _public_view_functions(), _sample_values(db, ids))
    assert writes == []
    assert called >= 40


def test_write_guard_flags_a_planted_writing_view(fixture_db: tuple[Any, dict[str, Any]]) -> None:
    db, ids = fixture_db

    def writes_a_setting(db: Any) -> None:
        db.execute("insert into settings (key, value) values ('planted', '1')")

    def reads(db: Any, question_id: str) -> int:
        return len(sql_rows(db, "select * from questions where id = :id", id=question_id))

    writes, called = call_views(db, [writes_a_setting, reads], _sample_values(db, ids))
    assert called == 2 and len(writes) == 1 and "writes_a_setting" in writes[0]
    assert not db.execute("select 1 from settings where key = 'planted'").fetchall()
