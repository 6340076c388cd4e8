"""``benchmarks/team_load.py`` without browsers: its command line and configurations, the ceiling
and the early stop, the per-configuration databases, the process sampling, and the throwaway
PostgreSQL helper it shares with the tests (``scripts/throwaway_pg.py``)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from qa_fixtures import seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import team_load  # noqa: E402  (benchmarks/ is on the path above)
from team_bench import browser, databases, protocol, report, usage  # noqa: E402
from team_load import Config, ceiling, over, parse_args, parse_configs, parse_n  # noqa: E402

from core.store.accounts import account_names, verify_token  # noqa: E402
from core.store.database import open_db  # noqa: E402
from core.store.judgments import (  # noqa: E402
    JudgmentKind,
    NewJudgment,
    RaterKind,
    insert_judgments,
    max_judgment_id,
)
from core.store.settings import int_setting  # noqa: E402
from scripts import throwaway_pg  # noqa: E402


def test_configs_parse_in_order_and_refuse_mistakes() -> None:
    assert parse_configs("sqlite:1, postgresql:2,postgresql:4") == [
        Config("sqlite", 1),
        Config("postgresql", 2),
        Config("postgresql", 4),
    ]
    assert parse_configs("postgresql")[0].label == "postgresql:1"
    for bad, reason in [
        ("mysql:1", "one of sqlite, postgresql"),
        ("sqlite:0", "from 1 to 99"),
        ("postgresql:two", "from 1 to 99"),
        ("sqlite:1,sqlite:1", "given twice"),
        (",", "at least one"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_configs(bad)


def test_n_is_sorted_and_checked() -> None:
    assert parse_n("8,1,4") == [1, 4, 8]
    for bad in ("", "0,4", "1,x", "4,4"):
        with pytest.raises(ValueError, match="--n must be"):
            parse_n(bad)


def test_arguments_defaults_servers_and_quick() -> None:
    args = parse_args([])
    assert [c.label for c in args.configs] == [
        "sqlite:1",
        "postgresql:1",
        "postgresql:2",
        "postgresql:4",
    ]
    assert args.rounds == [1, 4, 8, 16, 32] and args.actions == 20 and args.db == "postgresql"
    assert args.client == "protocol" and args.think == (0.0, 0.0)  # closed loop, no browser
    paced = parse_args(["--think-seconds", "8-20", "--client", "browser", "--nice-clients", "5"])
    assert (paced.client, paced.think, paced.nice_clients) == ("browser", (8.0, 20.0), 5)
    assert parse_args(["--think-seconds", "10"]).think == (10.0, 10.0)
    assert [c.label for c in parse_args(["--servers", "3"]).configs] == ["sqlite:1", "postgresql:3"]
    quick = parse_args(["--quick"])
    assert (quick.rounds, quick.actions, quick.verdicts) == ([1, 2], 3, 5_000)
    assert [c.label for c in quick.configs] == ["sqlite:1", "postgresql:2"]
    given = parse_args(["--quick", "--configs", "sqlite:1", "--db", "postgresql://u@h/db"])
    assert [c.label for c in given.configs] == ["sqlite:1"] and given.db == "postgresql://u@h/db"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--servers", "2", "--configs", "sqlite:1"], "error: give --servers or --configs"),
        (["--servers", "0"], "error: --servers is a whole number"),
        (["--configs", "oracle:1"], "error: --configs: 'oracle:1'"),
        (["--n", "0"], "error: --n must be"),
        (["--actions", "0"], "error: --actions must be >= 1"),
        (["--db", "data/x.db"], "error: --db is a postgresql:// URL"),
        (["--think-seconds", "20-8"], "error: --think-seconds is SECONDS or LOW-HIGH"),
        (["--think-seconds", "x"], "error: --think-seconds is SECONDS or LOW-HIGH"),
        (["--nice-clients", "5"], "error: --nice-clients applies to --client browser"),
    ],
)
def test_bad_arguments_are_one_error_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_bad_arguments_build_nothing(tmp_path: Path) -> None:
    """The whole script refuses before building any database (no work folder appears)."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "team_load.py"), "--configs", "sqlite:x"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: --configs")
    assert list(tmp_path.iterdir()) == []


def _round(n: int, p95: float | None) -> dict:
    return {"annotators": n, "action_p95_s": p95}


def test_ceiling_is_the_first_n_over_two_seconds() -> None:
    rounds = {1: _round(1, 0.4), 4: _round(4, 1.9), 8: _round(8, 2.3), 16: _round(16, 7.0)}
    assert ceiling(rounds) == 8
    assert ceiling({1: _round(1, 0.4), 4: _round(4, 2.0)}) is None  # 2.0 s is within the goal
    # a round that confirmed no action at all is over any limit
    assert ceiling({1: _round(1, 0.4), 4: _round(4, None)}) == 4
    assert over(_round(16, 6.5), team_load.STOP_FACTOR * team_load.CEILING_S)
    assert not over(_round(8, 5.9), team_load.STOP_FACTOR * team_load.CEILING_S)


def test_table_and_line_show_every_figure() -> None:
    figures = {"cpu_s": 3.0, "cpu_pct": 40.0, "pss_mb": 700.0}
    r = {
        "annotators": 4,
        "actions": 80,
        "action_p50_s": 0.5,
        "action_p95_s": 1.2,
        "errors": 0,
        "lost_labels": 0,
        "doubled_labels": 0,
        "servers": figures,
        "postgres": {"cpu_s": 1.0, "cpu_pct": 12.5, "pss_mb": 90.0},
        "clients": figures,
        "server_cpu_s_per_action": 0.04,
        "postgres_cpu_s_per_action": 0.0125,
        "labels_per_s": 8.5,
        "load_avg_before": [1.0],
        "load_avg_after": [2.0],
    }
    text = report.table("postgresql:2", {4: r})
    assert (
        "| 4 | 0.5 / 1.2 | 80 (8.5) | 0, 0, 0 | 40.0 (0.04) | 700.0 | 12.5 (0.0125) / 90.0 |"
        in text
    )
    line = report.round_line(r)
    assert "80 actions (8.5 a second)" in line
    assert "postgres CPU 12.5 % (0.0125 s a label)" in line
    sqlite = {**r, "postgres": None}
    assert "| 700.0 | - |" in report.table("sqlite:1", {4: sqlite})
    assert "postgres" not in report.round_line(sqlite)


def test_niced_browser_wrapper(tmp_path: Path) -> None:
    assert browser.chromium(tmp_path, 0) == browser.CHROMIUM
    wrapper = Path(browser.chromium(tmp_path, 25))
    assert os.access(wrapper, os.X_OK)
    assert wrapper.read_text().splitlines()[1] == f'exec nice -n 19 {browser.CHROMIUM} "$@"'


def test_a_failed_action_reports_who_which_and_what_the_page_showed() -> None:
    """An action that is never confirmed is an error naming the annotator and the action, with
    the page's progress, app state and messages (here a page without the app at all)."""
    import asyncio

    from browser_server import require_browser

    require_browser()
    from playwright.async_api import async_playwright

    async def attempt() -> dict:
        async with async_playwright() as pw:
            chromium = await pw.chromium.launch(executable_path=browser.CHROMIUM, headless=True)
            page = await chromium.new_page()
            await page.set_content("<h1>Side by side</h1><p>no app here</p>")
            result = await browser.annotate(page, "alice", 3, timeout_s=0.3)
            await chromium.close()
            return result

    result = asyncio.run(attempt())
    assert result["times"] == [] and result["pressed"] == 1  # the first error ends the run
    (error,) = result["errors"]
    assert error.startswith("alice action 1: TimeoutError: ")
    assert error.endswith("; progress ''; no app; page showed []")


def test_process_trees_group_a_root_with_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        trees = usage.process_trees({"me": [os.getpid()], "child": [child.pid]})
        assert os.getpid() in trees["me"] and child.pid not in trees["me"]  # nearest root wins
        assert set(trees["child"]) == {child.pid}
        with usage.Usage({"child": [child.pid]}) as sampled:
            pass
        figures = sampled.figures("child")
        assert set(figures) == {"cpu_s", "cpu_pct", "pss_mb"} and figures["pss_mb"] > 0
    finally:
        child.kill()
        child.wait()


def test_accounts_per_round_and_enough_items(db_path: Path | str) -> None:
    """One fresh account per annotator of each round; with too few side-by-side items for
    everyone's actions (none here), annotations_per_item is raised to what they need."""
    people = databases.accounts(db_path, [1, 2], actions=3)
    assert [name for name, _ in people[1] + people[2]] == ["load1-0", "load2-0", "load2-1"]
    db = open_db(db_path)
    try:
        assert account_names(db) == {"load1-0", "load2-0", "load2-1"}
        for name, token in people[1] + people[2]:
            assert verify_token(db, token).name == name  # each link signs its own person in
        assert int_setting(db, "annotations_per_item") == 9
    finally:
        db.close()


def _verdict(name: str, question: str, supersedes: int | None = None) -> NewJudgment:
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id=question,
        rater=f"human:{name}",
        rater_kind=RaterKind.HUMAN,
        system_a="s1",
        system_b="s2",
        order_shown="ab",
        verdict="A",
        supersedes=supersedes,
    )


def test_stored_check_counts_lost_and_doubled_labels(db_path: Path | str) -> None:
    """A round's labels read back: a confirmed action without a stored verdict is lost, a
    stored verdict beyond the person's key presses (the same item twice, or one press stored
    twice) is doubled; a row stored before the round and replaced in it is neither."""
    db = open_db(db_path)
    try:
        seed(db)  # questions q1 and q2
        insert_judgments(db, [_verdict("fine", "q2")])  # before the round
        since = max_judgment_id(db)
        insert_judgments(
            db,
            [
                _verdict("fine", "q1"),
                _verdict("fine", "q2", supersedes=since),  # replaces the earlier row
                _verdict("short", "q1"),  # two confirmed, one stored: one lost
                _verdict("twice", "q1"),
                _verdict("twice", "q1"),  # one press, stored twice: one doubled
            ],
        )
    finally:
        db.close()

    def result(name: str, confirmed: int, pressed: int) -> dict[str, Any]:
        return {"name": name, "times": [0.1] * confirmed, "pressed": pressed, "errors": []}

    fine = [result("fine", 2, 2)]
    assert databases.stored_check(db_path, fine, since) == (0, 0)
    assert databases.stored_check(db_path, [*fine, result("short", 2, 2)], since) == (1, 0)
    assert databases.stored_check(db_path, [*fine, result("twice", 1, 1)], since) == (0, 1)


def test_throwaway_helpers_refuse_unsafe_names_and_keep_the_query() -> None:
    url = "postgresql://me@db.lab:5432/workbench?sslmode=require"
    assert (
        throwaway_pg.database_url(url, "copy_1")
        == "postgresql://me@db.lab:5432/copy_1?sslmode=require"
    )
    assert throwaway_pg.database_name(url) == "workbench"
    with pytest.raises(ValueError, match="not a plain database name"):
        throwaway_pg.create_database(url, "x; drop table judgments")


def test_throwaway_server_without_binaries_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(throwaway_pg, "find_bindir", lambda: None)
    with pytest.raises(throwaway_pg.PgUnavailable, match="binaries"):
        with throwaway_pg.throwaway_server():
            pass


def test_fresh_databases_per_configuration(tmp_path: Path, pg_server: str) -> None:
    """A SQLite file copy, and a PostgreSQL copy of the built database (a template copy on its
    server) that is dropped when the block ends; the server's pid is found for the sampling."""
    base = tmp_path / "base.db"
    db = open_db(base)
    db.close()
    built = throwaway_pg.create_database(pg_server, "bench_team_test_built")
    try:
        open_db(built).close()
        with databases.Databases(tmp_path, base, built) as fresh:
            copy_sqlite = fresh.fresh("sqlite", "sqlite_1")
            copy_pg = str(fresh.fresh("postgresql", "postgresql_2"))
            assert Path(copy_sqlite).read_bytes() == base.read_bytes()
            assert throwaway_pg.database_name(copy_pg).startswith("bench_team_postgresql_2_")
            copied = open_db(copy_pg)
            try:
                assert "judgments" in copied.table_names()
            finally:
                copied.close()
            if not os.environ.get("WORKBENCH_TEST_PG"):  # a server of this machine
                pid = usage.postgres_pid(copy_pg)
                assert pid and Path(f"/proc/{pid}/comm").read_text().startswith("postgres")
        with psycopg.connect(pg_server) as admin:
            left = admin.execute(
                "select count(*) from pg_database where datname = %s",
                [throwaway_pg.database_name(copy_pg)],
            ).fetchone()
        assert left == (0,)
    finally:
        throwaway_pg.drop_database(pg_server, "bench_team_test_built")


@pytest.mark.parametrize("sample_s", [3600.0, 0.05])
def test_cpu_counts_a_child_that_starts_and_ends_between_samples(
    sample_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that lives only between two samples (a PostgreSQL backend of one short
    connection) is counted once: its CPU moves into its parent's cumulative counters when it is
    reaped, and the figure is read from those counters at the start and the end of the window,
    not from sampling live processes (issue 37). With no sample inside the window (3600 s) the
    child is not missed; with samples while it runs (0.05 s) it is not counted twice."""
    monkeypatch.setattr(usage, "SAMPLE_S", sample_s)
    burn = (
        "import subprocess, sys; sys.stdin.readline(); "
        "done = subprocess.run([sys.executable, '-c', "
        "'import time; t = time.process_time()\\nwhile time.process_time() - t < 0.4: pass\\n"
        "print(time.process_time())'], capture_output=True, text=True); "
        "print(done.stdout.strip(), flush=True); sys.stdin.readline()"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", burn], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        with usage.Usage({"parent": [parent.pid]}) as sampled:
            assert parent.stdin and parent.stdout
            parent.stdin.write("go\n")
            parent.stdin.flush()
            child_cpu = float(parent.stdout.readline())
        assert child_cpu >= 0.4
        # the child's whole CPU (less a clock tick of rounding each side) is in the figure, once
        # (the rest: the child's start-up before its clock began, the parent's spawn)
        assert child_cpu - 0.03 <= sampled.figures("parent")["cpu_s"] <= child_cpu + 0.2
    finally:
        parent.kill()
        parent.wait()


class _FakeTab:
    """A protocol tab whose key press is confirmed after ``press_s`` seconds of a fake clock."""

    def __init__(self, clock: list[float], press_s: float) -> None:
        self.clock, self.press_s, self.count = clock, press_s, 0

    def done(self) -> int:
        return self.count

    async def press(self, key: str, timeout_s: float) -> None:
        self.clock[0] += self.press_s
        self.count += 1

    def exceptions(self) -> list[str]:
        return []

    def shows_heading(self, text: str) -> bool:
        return True


def test_paced_annotators_think_before_each_key_and_the_think_is_not_timed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--think-seconds LO-HI``: before each key the protocol client waits a time drawn from
    LO..HI (here on a fake clock), and an action's time is the key to its confirmation only
    (issue 37's paced mode); closed loop (0, 0) does not wait at all."""
    clock = [0.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(protocol.asyncio, "sleep", sleep)
    monkeypatch.setattr(protocol.time, "perf_counter", lambda: clock[0])
    tab = _FakeTab(clock, 0.25)
    fake: Any = tab  # a Tab to annotate
    paced = asyncio.run(protocol.annotate(fake, "ann", 5, 30.0, (8.0, 20.0)))
    assert paced["errors"] == [] and paced["pressed"] == 5
    assert paced["times"] == [0.25] * 5  # the think time is not in the action's time
    assert len(waits) == 5 and all(8.0 <= w <= 20.0 for w in waits) and len(set(waits)) > 1
    waits.clear()
    closed = asyncio.run(protocol.annotate(fake, "ann", 3, 30.0, (0.0, 0.0)))
    assert closed["times"] == [0.25] * 3 and waits == []
