"""A hung PostgreSQL server met by a real app server (issue 37): the database's port accepts the
connection and never answers. The page's run ends within the connect timeout with the one plain
line for the visitor (the page is not left grey, waiting), and the server's own log, what an
operator reads, holds the detail: the address and the timeout. Checked with the protocol client
of ``benchmarks/team_load.py`` (no browser)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from pg_outage import hung_listener

from app_support.connection import UNREACHABLE_LINE
from scripts import served_app

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from team_bench.protocol import Tab  # noqa: E402  (benchmarks/ is on the path above)


def test_a_page_on_a_hung_database_ends_with_one_line_and_the_log_has_the_detail(
    tmp_path: Path,
) -> None:
    log = tmp_path / "streamlit.log"
    with hung_listener() as url:
        port = url.rsplit(":", 1)[1].split("/")[0]
        env = {"WORKBENCH_DB": url, "WORKBENCH_CONNECT_TIMEOUT": "2", "WORKBENCH_WARM_UP": "0"}
        proc, base = served_app.serve(env, log)
        try:

            async def first_run() -> tuple[list[str], list[str]]:
                tab = await Tab.open(base, "Side_by_side", "", 60)  # the run must finish
                try:
                    return tab.texts(), tab.exceptions()
                finally:
                    await tab.close()

            started = time.monotonic()
            texts, exceptions = asyncio.run(first_run())
            took = time.monotonic() - started
        finally:
            served_app.stop(proc)
    assert exceptions == []
    shown = [t for t in texts if "unreachable" in t]
    assert shown == [UNREACHABLE_LINE], texts
    assert not any(port in t or "timeout" in t for t in texts), texts  # no operator detail
    assert took < 30, took  # the connect timeout (2 s) ends the wait
    logged = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if "unreachable" in line and f"127.0.0.1:{port}" in line
    ]
    assert logged and "timeout" in logged[0], log.read_text(errors="replace")[-2000:]
