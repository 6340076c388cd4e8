"""Long-span question generation per entity, near-duplicate removal and provenance.

Two generators write ``questions`` rows (``origin='generated'``):

* an LLM (any ``core.llm`` model) prompted with ``prompts/generate_long_span.md`` for each of
  the top-N entities. The context is the whole book when it fits the model's window
  (``core.llm.context_window``), else the passages mentioning the entity, spread evenly over the
  book, within the remaining token budget. Replies are parsed robustly
  (:func:`parse_qa_pairs`); a failed call or an unparseable reply is stored in
  ``generation_failures`` with the raw text, never dropped;
* ``baseline:entity-cooccurrence`` (offline, no model; :func:`baseline_candidates`): pairs of
  frequent entities whose co-mentions (same passage) lie far apart in the book become
  relationship questions anchored on the earliest and the latest co-mention; the "answer" is
  honestly an extractive evidence summary (the two evidence sentences), not an invented answer.

Near-duplicates: a new question whose TF-IDF cosine similarity (word 1-2-grams, fitted on all
generated questions of the document) to an earlier kept question is >= ``DUPLICATE_THRESHOLD``
(0.8) is stored with ``status='discarded'`` and ``metadata.duplicate_of`` / ``similarity``.

Idempotence: question ids hash (document, generator, prompt hash, entity, question text); an
entity that already has questions from the same model and prompt hash is skipped on re-run.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlite_utils

from core.corpus import count_tokens, get_document, get_passages
from core.entities import build_entities, finish_run, get_entities, start_run
from core.errors import ContextTooLongError, InputError
from core.store import dumps, rows, transaction, utcnow

BASELINE = "baseline:entity-cooccurrence"
PROMPT = "generate_long_span"
DUPLICATE_THRESHOLD = 0.8
MAX_REPLY_TOKENS = 2048
PROMPT_RESERVE_TOKENS = 1500


@dataclass(frozen=True)
class QAPair:
    """One parsed question with its reference answer."""

    question: str
    answer: str


@dataclass
class Candidate:
    """A question about to be stored (before de-duplication)."""

    question: str
    answer: str
    qtype: str
    entity_id: int | None
    provenance: dict[str, Any]
    metadata: dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Parsing model replies
# ---------------------------------------------------------------------------------------------

_Q_LABEL = r"[ \t*_#>\-]*(?:\d+[.)]\s*)?(?:Question|Q)\s*\d*\s*[:.)][ \t*_]*"
_A_LABEL = r"\s*[*_]*(?:Answer|A)\s*\d*\s*:[ \t*_]*"
_QA_BLOCK = re.compile(rf"(?:^|\n){_Q_LABEL}(?P<q>.+?){_A_LABEL}(?P<a>.+?)"
                       rf"(?=\n{_Q_LABEL}|\Z)", re.S | re.I)


def _pairs_from_json(data: Any) -> list[QAPair]:
    if isinstance(data, dict):
        for key in ("questions", "items", "pairs", "qa"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        return []
    out = []
    for item in data:
        if not isinstance(item, dict):
            continue
        low = {str(k).lower(): v for k, v in item.items()}
        q, a = low.get("question", low.get("q")), low.get("answer", low.get("a"))
        if isinstance(q, str) and q.strip() and isinstance(a, (str, list)):
            answer = " ".join(a) if isinstance(a, list) else a
            out.append(QAPair(" ".join(q.split()), " ".join(str(answer).split())))
    return out


def _json_values(text: str) -> list[Any]:
    """Every JSON value that starts at a ``[`` or ``{`` of ``text`` (fences searched first)."""
    bodies = re.findall(r"```(?:json)?\s*(.*?)```", text, re.S) + [text]
    decoder, found = json.JSONDecoder(), []
    for body in bodies:
        for match in re.finditer(r"[\[{]", body):
            try:
                found.append(decoder.raw_decode(body[match.start():])[0])
                if found:
                    return found
            except json.JSONDecodeError:
                continue
    return found


def parse_qa_pairs(text: str) -> list[QAPair]:
    """Question/answer pairs from a reply: JSON list (bare or fenced), ``{"questions": [...]}``,
    or ``Question: ... Answer: ...`` blocks. Raises ValueError when none can be read."""
    for value in _json_values(text):
        pairs = _pairs_from_json(value)
        if pairs:
            return pairs
    pairs = []
    for m in _QA_BLOCK.finditer(text):
        q = " ".join(m.group("q").replace("**", "").split())
        a = " ".join(m.group("a").replace("**", "").split())
        if q and a:
            pairs.append(QAPair(q, a))
    if not pairs:
        raise ValueError("no JSON question list and no 'Question: ... Answer: ...' blocks")
    return pairs


# ---------------------------------------------------------------------------------------------
# De-duplication and storage
# ---------------------------------------------------------------------------------------------

def similarity_matrix(texts: list[str]) -> np.ndarray:
    """Pairwise TF-IDF cosine similarity (word 1-2-grams, sublinear tf, l2-normalised rows)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not texts:
        return np.zeros((0, 0))
    matrix = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True,
                             token_pattern=r"(?u)\b\w+\b").fit_transform(texts)
    return (matrix @ matrix.T).toarray()


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def question_id(doc_id: str, generator: str, key: str, question: str) -> str:
    """Stable id: ``gen-`` + 16 hex of sha256(document, generator, key, normalised question)."""
    blob = "\x1f".join([doc_id, generator, key, _norm(question)])
    return "gen-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def store_candidates(db: sqlite_utils.Database, doc_id: str, candidates: list[Candidate],
                     run_id: str, threshold: float = DUPLICATE_THRESHOLD) -> dict[str, int]:
    """De-duplicate ``candidates`` against each other and the document's kept generated
    questions, then insert them (one transaction). Returns counts kept/discarded/existing."""
    existing = rows(db, "select id, question from questions where document_id = ? and "
                        "origin = 'generated' and status != 'discarded' order by created_at, id",
                    [doc_id])
    known_ids = {r[0] for r in db.execute(
        "select id from questions where document_id = ? and origin = 'generated'", [doc_id])}
    texts = [r["question"] for r in existing] + [c.question for c in candidates]
    sims = similarity_matrix(texts)
    kept_pos = list(range(len(existing)))
    ids = [r["id"] for r in existing]
    counts = {"kept": 0, "discarded": 0, "existing": 0}
    batch: set[str] = set()
    now = utcnow()
    with transaction(db):
        for n, cand in enumerate(candidates):
            pos = len(existing) + n
            key = f"{cand.provenance.get('prompt_hash', '')}|{cand.entity_id}"
            qid = question_id(doc_id, cand.provenance["model"], key, cand.question)
            while qid in batch:  # an exact repeat inside this batch: keep it, as a duplicate
                qid = question_id(doc_id, cand.provenance["model"], key + "#", qid)
            batch.add(qid)
            ids.append(qid)
            if qid in known_ids:
                counts["existing"] += 1
                continue
            status, metadata = "pending", dict(cand.metadata)
            if kept_pos:
                best = max(kept_pos, key=lambda j: sims[pos, j])
                if sims[pos, best] >= threshold:
                    status = "discarded"
                    metadata.update({"duplicate_of": ids[best], "reason": "near-duplicate",
                                     "similarity": round(float(sims[pos, best]), 4),
                                     "similarity_measure": f"tfidf-cosine>={threshold}"})
            if status == "pending":
                kept_pos.append(pos)
            db["questions"].insert({
                "id": qid, "document_id": doc_id, "context_document_id": doc_id,
                "context_kind": "story", "question": cand.question,
                "answers": dumps([cand.answer]), "origin": "generated", "qtype": cand.qtype,
                "entity_id": cand.entity_id, "status": status,
                "provenance": dumps({**cand.provenance, "run_id": run_id}),
                "metadata": dumps(metadata), "run_id": run_id, "created_at": now,
                "updated_at": now})
            known_ids.add(qid)
            counts["kept" if status == "pending" else "discarded"] += 1
    return counts


# ---------------------------------------------------------------------------------------------
# LLM generation
# ---------------------------------------------------------------------------------------------

def entity_context(db: sqlite_utils.Database, doc: dict, entity: dict,
                   budget_tokens: int | None) -> tuple[str, str, list[int]]:
    """``(context, kind, passage_indexes)``: the full book if it fits ``budget_tokens``, else the
    entity's mention passages, evenly spread over the book, within the budget (book order).
    ``budget_tokens=None`` means no limit."""
    from core.entities import entity_passage_indexes
    from core.retrieval import format_context

    if budget_tokens is None or doc["n_tokens"] <= budget_tokens:
        return doc["text"], "full", []
    by_idx = {p.idx: p for p in get_passages(db, doc["id"])}
    idxs = [i for i in entity_passage_indexes(db, entity["id"]) if i in by_idx]
    k = len(idxs)
    while k > 0:
        chosen = sorted({idxs[int(round(x))] for x in np.linspace(0, len(idxs) - 1, k)})
        if sum(by_idx[i].n_tokens for i in chosen) <= budget_tokens:
            return format_context([by_idx[i] for i in chosen]), "entity-mentions", chosen
        k = min(k - 1, int(k * budget_tokens / sum(by_idx[i].n_tokens for i in chosen)))
    raise InputError(f"no mention passage of {entity['name']!r} fits {budget_tokens} tokens")


def _record_failure(db, run_id, doc_id, entity_id, model, phash, kind, error, raw) -> None:
    db["generation_failures"].insert({
        "run_id": run_id, "document_id": doc_id, "entity_id": entity_id, "model": model,
        "prompt_hash": phash, "kind": kind, "error": error[:1000], "raw": raw or "",
        "created_at": utcnow()})


def _already_generated(db, doc_id: str, entity_id: int, model: str, phash: str) -> bool:
    return db.execute(
        "select 1 from questions where document_id = ? and entity_id = ? and origin = "
        "'generated' and json_extract(provenance, '$.model') = ? and "
        "json_extract(provenance, '$.prompt_hash') = ? limit 1",
        [doc_id, entity_id, model, phash]).fetchone() is not None


def llm_candidates(db, doc: dict, entities: list[dict], model: str, per_entity: int,
                   run_id: str, window_tokens: int | None = None, progress: bool = False
                   ) -> tuple[list[Candidate], int]:
    """Prompt ``model`` once per entity; return parsed candidates and the failure count."""
    from core.llm import LLMRequest, complete_many, context_window
    from core.prompts import prompt_hash, render_prompt

    phash = prompt_hash(PROMPT)
    window = context_window(model) if window_tokens is None else window_tokens
    budget = None if window <= 0 else window - MAX_REPLY_TOKENS - PROMPT_RESERVE_TOKENS
    if budget is not None and budget < 500:
        raise ContextTooLongError(f"{model}: a {window}-token window leaves no room for "
                                  "book passages; use a longer-context model")
    requests, meta = [], []
    for e in entities:
        context, kind, idxs = entity_context(db, doc, e, budget)
        note = ("The full text of the book is given above." if kind == "full" else
                "Only passages of the book that mention this entity are given above, in book "
                "order; use your reading of them as a whole.")
        prompt = render_prompt(PROMPT, title=doc["title"] or doc["id"], entity=e["name"],
                               aliases=", ".join(e["aliases"][:8]) or "none",
                               n_questions=per_entity, context_note=note)
        requests.append(LLMRequest(
            model=model, prompt=prompt, context=context, max_tokens=MAX_REPLY_TOKENS,
            task="generate_questions", purpose="question generation",
            fields={"entity": e["name"], "title": doc["title"], "n_questions": per_entity,
                    "context_kind": kind}))
        meta.append((e, kind, idxs, count_tokens(context)))
    replies = complete_many(db, requests, run_id=run_id, progress=progress)
    out, failures = [], 0
    for (e, kind, idxs, ctx_tokens), resp in zip(meta, replies):
        if resp.error is not None:
            _record_failure(db, run_id, doc["id"], e["id"], model, phash, "provider_error",
                            f"{resp.error_kind}: {resp.error}", resp.text)
            failures += 1
            continue
        try:
            pairs = parse_qa_pairs(resp.text)
        except ValueError as exc:
            _record_failure(db, run_id, doc["id"], e["id"], model, phash, "unparsed",
                            str(exc), resp.text)
            failures += 1
            continue
        for pair in pairs[:per_entity]:
            out.append(Candidate(
                question=pair.question, answer=pair.answer, qtype="long-span",
                entity_id=e["id"],
                provenance={"generator": "llm", "model": model, "prompt": PROMPT,
                            "prompt_hash": phash, "entity": e["name"], "context_kind": kind,
                            "request_id": resp.request_id, "cache_hit": resp.cache_hit},
                metadata={"entity": e["name"], "context_tokens": ctx_tokens,
                          "context_passages": idxs}))
    return out, failures


# ---------------------------------------------------------------------------------------------
# Offline baseline: entity co-occurrence
# ---------------------------------------------------------------------------------------------

MIN_SPREAD = 0.2      # co-mentions must span at least 20% of the book's passages
CLIP_WORDS = 24


def _clip(sentence: str, words: int = CLIP_WORDS) -> str:
    parts = sentence.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


_HEADING = re.compile(r"^[^a-z]*[A-Z]{3}[^a-z]*$")


def _sentences(text: str, passage: Any) -> list[tuple[int, int]]:
    """Absolute ``(start, end)`` of the sentences of ``passage``, heading lines removed."""
    from core.llm.textutil import split_sentences

    out = []
    for sent in split_sentences(text[passage.start:passage.end]):
        lo, hi = passage.start + sent.start, passage.start + sent.end
        lines = text[lo:hi].split("\n")
        while len(lines) > 1 and _HEADING.match(lines[0].strip() or "X"):  # "BOOK SECOND—..."
            lo += len(lines.pop(0)) + 1
        if not _HEADING.match(text[lo:hi].strip() or "ABC"):
            out.append((lo, hi))
    return out


def _evidence(text: str, passage: Any, spans_x: list[tuple[int, int]],
              spans_y: list[tuple[int, int]]) -> dict[str, Any] | None:
    """The sentence of ``passage`` that mentions both X and Y (``same_sentence``), else the
    sentence mentioning X nearest to one mentioning Y, joined by " … "; None if neither."""
    sentences = _sentences(text, passage)

    def holding(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [s for s in sentences if any(s[0] <= a < s[1] for a, _ in spans)]

    with_x, with_y = holding(spans_x), holding(spans_y)
    both = [s for s in with_x if s in with_y]
    if both:
        chosen, same = [both[0]], True
    elif with_x and with_y:
        chosen = sorted(min(((sx, sy) for sx in with_x for sy in with_y),
                            key=lambda p: abs(p[0][0] - p[1][0])))
        same = False
    else:
        return None
    parts = [" ".join(text[a:b].split()) for a, b in chosen]
    return {"passage_idx": passage.idx, "start": chosen[0][0], "end": chosen[-1][1],
            "text": " … ".join(parts), "same_sentence": same}


def baseline_candidates(db: sqlite_utils.Database, doc: dict, n_entities: int,
                        per_entity: int) -> list[Candidate]:
    """Relationship questions from far-apart co-mentions of frequent entities.

    For a focus entity X (top ``n_entities``, people first) and partner Y (top ``2N+5``), let
    C = passages mentioning both. Pairs with ``|C| >= 2`` and spread
    ``(max C - min C) / (#passages - 1) >= MIN_SPREAD`` are scored ``spread * ln(1 + |C|)``;
    the ``per_entity`` best partners per X (each unordered pair once) give one question each,
    anchored on evidence sentences near the first and the last co-mention (a sentence naming
    both preferred; Gutenberg heading lines removed).
    """
    import math

    pool = get_entities(db, doc["id"], top=max(3 * n_entities + 5, 12))
    people = [e for e in pool if e["label"] == "PERSON"]
    pool = people if len(people) >= 2 else pool
    focus, partners = pool[:n_entities], pool[:2 * n_entities + 5]
    passages = {p.idx: p for p in get_passages(db, doc["id"])}
    last = max(1, len(passages) - 1)
    spans: dict[int, dict[int, list[tuple[int, int]]]] = {}
    for e in partners:
        by_passage: dict[int, list[tuple[int, int]]] = {}
        for r in db.execute("select passage_idx, start, end from mentions where entity_id = ? "
                            "and passage_idx is not null order by start", [e["id"]]):
            by_passage.setdefault(r[0], []).append((r[1], r[2]))
        spans[e["id"]] = by_passage
    used: set[frozenset[int]] = set()
    out: list[Candidate] = []
    evidence_cache: dict[tuple[int, int, int], dict[str, Any] | None] = {}

    def evidence(i: int, xid: int, yid: int) -> dict[str, Any] | None:
        if (i, xid, yid) not in evidence_cache:
            evidence_cache[(i, xid, yid)] = _evidence(doc["text"], passages[i], spans[xid][i],
                                                      spans[yid][i])
        return evidence_cache[(i, xid, yid)]

    for x in focus:
        scored = []
        for y in partners:
            pair = frozenset((x["id"], y["id"]))
            if y["id"] == x["id"] or pair in used:
                continue
            co = sorted(spans[x["id"]].keys() & spans[y["id"]].keys())
            spread = (co[-1] - co[0]) / last if len(co) >= 2 else 0.0
            if spread >= MIN_SPREAD:
                scored.append((spread * math.log1p(len(co)), spread, co, y))
        scored.sort(key=lambda t: (-t[0], t[3]["rank"]))
        for score, spread, co, y in scored:
            if len([c for c in out if c.entity_id == x["id"]]) >= per_entity:
                break
            # anchors: the earliest and latest co-mention passages whose evidence sentences
            # are clean, preferring one sentence naming both (at most 12 tried at each end)
            ends = []
            for order in (co[:12], co[::-1][:12]):
                found = [(i, evidence(i, x["id"], y["id"])) for i in order]
                found = [(i, ev) for i, ev in found if ev is not None]
                same = [f for f in found if f[1]["same_sentence"]]
                ends.append((same or found or [None])[0])
            if None in ends or (ends[1][0] - ends[0][0]) / last < MIN_SPREAD:
                continue
            ev, spread = [ends[0][1], ends[1][1]], (ends[1][0] - ends[0][0]) / last
            used.add(frozenset((x["id"], y["id"])))
            question = (f"How does the relationship between {x['name']} and {y['name']} change "
                        f"between the early passage where “{_clip(ev[0]['text'])}” and the "
                        f"later passage where “{_clip(ev[1]['text'])}”?")
            answer = ("Extractive evidence summary (baseline, not a written answer): early — "
                      f"“{ev[0]['text']}” Later — “{ev[1]['text']}”")
            out.append(Candidate(
                question=question, answer=answer, qtype="relationship", entity_id=x["id"],
                provenance={"generator": BASELINE, "model": BASELINE, "prompt": None,
                            "prompt_hash": "", "entity": x["name"], "context_kind": "evidence"},
                metadata={"pair": [x["name"], y["name"]], "entity_ids": [x["id"], y["id"]],
                          "evidence": ev, "co_passages": len(co),
                          "span_fraction": round(spread, 4), "score": round(score, 4),
                          "answer_kind": "extractive-evidence"}))
    return out


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------

def generate_questions(db: sqlite_utils.Database, doc_id: str, model: str, *,
                       n_entities: int = 5, per_entity: int = 3,
                       window_tokens: int | None = None, progress: bool = False,
                       entity_method: str = "regex") -> dict[str, Any]:
    """Generate questions about the top ``n_entities`` entities of ``doc_id`` with ``model``
    (an LLM id, or ``baseline`` / ``baseline:entity-cooccurrence``) and store them.

    Entities are extracted first if none are stored (``entity_method``, default the fast
    built-in extractor; run ``python -m core entities`` first for spaCy). Returns counts:
    ``kept``, ``discarded``, ``existing`` (already stored: re-run), ``failures``,
    ``skipped_entities`` and ``run_id``.
    """
    if n_entities < 1 or per_entity < 1:
        raise InputError("--entities and --per-entity must be at least 1")
    doc = get_document(db, doc_id)
    if doc is None:
        raise InputError(f"unknown document {doc_id!r}: import it first")
    if not get_entities(db, doc_id, top=1):
        build_entities(db, doc_id, method=entity_method, progress=progress)
    is_baseline = model in ("baseline", BASELINE)
    model = BASELINE if is_baseline else model
    run_id = start_run(db, "generate", f"{doc_id} {model}",
                       {"model": model, "entities": n_entities, "per_entity": per_entity})
    try:
        entities = get_entities(db, doc_id, top=n_entities)
        skipped = 0
        if is_baseline:
            candidates, failures = baseline_candidates(db, doc, n_entities, per_entity), 0
        else:
            from core.prompts import prompt_hash

            phash = prompt_hash(PROMPT)
            todo = [e for e in entities if not _already_generated(db, doc_id, e["id"], model,
                                                                   phash)]
            skipped = len(entities) - len(todo)
            candidates, failures = (llm_candidates(db, doc, todo, model, per_entity, run_id,
                                                   window_tokens, progress) if todo else ([], 0))
        counts = store_candidates(db, doc_id, candidates, run_id)
    except BaseException as exc:
        finish_run(db, run_id, "failed", str(exc)[:500])
        raise
    summary = {"run_id": run_id, "model": model, **counts, "failures": failures,
               "skipped_entities": skipped}
    finish_run(db, run_id, "done", dumps(summary))
    return summary
