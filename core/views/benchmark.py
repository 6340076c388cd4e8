"""The validated benchmark as tables (read-only): the rows of every table of
:mod:`core.views.benchmark_schema` for the questions of some review statuses, with the figures
the dataset card states (:mod:`core.views.benchmark_card`).

- ``answers`` of a question are its *short* reference answers: the offline generator stores its
  evidence sentences after the answer; they are in ``evidence`` (with passage and offsets) and
  left out of ``answers``. An ``edited`` question carries its latest edit (question text,
  corrected answer), the original kept in ``original_question`` / ``original_answers``.
- A document's text is exported only where its licence lets it travel (:func:`licence_of`);
  otherwise its row carries a pointer (``url``), its size and SHA-256, and no passages.
- ``verdicts``: the effective parsed verdicts (people and auto-raters, each pairwise one with
  the order shown), a revoked account's labels left out when an admin excluded them; ``gold``:
  each task's gold with nobody left out (:func:`core.annotation.gold.gold_for`).
- Splits (``split_by``): ``document`` puts whole documents in ``test`` (shuffled by ``seed``)
  until it holds ``test_share`` of the questions; ``random`` draws that share of questions.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from typing import TYPE_CHECKING, Any

from core.annotation.gold import gold_for, gold_inputs
from core.annotation.guideline import checklist_fields
from core.annotation.task_registry import all_tasks
from core.errors import InputError
from core.store.accounts import excluded_names
from core.store.benchmark import (
    answers_of,
    benchmark_questions,
    passages_of,
    reviews_of,
    status_counts,
    verdicts_of,
)
from core.store.documents import Document, documents_by_id
from core.store.questions import Question, QuestionStatus
from core.store.reviews import Review, ReviewDecision
from core.views.benchmark_records import (
    DEFAULT_STATUSES,
    Benchmark,
    BenchmarkFacts,
    BenchmarkOptions,
)

if TYPE_CHECKING:
    from core.store.engine import Database

SPLIT_BY = ("document", "random")
GUTENBERG = "Project Gutenberg License (public domain in the USA; check your country's law)"


def licence_of(doc: Document) -> tuple[str, str, bool, str]:
    """``(licence, Hugging Face licence id, text travels, url)`` of a document: a Project
    Gutenberg book (its header was found) and XQuAD articles travel; NarrativeQA stories do not
    (the dataset gives pointers; its download script fetches them); anything else has no known
    licence and stays home."""
    meta = doc.metadata
    if doc.source == "xquad":
        return "CC BY-SA 4.0 (XQuAD)", "cc-by-sa-4.0", True, ""
    if doc.source == "narrativeqa":
        url = str(meta.get("story_url") or meta.get("wiki_url") or "")
        return (
            "NarrativeQA (Apache-2.0); the text is not redistributed here: fetch it with "
            "NarrativeQA's download script and check it against sha256",
            "apache-2.0",
            False,
            url,
        )
    if meta.get("gutenberg_header"):
        return GUTENBERG, "other", True, str(meta.get("url") or "")
    return "unknown: the text is not included", "unknown", False, str(meta.get("url") or "")


def _check(db: Database, options: BenchmarkOptions) -> None:
    known = {str(s) for s in QuestionStatus}
    bad = [s for s in options.statuses if s not in known]
    if bad or not options.statuses:
        raise InputError(
            f"unknown status {', '.join(bad) or '(none)'}; choose from {', '.join(sorted(known))}"
        )
    if options.documents is not None:
        found = documents_by_id(db, list(options.documents))
        missing = [d for d in options.documents if d not in found]
        if missing:
            raise InputError(
                f"unknown document {', '.join(missing)}; see `python -m core documents`"
            )
    if options.split_by is not None and options.split_by not in SPLIT_BY:
        raise InputError(f"--split-by must be one of {', '.join(SPLIT_BY)}")


def assign_splits(questions: list[Question], options: BenchmarkOptions) -> dict[str, str]:
    """Question id -> ``train`` / ``test`` (empty without a split); deterministic in ``seed``."""
    if options.split_by is None:
        return {q.id: "" for q in questions}
    rng = random.Random(options.seed)
    want = max(1, round(options.test_share * len(questions)))
    if options.split_by == "random":
        ids = sorted(q.id for q in questions)
        if len(ids) < 2:
            raise InputError("one question only: nothing to split")
        rng.shuffle(ids)
        test = set(ids[:want])
        return {q.id: "test" if q.id in test else "train" for q in questions}
    by_doc = Counter(q.document_id or "" for q in questions)
    docs = sorted(by_doc)
    if len(docs) < 2:
        raise InputError("the questions come from one document: use --split-by random")
    rng.shuffle(docs)
    test_docs: set[str] = set()
    for doc in docs[:-1]:  # at least one document stays in train
        if sum(by_doc[d] for d in test_docs) >= want:
            break
        test_docs.add(doc)
    return {q.id: "test" if (q.document_id or "") in test_docs else "train" for q in questions}


def short_answers(q: Question) -> tuple[list[str], list[dict[str, Any]]]:
    """``(short reference answers, evidence entries)``: the evidence sentences the offline
    generator stored after its answer are evidence, not answers."""
    evidence = [e for e in q.metadata.get("evidence") or [] if isinstance(e, dict)]
    quotes = {str(e.get("text", "")) for e in evidence}
    answers = [str(a) for a in q.answers]
    return answers[:1] + [a for a in answers[1:] if a not in quotes], evidence


def guideline_version(q: Question) -> str:
    """The first 12 hex digits of the SHA-256 of the review checklist the question is reviewed
    with (the guideline has no number: the hash changes exactly when the checklist does)."""
    spec = json.dumps(checklist_fields(q), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


def _question_row(
    q: Question,
    title: str,
    reviews: list[Review],
    passage_ids: dict[tuple[str, int], int],
    split: str,
) -> dict[str, Any]:
    answers, evidence = short_answers(q)
    text, original_q, original_a = q.question, None, None
    edits = [r for r in reviews if r.decision == ReviewDecision.EDIT]
    if q.status == QuestionStatus.EDITED and edits:
        if edits[-1].edited_question:
            text, original_q = edits[-1].edited_question, q.question
        if edits[-1].edited_answer:
            answers, original_a = [edits[-1].edited_answer], answers
    meta, prov = q.metadata, q.provenance
    span = meta.get("span_fraction")
    return {
        "id": q.id,
        "question": text,
        "answers": answers,
        "evidence": [
            {
                "passage_id": passage_ids.get((q.document_id or "", idx))
                if (idx := _int(e.get("passage_idx"))) is not None
                else None,
                "passage_index": idx,
                "start": _int(e.get("start")),
                "end": _int(e.get("end")),
                "text": str(e.get("text") or ""),
            }
            for e in evidence
        ],
        "document_id": q.document_id,
        "document_title": title,
        "context_document_id": q.context_document_id,
        "origin": str(q.origin),
        "entity": prov.get("entity") or meta.get("entity"),
        "qtype": q.qtype,
        "span_fraction": float(span) if isinstance(span, int | float) else None,
        "language": q.language,
        "status": str(q.status),
        "reviews": [
            {"annotator": r.annotator, "decision": str(r.decision), "created_at": r.created_at}
            for r in reviews
        ],
        "reviewed_at": max((r.created_at for r in reviews), default=None),
        "guideline_version": guideline_version(q) if reviews else None,
        "generator_model": prov.get("model"),
        "prompt_version": prov.get("prompt_hash") or None,
        "original_question": original_q,
        "original_answers": original_a,
        "split": split,
    }


def _int(value: Any) -> int | None:
    """A stored whole number, else None (the schema's int64 fields never get text)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _document_row(doc: Document) -> dict[str, Any]:
    licence, _, travels, url = licence_of(doc)
    return {
        "id": doc.id,
        "title": doc.title,
        "author": doc.author,
        "kind": doc.kind,
        "source": doc.source,
        "language": doc.language,
        "n_chars": doc.n_chars,
        "n_tokens": doc.n_tokens,
        "sha256": doc.sha256,
        "licence": licence,
        "text_included": travels,
        "url": url or None,
        "text": doc.text if travels else None,
    }


def _gold_rows(db: Database, splits: dict[str, str]) -> list[dict[str, Any]]:
    """Each task's gold (nobody left out) on the exported questions."""
    out: list[dict[str, Any]] = []
    for task in all_tasks():
        labels, adjudicated, sources = gold_inputs(db, task.name)
        gold = gold_for(labels, adjudicated, sources)
        items = sorted(gold)
        for item, fields in zip(items, task.item_fields(db, items), strict=True):
            qid = fields["question_id"]
            if qid in splits:
                out.append(
                    {
                        "task": task.name,
                        "item": str(item),
                        "question_id": qid,
                        "systems": fields.get("systems"),
                        "label": gold[item],
                        "source": "adjudicated" if item in adjudicated else "people",
                        "split": splits[qid],
                    }
                )
    return out


def build_benchmark(db: Database, options: BenchmarkOptions) -> Benchmark:
    """Every table of the export and the card's figures. InputError (nothing built) for an
    unknown status or document, no question to export, or a split that cannot be made."""
    _check(db, options)
    questions = benchmark_questions(db, options.statuses, options.documents)
    if not questions:
        raise InputError(
            f"no question has status {' or '.join(options.statuses)}"
            + (" in the chosen documents" if options.documents else "")
            + "; nothing to export"
        )
    splits = assign_splits(questions, options)
    ids = [q.id for q in questions]
    reviews: dict[str, list[Review]] = {}
    for r in reviews_of(db, ids):
        reviews.setdefault(r.question_id, []).append(r)
    doc_ids = sorted({d for q in questions for d in (q.document_id, q.context_document_id) if d})
    docs = documents_by_id(db, doc_ids)
    keys = [
        (q.document_id or "", int(e["passage_idx"]))
        for q in questions
        for e in short_answers(q)[1]
        if _int(e.get("passage_idx")) is not None
    ]
    travelling = {d for d, doc in docs.items() if licence_of(doc)[2]}
    found = passages_of(db, keys)
    passage_ids = {(p.document_id, p.idx): p.id for p in found}
    excluded = {f"human:{n}" for n in excluded_names(db)}
    tables: dict[str, list[dict[str, Any]]] = {
        "questions": [
            _question_row(
                q,
                docs[q.document_id].title if q.document_id in docs else "",
                reviews.get(q.id, []),
                passage_ids,
                splits[q.id],
            )
            for q in questions
        ],
        "documents": [_document_row(docs[d]) for d in sorted(docs)],
        "passages": [
            {
                "id": p.id,
                "document_id": p.document_id,
                "index": p.idx,
                "start": p.start,
                "end": p.end,
                "text": p.text,
                "n_tokens": p.n_tokens,
            }
            for p in found
            if p.document_id in travelling
        ],
        "answers": [
            {
                "id": a.id,
                "question_id": a.question_id,
                "system": a.system,
                "text": a.text,
                "status": str(a.status),
                "split": splits[a.question_id],
            }
            for a in answers_of(db, ids)
        ],
        "verdicts": [
            {
                **{k: getattr(j, k) for k in _VERDICT_COLUMNS},
                "kind": str(j.kind),
                "rater_kind": str(j.rater_kind),
                "evidence": [_quote(e) for e in j.evidence],
                "split": splits[j.question_id],
            }
            for j in verdicts_of(db, ids)
            if j.rater not in excluded
        ],
        "gold": _gold_rows(db, splits),
    }
    return Benchmark(tables, _facts(db, options, questions, reviews, docs, tables))


_VERDICT_COLUMNS = (
    "id",
    "question_id",
    "rater",
    "criterion",
    "system",
    "answer_id",
    "system_a",
    "system_b",
    "answer_a_id",
    "answer_b_id",
    "order_shown",
    "verdict",
    "rationale",
    "created_at",
)


def _quote(entry: Any) -> str:
    """A rater's evidence entry as its quoted text."""
    return str(entry.get("quote", "")) if isinstance(entry, dict) else str(entry)


def _facts(
    db: Database,
    options: BenchmarkOptions,
    questions: list[Question],
    reviews: dict[str, list[Review]],
    docs: dict[str, Document],
    tables: dict[str, list[dict[str, Any]]],
) -> BenchmarkFacts:
    """The card's figures, all read off what is exported (and the review statuses in scope)."""
    statuses = status_counts(db, options.documents)
    reviewed = sum(
        n
        for s, n in statuses.items()
        if s not in (QuestionStatus.PENDING, QuestionStatus.NEEDS_REVIEW)
    )
    kept = sum(statuses.get(s, 0) for s in DEFAULT_STATUSES)
    rows = tables["questions"]
    return {
        "options": options,
        "counts": {name: len(found) for name, found in tables.items()},
        "by_status": dict(Counter(str(q.status) for q in questions)),
        "by_origin": dict(Counter(str(q.origin) for q in questions)),
        "languages": sorted({q.language for q in questions}),
        "splits": dict(Counter(r["split"] for r in rows if r["split"])),
        "generators": dict(
            Counter(str(r["generator_model"]) for r in rows if r["generator_model"])
        ),
        "prompts": dict(Counter(str(r["prompt_version"]) for r in rows if r["prompt_version"])),
        "reviewers": sorted({r.annotator for rs in reviews.values() for r in rs}),
        "reviews": sum(len(rs) for rs in reviews.values()),
        "with_review": sum(1 for r in rows if r["reviews"]),
        "guidelines": sorted({str(r["guideline_version"]) for r in rows if r["guideline_version"]}),
        "statuses_in_scope": statuses,
        "reviewed": reviewed,
        "kept": kept,
        "licences": sorted({licence_of(d)[:2] for d in docs.values()}),
        "raters": dict(Counter(r["rater_kind"] for r in tables["verdicts"])),
        "gold": dict(Counter(f"{r['task']} ({r['source']})" for r in tables["gold"])),
    }
