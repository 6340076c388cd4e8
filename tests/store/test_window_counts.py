"""The polls of the live leaderboard never count every judgment (issue 37): on PostgreSQL, where
a row can commit after rows with larger ids, the change marker (``judgments_version``, polled
every 2 s by each open Leaderboard tab) and the leaderboard's late-commit check count only the
rows among the latest ids (a range of the primary key), not the whole table."""

from __future__ import annotations

import re
from typing import Any

import pytest
from contract_registry import contract_case
from pairwise_rows import judgment

from core.store.engine import Database
from core.store.fingerprints import LATE_WINDOW, judgments_version, recent_count_sql
from core.store.judgments import insert_judgments
from core.views.live_leaderboard import StoreLeaderboard

_COUNT = re.compile(r"count\(\*\)(?:\s+filter\s*\([^)]*\))?[^()]*?from judgments(?P<rest>[^()]*)")


def _spy(db: Database, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    for owner, name in ((db, "execute"), (db.conn, "execute")):
        real = getattr(owner, name)

        def spy(sql: str, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            seen.append(" ".join(sql.split()).lower())
            return _real(sql, *args, **kwargs)

        monkeypatch.setattr(owner, name, spy)
    return seen


@contract_case(insert_judgments, judgments_version)
def test_markers_count_a_range_of_ids_not_every_row(
    seeded: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = seeded
    insert_judgments(db, [judgment(f"human:p{i % 3}", "AB"[i % 2]) for i in range(30)])
    board = StoreLeaderboard()
    board.refresh(db)
    before = judgments_version(db)
    statements = _spy(db, monkeypatch)
    insert_judgments(db, [judgment("human:p0", "A")])
    assert judgments_version(db) != before
    board.refresh(db)
    assert len(board.counts) == 31
    counts = [m.group(0) for sql in statements for m in _COUNT.finditer(sql)]
    if db.dialect.name == "postgresql":
        assert counts  # the late-commit checks ran
    for found in counts:
        assert "where" in found and "id >" in found, found  # a window, never the whole table


def test_the_recent_count_is_a_range_of_the_latest_ids() -> None:
    sql = recent_count_sql("judgments")
    assert sql == (
        "(select count(*) from judgments where id > "
        f"(select coalesce(max(id), 0) from judgments) - {LATE_WINDOW})"
    )
