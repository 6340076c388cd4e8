"""The live leaderboard counts a verdict another server commits late (issue 25).

On PostgreSQL an id is handed out at insert, not at commit: server 1 inserts verdict X, server 2
inserts X+1 and commits first, and a board that read up to X+1 would never read X with
``id > last_id``. The board notices that more rows are stored up to its last id than it read and
reads again. On SQLite the write lock makes ids commit in order (server 2 would wait), so there
the same steps run without the second server's insert and must give the same result.
"""

from __future__ import annotations

import pytest
from browser_support import build_fixture_db

from core.store.connection import transaction
from core.store.database import open_db
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment
from core.views.live_leaderboard import StoreLeaderboard


def _verdict(rater: str, question: str, verdict: str) -> NewJudgment:
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id=question,
        rater=rater,
        rater_kind=RaterKind.HUMAN,
        criterion="better",
        system_a="fixture-a",
        system_b="fixture-b",
        order_shown="ab",
        verdict=verdict,
    )


@pytest.mark.postgresql("only on PostgreSQL does a larger id commit first")
def test_a_verdict_committed_late_is_counted(db_path, backend):
    build_fixture_db(db_path)  # auto-raters' pairwise verdicts on three systems
    server_1, server_2, reader = (open_db(db_path) for _ in range(3))
    try:
        start = StoreLeaderboard()
        start.refresh(reader)
        before = len(start.counts)
        # the bulk first read, and the row-by-row one (a where filter)
        boards = [StoreLeaderboard(), StoreLeaderboard(where=lambda row: True)]
        for board in boards:
            board.refresh(reader)
        with transaction(server_1):
            late = insert_judgment(server_1, _verdict("human:alice", "gen-0", "A"))
            if backend == "postgresql":  # another server's verdict commits first, a larger id
                assert insert_judgment(server_2, _verdict("human:bob", "gen-1", "A")) > late
            for board in boards:
                board.refresh(reader)
                assert late not in board._active
        for board in boards:
            board.refresh(reader)
            fresh = StoreLeaderboard(where=board.where)
            fresh.refresh(reader)
            assert late in board._active  # not left out for good
            assert board._active == fresh._active
            added = 2 if backend == "postgresql" else 1
            assert len(board.counts) == len(fresh.counts) == before + added
            assert (board.counts.win_matrix() == fresh.counts.win_matrix()).all()
    finally:
        for db in (server_1, server_2, reader):
            db.close()
