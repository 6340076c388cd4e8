"""``benchmarks/team_load.py``'s protocol client against a real server (issue 37): two annotators,
each one websocket speaking Streamlit's ``BackMsg`` / ``ForwardMsg`` protocol, sign in with their
own one-time link and make keyboard verdicts on Side by side at once; every confirmed verdict is
stored exactly once, on its own item, under the person who signed in. No browser needed."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from bound_sql import run_sql
from browser_server import WAIT_S, streamlit_app
from browser_support import build_fixture_db
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from core.store.accounts import create_account
from core.store.database import open_db
from core.store.judgments import effective_judgments, max_judgment_id

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from team_bench import databases, protocol  # noqa: E402  (benchmarks/ is on the path above)

ACTIONS = 3


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The fixture database (21 side-by-side items) and one server over it."""
    tmp = tmp_path_factory.mktemp("team_protocol")
    db_path = tmp / "team.db"
    build_fixture_db(db_path)
    with streamlit_app(db_path, tmp / "streamlit.log") as base:
        yield db_path, base


def _accounts(db_path: Path, *names: str) -> list[tuple[str, str]]:
    db = open_db(db_path)
    try:
        return [(name, create_account(db, name)) for name in names]
    finally:
        db.close()


def test_two_protocol_annotators_store_each_label_once_as_themselves(
    served: tuple[Path, str],
) -> None:
    db_path, base = served
    people = _accounts(db_path, "team-alice", "team-bob")  # escaped in Markdown: team\\-alice
    db = open_db(db_path)
    since = max_judgment_id(db)
    db.close()
    args = argparse.Namespace(actions=ACTIONS, action_timeout=WAIT_S, think=(0.0, 0.0))
    results, usage = asyncio.run(protocol.run_round([base], people, args, {}))

    for result in results:
        assert result["errors"] == [] and len(result["times"]) == ACTIONS, result
    assert usage.figures("clients")["cpu_s"] >= 0
    assert databases.stored_check(db_path, results, since) == (0, 0)  # none lost, none doubled
    db = open_db(db_path)
    try:
        for name, _ in people:
            mine = effective_judgments(db, kind="pairwise", rater=f"human:{name}")
            assert len(mine) == ACTIONS  # attributed to the person signed in, once each
            items = {(j.question_id, *sorted((j.system_a, j.system_b))) for j in mine}
            assert len(items) == ACTIONS and all(j.verdict for j in mine)
        humans = run_sql(
            db,
            "select rater, count(*) from judgments where id > :since group by rater",
            since=since,
        ).fetchall()
    finally:
        db.close()
    assert sorted(map(tuple, humans)) == [
        ("human:team-alice", ACTIONS),
        ("human:team-bob", ACTIONS),
    ]


def test_a_key_without_a_button_is_not_confirmed(served: tuple[Path, str]) -> None:
    """A key the page has no shortcut for sends nothing and says what the page showed."""
    db_path, base = served
    [(name, token)] = _accounts(db_path, "carol")

    async def press_nothing() -> str:
        tab = await protocol.sign_in(base, name, token, WAIT_S)
        try:
            with pytest.raises(protocol.NotConfirmed) as refused:
                await tab.press("9", WAIT_S)
            return str(refused.value)
        finally:
            await tab.close()

    assert asyncio.run(press_nothing()).startswith(
        "no button has the shortcut '9'; progress ['0 of "
    )


def test_a_verdict_reruns_only_the_decision_area(served: tuple[Path, str]) -> None:
    """A verdict key reruns the decision area's fragment, not the whole page (issue 37: a
    full-page rerun per key was most of a label's CPU): the run it triggers ends as a fragment
    run, the progress moves on and the next item is shown."""
    db_path, base = served
    [(name, token)] = _accounts(db_path, "dave")

    async def one_verdict() -> tuple[int, int, int, bool]:
        tab = await protocol.sign_in(base, name, token, WAIT_S)
        try:
            before = tab.done()
            status = await tab.press("1", WAIT_S)
            return status, before, tab.done(), tab.shows_heading("Answer A")
        finally:
            await tab.close()

    status, before, after, next_shown = asyncio.run(one_verdict())
    assert status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, status
    assert after == before + 1 and next_shown
