"""The app's cache keys see a label another server commits late (issue 25).

On PostgreSQL an identity value is handed out when a row is inserted, not when it commits: a
server can insert judgment X, another insert X+1 and commit first, and a reader then sees
``max(id) = X+1``; when X commits, ``max(id)`` does not move. A cache keyed on it (the pages'
``st.cache_data`` views, the verdict-summary memo) would hide X until the next insert. The keys
carry the tables' row counts on PostgreSQL (``Dialect.ids_in_commit_order``); on SQLite the one
write lock makes ids commit in order, so the largest id is enough there.
"""

from __future__ import annotations

from contract_registry import contract_case
from pairwise_rows import judgment

from core.store.connection import transaction
from core.store.database import open_db
from core.store.fingerprints import data_version, judgments_version
from core.store.judgments import (
    insert_judgment,
    max_judgment_id,
)
from core.store.verdict_reads import verdict_summary


def _raters(db) -> set[str]:
    return {row[0] for row in verdict_summary(db, "pairwise")}


@contract_case(
    data_version,
    insert_judgment,
    judgments_version,
    max_judgment_id,
    open_db,
    transaction,
    verdict_summary,
)
def test_a_label_committed_late_moves_every_key(seeded, db_path, backend):
    server_1, server_2, reader = (open_db(db_path) for _ in range(3))
    try:
        with transaction(server_1):
            late = insert_judgment(server_1, judgment("human:alice", "A"))  # not committed yet
            if backend == "postgresql":  # another server's insert commits first, a larger id
                assert insert_judgment(server_2, judgment("human:bob", "A")) > late
            before = (data_version(reader), judgments_version(reader), _raters(reader))
            largest = max_judgment_id(reader)
            assert "human:alice" not in before[2]
        after = (data_version(reader), judgments_version(reader), _raters(reader))
        assert after[0] != before[0] and after[1] != before[1]
        assert "human:alice" in after[2]  # the memoised summary was not served again
        if backend == "postgresql":
            assert max_judgment_id(reader) == largest  # the largest id alone would not move
        else:
            assert max_judgment_id(reader) == late > largest
    finally:
        for db in (server_1, server_2, reader):
            db.close()
