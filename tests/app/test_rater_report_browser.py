"""The rater-validation report opened from disk (``file://``) in a real headless Chromium: the
verdict sentence is visible, planted markup stays text (no dialog, no image), and no request
leaves ``file://``.

``RATER_REPORT_FILE=PATH`` checks that report instead of the fixture's (e.g. the demo's);
``RATER_REPORT_SHOT=1`` saves the first screen to ``docs/img/rater_report.png``.
Needs Debian chromium and the ``playwright`` package (skipped without, unless ``CI=true``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_server import require_browser
from rater_report_fixture import RATER, build_report_db

from core.store.database import open_db
from core.views.rater_report.assemble import report_data
from core.views.report_html import report_html

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOT = ROOT / "docs" / "img" / "rater_report.png"


def _fixture_report(path: Path | str, tmp_path: Path) -> Path:
    build_report_db(path)
    db = open_db(path)
    try:
        page = report_html(report_data(db, [RATER], n_sim=20, n_boot=200))
    finally:
        db.conn.close()
    out = tmp_path / "report.html"
    out.write_text(page, encoding="utf-8")
    return out


def test_report_opens_from_disk_and_loads_nothing_remote(db_path, tmp_path):
    chromium = require_browser()
    from playwright.sync_api import sync_playwright  # optional test dependency

    given = os.environ.get("RATER_REPORT_FILE")
    report = Path(given).resolve() if given else _fixture_report(db_path, tmp_path)
    requests: list[str] = []
    dialogs: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_timeout(300)
            verdict = page.locator(".verdict-line").first
            assert verdict.is_visible()
            assert "alternative annotator test" in verdict.inner_text() or (
                "not enough data" in verdict.inner_text()
            )
            assert page.locator("img, script, iframe").count() == 0
            if os.environ.get("RATER_REPORT_SHOT"):
                SHOT.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOT))
        finally:
            browser.close()
    assert requests and all(u.startswith("file://") for u in requests), requests
    assert not dialogs
