"""The start-up warm-up: what it imports, and that it computes the views the pages show first."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streamlit import config as st_config
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)
from test_app_pages import ok, page

import core.views.preload as preload_module
from app_support import warmup
from core.corpus import retrieval
from core.store.database import opened
from core.views import figures, gold, leaderboard, team
from core.views.live_leaderboard import StoreLeaderboard
from core.views.preload import modules_to_preload, preload
from core.views.rater_report import assemble, needed

ROOT = Path(__file__).resolve().parents[2]


def test_preload_covers_every_view_module_and_the_deferred_libraries():
    names = [name for name, _ in modules_to_preload()]
    views = {f"core.views.{p.stem}" for p in (ROOT / "core/views").glob("*.py")} - {
        "core.views.__init__"
    }
    assert views <= set(names)
    assert "core.pipeline.experiment" in names  # the Run page's
    assert {"rouge_score.rouge_scorer", "bm25s", "plotly.graph_objects"} <= set(names)
    assert preload() == []


def test_preload_reports_a_missing_module_instead_of_raising(monkeypatch):
    monkeypatch.setattr(preload_module, "PACKAGES", ())
    monkeypatch.setattr(preload_module, "DEFERRED", (("no_such_module_for_this_test", ()),))
    failed = preload()
    assert len(failed) == 1 and failed[0].startswith("no_such_module_for_this_test: ")


def _refusing(fn):
    """A stand-in for ``fn`` under the same cache key (module and name) that fails if called:
    a page that finds the warm-up's result in the cache never calls it."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"{fn.__qualname__} computed again: the warm-up missed it")

    refuse.__module__, refuse.__qualname__ = fn.__module__, fn.__qualname__
    return refuse


@pytest.fixture
def warmed_db(fixture_db) -> Path | str:
    path, _ = fixture_db
    with opened(str(path)) as db:
        warmup.warm_views(db)
    return path


@pytest.mark.parametrize(
    "path",
    [
        "pages/4_Agreement.py",
        "pages/5_Leaderboard.py",
        "pages/11_Team.py",
        "pages/12_Rater_validation.py",
    ],
)
def test_the_pages_first_views_are_the_warmed_ones(warmed_db, monkeypatch, path):
    for module, name in (
        (assemble, "report_for_choice"),
        (needed, "rater_needed_for_choice"),  # the simulation of the tab the page opens on
        (figures, "agreement_overview"),
        (gold, "people_agreement"),
        (gold, "gold_size"),
        (gold, "gold_agreement"),
        (team, "team_view"),
        (leaderboard, "pairwise_raters"),
    ):
        monkeypatch.setattr(module, name, _refusing(getattr(module, name)))
    monkeypatch.setattr(
        StoreLeaderboard, "_load_counted", _refusing(StoreLeaderboard._load_counted)
    )
    at = ok(page(path, annotator=None))
    assert at.title  # the page rendered, from the warm-up's results


def test_side_by_side_shows_evidence_from_the_warmed_indexes(fixture_db, monkeypatch):
    """The warm-up builds the BM25 index of every side-by-side item's document, so a label
    that opens an item with evidence builds none (issue 37)."""
    path, _ = fixture_db
    retrieval.clear_cache()
    with opened(str(path)) as db:
        warmup.warm_views(db)
    assert retrieval.cache_info()["size"] == 2  # the fixture's story and its summary

    def refuse(*args, **kwargs):
        raise AssertionError("a BM25 index built by the page: the warm-up missed it")

    monkeypatch.setattr(retrieval, "BM25Index", refuse)
    at = ok(page("pages/3_Side_by_side.py"))
    assert any("Evidence" in m.value for m in at.markdown)  # the item's evidence was shown


def test_an_unwarmed_view_is_computed_by_its_page(warmed_db, monkeypatch):
    """The check above can fail: the absolute kind was not warmed, so its page computes it."""
    monkeypatch.setattr(figures, "agreement_overview", _refusing(figures.agreement_overview))
    # the served app hides error details from visitors (client.showErrorDetails = none); this
    # test reads the message, so it shows them for its own run
    previous = st_config.get_option("client.showErrorDetails")
    st_config.set_option("client.showErrorDetails", "full")
    try:
        at = ok(page("pages/4_Agreement.py", annotator=None))
        at.radio[0].set_value("absolute").run()
    finally:
        st_config.set_option("client.showErrorDetails", previous)
    assert any("warm-up missed it" in str(e.value) for e in at.exception)


def test_no_warm_up_under_apptest(warmed_db):
    ok(page("pages/0_Overview.py", annotator=None))
    assert not any(t.name == "workbench-warm-up" for t in threading.enumerate())
