"""Page script-run times at scale and verdict-to-leaderboard latency.

Builds a database with 5,000 questions and 100,000 judgments (one real story from the bundled
NarrativeQA sample; bench systems/answers/judgments are synthetic and named ``bench-*``), then
times every page with ``streamlit.testing.v1.AppTest``: one cold run, then warm runs (cache hot);
``max_page_s`` is the slowest warm run. ``verdict_to_leaderboard_s`` = time for the leaderboard
to recompute after a human verdict is stored (cache miss) + the fragment's polling interval (the
worst-case wait before the next poll). Last line: one JSON object.

    .venv/bin/python benchmarks/app_pages.py [--questions 5000] [--judgments 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, submit_verdict, verdict_queue
from core.corpus.documents import upsert_document
from core.store.connection import dumps, transaction, utcnow
from core.store.database import open_db

SYSTEMS = [f"bench-{c}" for c in "abcde"]
POLL_S = 2.0


def build(path: Path, n_questions: int, n_judgments: int) -> None:
    """Bulk-insert the benchmark database."""
    db = open_db(path)
    nqa = ROOT / "demo" / "narrativeqa" / "stories"
    story_file = sorted(nqa.glob("*.txt"))[1]
    doc = story_file.stem
    upsert_document(
        db,
        doc,
        story_file.read_text(encoding="utf-8", errors="replace")[:60_000],
        kind="story",
        source="narrativeqa",
        title="bench story",
    )
    now = utcnow()
    with transaction(db):
        db["systems"].insert_all(
            {"name": s, "model": "scripted:bench", "context": "none", "created_at": now}
            for s in SYSTEMS
        )
        qids = [f"bench-q{i:05d}" for i in range(n_questions)]
        db["questions"].insert_all(
            (
                {
                    "id": q,
                    "document_id": doc,
                    "context_document_id": doc,
                    "question": f"Bench question {i}?",
                    "answers": dumps([f"bench answer {i}"]),
                    "origin": "generated" if i % 2 else "narrativeqa",
                    "qtype": "bench",
                    "status": "pending",
                    "created_at": now,
                    "updated_at": now,
                }
                for i, q in enumerate(qids)
            ),
            batch_size=1000,
        )
        db["answers"].insert_all(
            (
                {
                    "question_id": q,
                    "system": s,
                    "text": f"bench answer {k} to {q}",
                    "created_at": now,
                }
                for q in qids
                for k, s in enumerate(SYSTEMS)
            ),
            batch_size=2000,
        )
        aid = {
            (r[0], r[1]): r[2] for r in db.execute("select question_id, system, id from answers")
        }

        def judgments():
            made = 0
            for qi, q in enumerate(qids):  # absolute: 5 per question
                for si, s in enumerate(SYSTEMS):
                    yield {
                        "kind": "absolute",
                        "question_id": q,
                        "rater": "auto:bench-ais",
                        "rater_kind": "auto",
                        "criterion": "supported",
                        "system": s,
                        "answer_id": aid[q, s],
                        "verdict": "yes" if (qi + si) % 3 else "no",
                        "order_shown": "",
                        "status": "ok",
                        "created_at": now,
                    }
                    made += 1
            pairs = list(combinations(SYSTEMS, 2))
            while made < n_judgments:  # pairwise, both orders
                for qi, q in enumerate(qids):
                    for pi, (s1, s2) in enumerate(pairs):
                        for first, second in ((s1, s2), (s2, s1)):
                            if made >= n_judgments:
                                return
                            v = "A" if (SYSTEMS.index(first) + qi + pi) % 3 else "B"
                            yield {
                                "kind": "pairwise",
                                "question_id": q,
                                "rater": "auto:bench-sxs",
                                "rater_kind": "auto",
                                "criterion": "better",
                                "system_a": first,
                                "system_b": second,
                                "answer_a_id": aid[q, first],
                                "answer_b_id": aid[q, second],
                                "order_shown": "ab" if first < second else "ba",
                                "verdict": v,
                                "status": "ok",
                                "created_at": now,
                            }
                            made += 1

        db["judgments"].insert_all(judgments(), batch_size=5000)
    db.conn.close()


def comparisons(at) -> int:
    for m in at.markdown:
        found = re.search(r"(\d+) comparisons", m.value)
        if found:
            return int(found.group(1))
    raise RuntimeError("no leaderboard on the page: " + str([e.value for e in at.exception]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument("--warm-runs", type=int, default=3)
    args = parser.parse_args()
    from streamlit.testing.v1 import AppTest

    tmp = Path(tempfile.mkdtemp(prefix="bench_app_"))
    path = tmp / "bench.db"
    t = time.perf_counter()
    build(path, args.questions, args.judgments)
    print(
        f"built {args.questions} questions, {args.judgments} judgments in "
        f"{time.perf_counter() - t:.1f} s",
        flush=True,
    )
    os.environ["WORKBENCH_DB"] = str(path)
    os.chdir(ROOT)
    pages = ["app.py", *sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*.py"))]
    figures: dict[str, dict[str, float]] = {}
    for page in pages:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.query_params["name"] = "bench"  # open mode: the benchmark database has no accounts
        at.run()
        if page != "app.py":
            at.switch_page(page)
        t = time.perf_counter()
        at.run()
        cold = time.perf_counter() - t
        if at.exception:
            raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
        warm = []
        for _ in range(args.warm_runs):
            t = time.perf_counter()
            at.run()
            warm.append(time.perf_counter() - t)
        figures[page] = {"cold_s": round(cold, 3), "warm_s": round(min(warm), 3)}
        print(f"{page:36s} cold {cold:6.2f} s   warm {min(warm):6.3f} s", flush=True)

    lb = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    lb.switch_page("pages/5_Leaderboard.py").run()
    before = comparisons(lb)
    db = open_db(path)
    key = verdict_queue(db, "bench")[0]
    submit_verdict(db, blind_item(db, key, "bench"), sign_in_open(db, "bench"), "A")
    db.conn.close()
    t = time.perf_counter()
    lb.run()
    recompute = time.perf_counter() - t
    assert comparisons(lb) == before + 1, "leaderboard did not take up the verdict"
    print(f"leaderboard recompute after a verdict: {recompute:.2f} s (+ {POLL_S} s polling)")
    result = {
        "max_page_s": max(f["warm_s"] for f in figures.values()),
        "verdict_to_leaderboard_s": round(recompute + POLL_S, 2),
        "leaderboard_recompute_s": round(recompute, 2),
        "max_cold_page_s": max(f["cold_s"] for f in figures.values()),
        "questions": args.questions,
        "judgments": args.judgments,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
