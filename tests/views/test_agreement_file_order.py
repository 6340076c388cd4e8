"""The same verdicts imported in two file orders give the same figures everywhere: the rater-pair
table, Fleiss/alpha, two raters in detail, consistency, the crowd tab, ``agreement --from-db`` and
``rank --from-db``; a PRD-like rater that judged both orders is compared over both; ``export
judgments`` writes the effective verdicts (``rank`` on it equals ``rank --from-db``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)
from sklearn.metrics import cohen_kappa_score

from core.__main__ import main
from core.store.database import open_db
from core.views.agreement_view import auto_vs_crowd
from core.views.figures import (
    agreement_overview,
    confusion_figure,
    consistency_view,
    rater_pair_view,
)

PAIRS = [("x", "y"), ("x", "z"), ("y", "z")]
BOTH_ORDERS = ("auto:gpt-4", "human:crowd-majority")  # PRD-like: every pair in both orders
ONE_ORDER = ("human:alice", "human:bob", "auto:lexical")  # one randomly drawn order each
SWAP = {"A": "B", "B": "A"}
COLUMNS = ["question_id", "system_a", "system_b", "verdict", "rater"]


def verdict_rows(seed: int = 5) -> list[tuple[str, str, str, str, str]]:
    """Plain judgment rows: a true canonical verdict per (question, pair); each rater follows it
    with probability 0.7, else draws one; verdicts are written relative to the shown order."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(25):
        for a, b in PAIRS:
            truth = rng.choice(["A", "B", "Equal"])
            jobs = [(r, o) for r in BOTH_ORDERS for o in (0, 1)]
            jobs += [(r, int(rng.integers(2))) for r in ONE_ORDER]
            jobs += [("human:crowd#", o) for o in (0, 1) for _ in range(3)]
            for rater, order in jobs:
                v = truth if rng.random() < 0.7 else rng.choice(["A", "B", "Equal", "None"])
                sa, sb, shown = (a, b, v) if order == 0 else (b, a, SWAP.get(v, v))
                out.append((f"q{q}", sa, sb, shown, rater))
    return out


def changed_rows(rows: list) -> list:
    """Every 7th verdict of alice and gpt-4, changed (imported later: supersedes the old)."""
    picked = [r for r in rows if r[4] in ("human:alice", "auto:gpt-4")][::7]
    return [(q, a, b, "B" if v == "A" else "A", rater) for q, a, b, v, rater in picked]


def write(path: Path, rows: list) -> str:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)
    return str(path)


def build(tmp_path: Path, location: Path | str, name: str, reverse: bool) -> str:
    rows, changes = verdict_rows(), changed_rows(verdict_rows())
    if reverse:
        rows, changes = rows[::-1], changes[::-1]
    db = str(location)
    assert main(["--db", db, "init"]) == 0
    for i, part in enumerate((rows, changes)):
        f = write(tmp_path / f"{name}-{i}.csv", part)
        assert main(["--db", db, "import-judgments", f, "--json"]) == 0
    return db


@pytest.fixture(scope="module")
def dbs(tmp_path_factory, module_db_location):
    tmp = tmp_path_factory.mktemp("order")
    return tuple(
        build(tmp, module_db_location(name), name, reverse)
        for name, reverse in (("forward", False), ("reverse", True))
    )


def cli_json(capsys, args: list[str]) -> dict:
    capsys.readouterr()
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def figures(path: str, capsys) -> dict:
    db = open_db(path)
    try:
        ov = agreement_overview(db, "pairwise")
        pv = rater_pair_view(db, "pairwise", "human:alice", "auto:gpt-4")
        crowd = auto_vs_crowd(db, "auto:gpt-4", "human:crowd-majority")
        out = {
            "table": ov["table"],
            "humans": ov["humans"],
            "autos": ov["autos"],
            "overall": pv["overall"],
            "by_pair": pv["by_pair"],
            "both": pv["both"],
            "disagreements": pv["disagreements"],
            "confusion": confusion_figure(pv["both"], "a", "b").data[0].z.tolist(),
            "consistency": consistency_view(db, "pairwise"),
            "crowd": crowd["with_ties"],
            "prd": rater_pair_view(db, "pairwise", "auto:gpt-4", "human:crowd-majority"),
        }
    finally:
        db.close()
    out["cli"] = cli_json(
        capsys,
        ["--db", path, "agreement", "--from-db", "--rater-a", "human:alice"]
        + ["--rater-b", "auto:gpt-4", "--json"],
    )
    out["rank"] = cli_json(
        capsys, ["--db", path, "rank", "--from-db", "--bootstrap", "50", "--json"]
    )
    out["rank_alice"] = cli_json(
        capsys,
        ["--db", path, "rank", "--from-db", "--rater", "human:alice", "--rater", "human:bob"]
        + ["--bootstrap", "20", "--json"],
    )
    return out


def assert_close(x, y, path: str = "") -> None:
    """Equal structures, numbers equal to 1e-9."""
    if isinstance(x, dict):
        assert x.keys() == y.keys(), path
        for k in x:
            assert_close(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list):
        assert len(x) == len(y), path
        for i, (a, b) in enumerate(zip(x, y)):
            assert_close(a, b, f"{path}[{i}]")
    elif isinstance(x, float):
        assert y == pytest.approx(x, rel=1e-9, abs=1e-12), path
    else:
        assert x == y, path


def test_two_file_orders_give_identical_figures(dbs, capsys):
    one, two = (figures(p, capsys) for p in dbs)
    for key in ("table", "by_pair", "both", "disagreements", "consistency"):
        pd.testing.assert_frame_equal(one[key], two[key], check_exact=True)
    for key in ("humans", "autos", "overall", "confusion", "crowd", "cli"):
        assert one[key] == two[key], key
    for key in ("rank", "rank_alice"):  # systems may be numbered differently: float rounding
        assert_close(one[key], two[key])
    assert one["prd"]["overall"] == two["prd"]["overall"]
    # the CLI and the app give the same figure for the same two raters
    assert one["cli"]["n"] == one["overall"]["n"]
    assert one["cli"]["agreement"] == pytest.approx(one["overall"]["agreement"], abs=1e-12)
    assert one["cli"]["cohen_kappa"] == pytest.approx(one["overall"]["kappa"], abs=1e-12)
    row = one["table"].set_index(["rater_a", "rater_b"]).loc[("auto:gpt-4", "human:alice")]
    assert (row["n"], row["agreement"]) == (one["overall"]["n"], one["overall"]["agreement"])
    assert len(one["table"]) == 10  # 5 named raters; slots have no Cohen's kappa


def effective(rows: list, changes: list) -> dict:
    """(question, shown a, shown b, rater) -> the rater's latest verdict in that order, canonical
    (relative to the sorted pair: A = the alphabetically first system wins)."""
    out = {(q, a, b, r): v if a < b else SWAP.get(v, v) for q, a, b, v, r in rows}
    out.update({(q, a, b, r): v if a < b else SWAP.get(v, v) for q, a, b, v, r in changes})
    return out


def test_a_rater_that_judged_both_orders_is_compared_over_both(dbs, capsys):
    """GPT-4 vs the crowd majority (both judged every pair in both orders): one unit per shown
    order; alice (one order) vs GPT-4: GPT-4's verdict in alice's order."""
    latest = effective(verdict_rows(), changed_rows(verdict_rows()))
    gpt = {k[:3]: v for k, v in latest.items() if k[3] == "auto:gpt-4"}
    crowd = {k[:3]: v for k, v in latest.items() if k[3] == "human:crowd-majority"}
    keys = sorted(gpt)
    assert len(keys) == 25 * 3 * 2 and set(keys) == set(crowd)
    a, b = [gpt[k] for k in keys], [crowd[k] for k in keys]
    db = open_db(dbs[0])
    try:
        pv = rater_pair_view(db, "pairwise", "auto:gpt-4", "human:crowd-majority")["overall"]
        crowd_tab = auto_vs_crowd(db, "auto:gpt-4", "human:crowd-majority")["with_ties"]
    finally:
        db.close()
    assert pv["n"] == crowd_tab["n"] == 150
    assert pv["agreement"] == pytest.approx(np.mean([x == y for x, y in zip(a, b)]))
    assert pv["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert crowd_tab["agreement"] == pytest.approx(pv["agreement"])
    assert crowd_tab["kappa"] == pytest.approx(pv["kappa"])
    alice = {k[:3]: v for k, v in latest.items() if k[3] == "human:alice"}
    a2, b2 = [alice[k] for k in sorted(alice)], [gpt[k] for k in sorted(alice)]
    out = cli_json(
        capsys,
        ["--db", dbs[1], "agreement", "--from-db", "--rater-a", "human:alice"]
        + ["--rater-b", "auto:gpt-4", "--json"],
    )
    assert out["n"] == 75 and out["cohen_kappa"] == pytest.approx(cohen_kappa_score(a2, b2))


def test_fleiss_among_auto_raters_splits_where_one_judged_both_orders(dbs):
    """auto:lexical (one order) with auto:gpt-4 (both): 75 items split into 150 units, of which
    the 75 in lexical's order have two labels."""
    db = open_db(dbs[1])
    try:
        autos = agreement_overview(db, "pairwise")["autos"]
    finally:
        db.close()
    assert autos["raters"] == 2 and autos["items"] == 75


def withdraw_one(path: str) -> None:
    """An undo as the app stores it: a row with status withdrawn and no verdict superseding
    alice's first effective verdict."""
    db = open_db(path)
    try:
        old = db.execute(
            "select * from judgments where rater = 'human:alice' and id not in "
            "(select supersedes from judgments where supersedes is not null) order by id limit 1"
        ).fetchone()
        row = dict(zip([d[0] for d in db.execute("select * from judgments").description], old))
        keep = ("kind", "question_id", "rater", "rater_kind", "criterion", "system_a", "system_b")
        db["judgments"].insert(
            {k: row[k] for k in (*keep, "order_shown", "created_at")}
            | {"status": "withdrawn", "verdict": None, "supersedes": row["id"]}
        )
    finally:
        db.close()


def export(capsys, db: str, path: Path, *extra: str) -> pd.DataFrame:
    assert main(["--db", db, "export", "judgments", "-o", str(path), *extra]) == 0
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_export_writes_effective_verdicts_and_rank_on_it_equals_rank_from_db(
    dbs, capsys, tmp_path, backend, request
):
    if backend == "sqlite":
        db = str(tmp_path / "copy.db")
        Path(db).write_bytes(Path(dbs[1]).read_bytes())
    else:  # a copy made by the server (a test-only helper: the template has no open connection)
        db = request.getfixturevalue("pg_template_copy")(dbs[1])
    args = ["--bootstrap", "50", "--json"]
    every = export(capsys, db, tmp_path / "all.csv", "--all-rows")
    gone = set(every["supersedes"]) - {""}
    old = every[every["id"].isin(gone)]
    assert len(old) == len(changed_rows(verdict_rows()))
    (trail,) = cli_json(capsys, ["rank", str(tmp_path / "all.csv"), *args])["groups"]
    (from_db,) = cli_json(capsys, ["--db", db, "rank", "--from-db", *args])["groups"]
    # the audit trail counts the changed verdicts twice (None verdicts never count)
    assert trail["n_judgments"] == from_db["n_judgments"] + (old["verdict"] != "None").sum()
    withdraw_one(db)
    eff = export(capsys, db, tmp_path / "effective.csv")
    every = export(capsys, db, tmp_path / "all.csv", "--all-rows")
    assert len(every) == len(eff) + len(old) + 2 and len(eff) == len(verdict_rows()) - 1
    assert "withdrawn" in set(every["status"]) and set(eff["status"]) == {"ok"}
    assert eff["id"].is_unique and not set(eff["id"]) & (set(every["supersedes"]) - {""})
    file_out = cli_json(capsys, ["rank", str(tmp_path / "effective.csv"), *args])
    db_out = cli_json(capsys, ["--db", db, "rank", "--from-db", *args])
    (from_file,), (from_db,) = file_out["groups"], db_out["groups"]
    assert from_file["n_judgments"] == from_db["n_judgments"]
    assert file_out["n_excluded_none"] == db_out["n_excluded_none"]
    assert_close(from_file["systems"], from_db["systems"])


def test_from_db_bad_input_is_one_error_line(dbs, capsys):
    db = dbs[0]
    for args, message in (
        (["rank", "--from-db", "--rater", "human:nobody"], "rater 'human:nobody'"),
        (["rank", "--rater", "human:alice", "x.csv"], "--rater needs --from-db"),
        (["rank"], "give JUDGMENTS.csv or --from-db"),
        (["agreement", "--from-db"], "--from-db needs --rater-a and --rater-b"),
        (
            ["agreement", "--from-db", "--rater-a", "human:alice", "--rater-b", "auto:x"],
            "rater 'auto:x' has no side-by-side verdict",
        ),
    ):
        capsys.readouterr()
        assert main(["--db", db, *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and message in err[0], err
