"""Test support for the app tests: a demo-like database built through ``core`` functions.

The text is real (the bundled NarrativeQA sample: "Enoch Soames", its questions, reference answers
and Wikipedia summary). Systems, answers and auto judgments are *fixtures*: named ``fixture-*``,
with texts that say so, never presented as any model's output.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from core.corpus.documents import upsert_document
from core.store.connection import dumps, transaction, utcnow
from core.store.database import open_db
from core.store.documents import get_passages

ROOT = Path(__file__).resolve().parent.parent
NQA = ROOT / "demo" / "narrativeqa"
DOC = "829bd66e747e61902f22af2c0ff0d4f8090d2242"
SYSTEMS = ("fixture-a", "fixture-b", "fixture-c")
STORY_CHARS = 40_000


def _story() -> str:
    raw = (NQA / "stories" / f"{DOC}.txt").read_text(encoding="utf-8", errors="replace")
    start = raw.find("ENOCH SOAMES")
    return raw[max(0, start) :][:STORY_CHARS]


def _summary() -> str:
    with open(NQA / "third_party" / "wikipedia" / "summaries.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["document_id"] == DOC:
                return row["summary"]
    return "Enoch Soames is a short story by Max Beerbohm."


def _qaps() -> list[dict[str, str]]:
    with open(NQA / "qaps.csv", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["document_id"] == DOC]


def unescaped(markdown: str) -> str:
    """Text of escaped Markdown (labels from data go through core.views.text.md), without the
    invisible word joiners that keep a URL or an address from becoming a link."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


#: GFM's autolink literals as Streamlit's Markdown renderer finds them in a text (its remark-gfm
#: patterns, read from its bundle): ``http(s)://`` or ``www.`` and a domain, and e-mail addresses.
#: ``\w`` is ASCII only there, as with re.ASCII.
_AUTOLINK_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.I | re.A)
_AUTOLINK_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.A)


def autolinks(markdown: str) -> list[str]:
    """Every piece of ``markdown`` that GFM would turn into a link by itself (a bare URL, a
    ``www.`` name, an e-mail address), matched on the text after the backslash escapes are
    read (as the renderer sees it), ignoring the rules on the preceding character (stricter)."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)
    return [m.group(0) for p in (_AUTOLINK_URL, _AUTOLINK_EMAIL) for m in p.finditer(text)]


def build_fixture_db(
    path: str | Path,
    *,
    unsafe_answer: str | None = None,
    n_generated: int = 4,
    n_narrativeqa: int = 3,
    same_answers: bool = False,
) -> dict[str, Any]:
    """Build the fixture database at ``path``; return the ids a test needs.

    ``unsafe_answer`` (optional) becomes fixture-a's answer to every question (XSS tests);
    ``same_answers=True`` gives every system the same answer text to a question.
    """
    db = open_db(path)
    try:
        story = _story()
        upsert_document(
            db,
            DOC,
            story,
            kind="story",
            source="narrativeqa",
            title="Enoch Soames",
            author="Max Beerbohm",
        )
        upsert_document(
            db,
            f"{DOC}#summary",
            _summary(),
            kind="summary",
            source="narrativeqa",
            title="Enoch Soames (summary)",
            parent_id=DOC,
        )
        passages = get_passages(db, DOC)
        now = utcnow()
        with transaction(db):
            mentions = [(m.start(), m.end()) for m in re.finditer(r"\bSoames\b", story)]
            ent_id = (
                db["entities"]
                .insert(
                    {
                        "document_id": DOC,
                        "name": "Soames",
                        "aliases": dumps(["Enoch Soames"]),
                        "label": "PERSON",
                        "n_mentions": len(mentions),
                        "rank": 1,
                        "method": "fixture",
                    }
                )
                .last_pk
            )
            for s, e in mentions:
                idx = next((p.idx for p in passages if p.start <= s < p.end), None)
                db["mentions"].insert(
                    {
                        "entity_id": ent_id,
                        "document_id": DOC,
                        "start": s,
                        "end": e,
                        "surface": story[s:e],
                        "passage_idx": idx,
                    }
                )
            qids: list[str] = []
            nqa_ids: list[str] = []
            for i, qap in enumerate(_qaps()[:n_narrativeqa]):
                qid = f"nqa-{i}"
                db["questions"].insert(
                    {
                        "id": qid,
                        "document_id": DOC,
                        "context_document_id": DOC,
                        "context_kind": "story",
                        "question": qap["question"],
                        "answers": dumps([a for a in (qap["answer1"], qap["answer2"]) if a]),
                        "origin": "narrativeqa",
                        "split": qap["set"],
                        "status": "accepted",  # as the NarrativeQA importer stores them
                        "created_at": now,
                        "updated_at": now,
                    }
                )
                qids.append(qid)
                nqa_ids.append(qid)
            gen_ids = []
            for i in range(n_generated):
                qid = f"gen-{i}"
                db["questions"].insert(
                    {
                        "id": qid,
                        "document_id": DOC,
                        "context_document_id": DOC,
                        "context_kind": "story",
                        "entity_id": ent_id,
                        "qtype": "long-span",
                        "question": f"Fixture question {i} about Soames (test data, not model output)?",
                        "answers": dumps([f"Fixture answer {i}."]),
                        "origin": "generated",
                        "status": "pending",
                        "provenance": dumps(
                            {
                                "fixture": True,
                                "documents": [DOC],
                                "passages": [0, min(3, len(passages) - 1)],
                            }
                        ),
                        "created_at": now,
                        "updated_at": now,
                    }
                )
                qids.append(qid)
                gen_ids.append(qid)
            for name in SYSTEMS:
                db["systems"].insert(
                    {
                        "name": name,
                        "model": "scripted:fixture",
                        "context": "none",
                        "description": "test fixture",
                        "created_at": now,
                    }
                )
            answer_ids: dict[tuple[str, str], int] = {}
            for qid in qids:
                for name in SYSTEMS:
                    text = (
                        unsafe_answer
                        if unsafe_answer and name == "fixture-a"
                        else f"Fixture answer to {qid}."
                        if same_answers
                        else f"Fixture answer number {SYSTEMS.index(name) + 1} to {qid}."
                    )
                    answer_ids[qid, name] = (
                        db["answers"]
                        .insert(
                            {"question_id": qid, "system": name, "text": text, "created_at": now}
                        )
                        .last_pk
                    )
            # Auto absolute judgments: fixture-a supported more often than fixture-c.
            for qi, qid in enumerate(qids):
                for si, name in enumerate(SYSTEMS):
                    _judge(
                        db,
                        kind="absolute",
                        question_id=qid,
                        rater="auto:fixture-ais",
                        criterion="supported",
                        system=name,
                        answer_id=answer_ids[qid, name],
                        verdict="yes" if (qi + si) % 3 != 2 else "no",
                        created_at=now,
                    )
            # Auto pairwise judgments in both orders: a > b > c with one upset.
            rank = {n: i for i, n in enumerate(SYSTEMS)}
            for qi, qid in enumerate(qids):
                for i, s1 in enumerate(SYSTEMS):
                    for s2 in SYSTEMS[i + 1 :]:
                        better = s1 if (rank[s1] < rank[s2]) ^ (qi == 0) else s2
                        for first, second in ((s1, s2), (s2, s1)):
                            verdict = "A" if better == first else "B"
                            if qi == 1 and first == s2:
                                verdict = "Equal"  # a position-swap inconsistency
                            _judge(
                                db,
                                kind="pairwise",
                                question_id=qid,
                                rater="auto:fixture-sxs",
                                criterion="better",
                                system_a=first,
                                system_b=second,
                                answer_a_id=answer_ids[qid, first],
                                answer_b_id=answer_ids[qid, second],
                                order_shown="ab" if first < second else "ba",
                                verdict=verdict,
                                created_at=now,
                            )
            dispute_ids = []
            for qid in nqa_ids:
                aid = answer_ids[qid, "fixture-b"]
                gt = _judge(
                    db,
                    kind="absolute",
                    question_id=qid,
                    rater="auto:fixture-gt",
                    criterion="matches-reference",
                    system="fixture-b",
                    answer_id=aid,
                    verdict="no",
                    created_at=now,
                    context_kind="references",
                )
                ctx = _judge(
                    db,
                    kind="absolute",
                    question_id=qid,
                    rater="auto:fixture-ctx",
                    criterion="supported",
                    system="fixture-b",
                    answer_id=aid,
                    verdict="yes",
                    created_at=now,
                    context_kind="story",
                    evidence=dumps(
                        [
                            {
                                "quote": passages[1].text[:80],
                                "verified": True,
                                "score": 100.0,
                                "start": passages[1].start,
                            },
                            {
                                "quote": "a quote not in the story",
                                "verified": False,
                                "score": 41.5,
                                "start": None,
                            },
                        ]
                    ),
                )
                dispute_ids.append(
                    db["disputes"]
                    .insert(
                        {
                            "question_id": qid,
                            "answer_id": aid,
                            "system": "fixture-b",
                            "gt_judgment_id": gt,
                            "ctx_judgment_id": ctx,
                            "gt_verdict": "no",
                            "ctx_verdict": "yes",
                            "created_at": now,
                        }
                    )
                    .last_pk
                )
            db["runs"].insert(
                {
                    "id": "run-fixture",
                    "kind": "experiment",
                    "name": "fixture run",
                    "status": "done",
                    "started_at": now,
                    "finished_at": now,
                    "n_calls": 10,
                    "cost_usd": 0.0,
                }
            )
        return {
            "questions": qids,
            "generated": gen_ids,
            "narrativeqa": nqa_ids,
            "disputes": dispute_ids,
            "entity_id": ent_id,
            "document_id": DOC,
        }
    finally:
        db.conn.close()


def build_prd_db(path: str | Path) -> dict[str, Any]:
    """:func:`build_fixture_db` plus the PRD Vicuna80 demo folder (an imported evaluation)."""
    from core.corpus.evaluation_layouts import read_prd_vicuna80
    from core.corpus.evaluations import store_evaluation

    ids = build_fixture_db(path)
    db = open_db(path)
    try:
        store_evaluation(db, read_prd_vicuna80(ROOT / "demo" / "prd_vicuna80"))
    finally:
        db.conn.close()
    return ids


def add_tournament(
    path: str | Path, systems: tuple[str, ...], rater: str, question_ids: list[str]
) -> int:
    """Add a second side-by-side tournament: new ``systems`` answer ``question_ids`` and ``rater``
    judges every pair in both orders (earlier systems win, with one upset per pair so the
    maximum-likelihood fit exists). Returns the number of pairwise judgments added."""
    db = open_db(path)
    now, n = utcnow(), 0
    try:
        with transaction(db):
            for name in systems:
                db["systems"].insert(
                    {
                        "name": name,
                        "model": "scripted:fixture",
                        "context": "none",
                        "description": "test fixture",
                        "created_at": now,
                    }
                )
            aid = {
                (q, s): db["answers"]
                .insert(
                    {
                        "question_id": q,
                        "system": s,
                        "text": f"Fixture answer of {s} to {q}.",
                        "created_at": now,
                    }
                )
                .last_pk
                for q in question_ids
                for s in systems
            }
            for qi, q in enumerate(question_ids):
                for i, s1 in enumerate(systems):
                    for s2 in systems[i + 1 :]:
                        better = s2 if qi == 0 else s1
                        for first, second in ((s1, s2), (s2, s1)):
                            win = first == better
                            _judge(
                                db,
                                kind="pairwise",
                                question_id=q,
                                rater=rater,
                                criterion="better",
                                system_a=first,
                                system_b=second,
                                answer_a_id=aid[q, first],
                                answer_b_id=aid[q, second],
                                order_shown="ab" if first < second else "ba",
                                verdict="A" if win else "B",
                                created_at=now,
                            )
                            n += 1
        return n
    finally:
        db.conn.close()


def _judge(db, **fields: Any) -> int:
    row = {
        "rater_kind": fields["rater"].split(":")[0],
        "status": "ok",
        "raw": "fixture reply",
        "rationale": "fixture rationale",
        "evidence": "[]",
        **fields,
    }
    return int(db["judgments"].insert(row).last_pk)


def alice_verdicts(db_path: str | Path) -> list[str]:
    """Every verdict stored under alice's name (the browser tests' annotator), in id order."""
    db = open_db(db_path)
    try:
        rows = db.execute(
            "select verdict from judgments where rater = 'human:alice' order by id"
        ).fetchall()
        return [r[0] for r in rows]
    finally:
        db.conn.close()


def pane_text(page: Any) -> str:
    """The text of a decision page's item pane (the ``pane_`` container) in a Playwright page."""
    return str(page.locator("[class*='st-key-pane_']").first.inner_text())
