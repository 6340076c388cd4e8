"""``benchmarks/label_round_trips.py`` and its server hook (issue 33): a served label's round trips
on PostgreSQL, counted as ``tests/pg_round_trips.py`` counts them (a statement on its own is
one round trip, a pipeline one), one line a Streamlit script run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pg_server import pg_url  # noqa: F401  (fixture: a new empty PostgreSQL database)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from label_round_trips import HOOK, label_runs, summary  # noqa: E402

#: A script run under the hook: one statement on its own, two in a pipeline, then a run that
#: sends nothing (no line).
_RUNS = """
import importlib.util, sys
import psycopg
from streamlit.runtime.scriptrunner import script_runner

url, prefix = sys.argv[1], sys.argv[2]

def run(self, rerun_data):
    if rerun_data.sends:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("select 1")
            with conn.pipeline():
                conn.execute("select 2")
                conn.execute("select  3")

script_runner.ScriptRunner._run_script = run
spec = importlib.util.spec_from_file_location("trip_hook", sys.argv[3])
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)
hook._install(prefix)
data = type("Rerun", (), {"fragment_id_queue": ["f"], "sends": True})
script_runner.ScriptRunner._run_script(None, data())
data.sends = False
script_runner.ScriptRunner._run_script(None, data())
"""


def test_the_hook_counts_each_script_runs_statements_and_round_trips(pg_url, tmp_path):  # noqa: F811
    prefix = tmp_path / "trips"
    hook = str(HOOK / "sitecustomize.py")
    subprocess.run([sys.executable, "-c", _RUNS, pg_url, str(prefix), hook], check=True)
    (written,) = tmp_path.glob("trips.*")  # one file a process: PREFIX.PID
    lines = written.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "fragment": True,
            "statements": 3,
            "trips": 2,
            "list": [["select 1"], ["select 2", "select 3"]],
        }
    ]


def _line(statements: list[list[str]]) -> str:
    return json.dumps(
        {
            "fragment": True,
            "statements": sum(map(len, statements)),
            "trips": len(statements),
            "list": statements,
        }
    )


def test_a_label_is_a_run_that_stored_a_verdict_and_the_most_common_count_wins():
    ping = ["discard temp", "SELECT (SELECT alembic_version"]
    write = ["INSERT INTO judgments (kind)", "COMMIT"]
    page = _line([ping, ["SELECT questions.id"]])  # a page run: no verdict stored
    five = _line([ping, ["BEGIN", "SELECT sessions"], write, ["SELECT a"], ["SELECT b"]])
    seven = _line([ping, ["BEGIN"], write, ["SELECT a"], ["SELECT b"], ["c"], ["d"]])
    runs = label_runs([page, "", five, seven, five])
    assert len(runs) == 3
    found = summary(runs)
    assert (found["labels"], found["statements"], found["round_trips"]) == (3, 8, 5)
    assert found["per_label"] == [[8, 5], [9, 7], [8, 5]]
    assert found["trips"][2] == write
    assert summary(label_runs([page]))["labels"] == 0
