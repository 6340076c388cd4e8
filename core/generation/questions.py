"""Long-span question generation per entity, near-duplicate removal and provenance.

Two generators write ``questions`` rows (``origin='generated'``):

* an LLM (any ``core.llm`` model) prompted with ``prompts/generate_long_span.md`` for each of
  the top-N entities. The context is the whole book when it fits the model's window
  (``core.llm.context_window``), else the passages mentioning the entity, spread evenly over the
  book, within the remaining token budget. Replies are parsed robustly
  (:func:`parse_qa_pairs`); a failed call or an unparseable reply is stored in
  ``generation_failures`` with the raw text, never dropped;
* ``baseline:entity-cooccurrence`` (offline, no model; :mod:`core.generation.baseline`):
  bridge, companion and event-order questions whose answers are computed from the entities'
  mention passages and never appear in the question.

Every question stores its span fraction (:mod:`core.generation.span`) and is flagged below the
minimum. Near-duplicates are stored as ``discarded`` (:mod:`core.generation.question_store`: two
baseline questions by their filled slots, others by TF-IDF cosine >= ``DUPLICATE_THRESHOLD``).

LLM generation is an LLM stage (:func:`core.llm.stage.run_stage`): one request per entity is
planned and checked first, then sent with no transaction open, and each entity's questions (or
its failure) are stored in their own transaction as its reply arrives, so an interrupted run
keeps them and the rerun asks only for the entities still without questions.

Idempotence: question ids hash (document, generator, prompt hash, entity, question text); an
entity that already has questions from the same model and prompt hash is skipped on re-run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, NotRequired, TypedDict

import numpy as np

from core.corpus.documents import count_tokens, require_document
from core.corpus.retrieval import format_context
from core.errors import ContextTooLongError, InputError
from core.generation.baseline import baseline_candidates
from core.generation.baseline_mix import baseline_note
from core.generation.candidates import BASELINE, Candidate
from core.generation.entity_store import build_entities, entity_passage_indexes, get_entities
from core.generation.qa_parse import QAPair, parse_qa_pairs
from core.generation.question_store import kept_baseline_answers, store_candidates
from core.generation.span import MIN_SPAN_FRACTION, SpanFields, built_from_offsets, span_fields
from core.llm.engine import preflight
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import failure_share, over_limit_line, run_stage
from core.llm.types import LLMRequest, LLMResponse
from core.llm.windows import context_window
from core.store.connection import dumps, utcnow
from core.store.documents import Document, get_passages
from core.store.entities import Entity
from core.store.generation_failures import GenerationFailure, record_generation_failure
from core.store.questions import generated_exists
from core.store.runs import RunStatus, finish_run, start_run

if TYPE_CHECKING:
    from core.store.engine import Database

PROMPT = "generate_long_span"
MAX_REPLY_TOKENS = 2048
PROMPT_RESERVE_TOKENS = 1500


class PlannedEntity(NamedTuple):
    """What a planned request was built from: the entity, its context kind (``full`` or
    ``entity-mentions``), the context's passage indexes, its tokens and its span fields."""

    entity: Entity
    kind: str
    idxs: list[int]
    ctx_tokens: int
    span: SpanFields


#: :func:`plan_generation`'s result: one request per entity and what it was built from.
Planned = tuple[list[LLMRequest], list[PlannedEntity]]


class GenerationSummary(TypedDict):
    """:func:`generate_questions`' counts (``note``: only for the baseline)."""

    run_id: str
    model: str
    kept: int
    discarded: int
    existing: int
    failures: int
    skipped_entities: int
    note: NotRequired[str]
    failure_summary: NotRequired[str]


def entity_context(
    db: Database, doc: Document, entity: Entity, budget_tokens: int | None
) -> tuple[str, str, list[int]]:
    """``(context, kind, passage_indexes)``: the full book if it fits ``budget_tokens``, else the
    entity's mention passages, evenly spread over the book, within the budget (book order).
    ``budget_tokens=None`` means no limit."""

    if budget_tokens is None or doc.n_tokens <= budget_tokens:
        return doc.text, "full", []
    by_idx = {p.idx: p for p in get_passages(db, doc.id)}
    idxs = [i for i in entity_passage_indexes(db, entity.id) if i in by_idx]
    k = len(idxs)
    while k > 0:
        chosen = sorted({idxs[int(round(x))] for x in np.linspace(0, len(idxs) - 1, k)})
        if sum(by_idx[i].n_tokens for i in chosen) <= budget_tokens:
            return format_context([by_idx[i] for i in chosen]), "entity-mentions", chosen
        k = min(k - 1, int(k * budget_tokens / sum(by_idx[i].n_tokens for i in chosen)))
    raise InputError(f"no mention passage of {entity.name!r} fits {budget_tokens} tokens")


def _record_failure(
    db: Database,
    run_id: str,
    doc_id: str,
    entity_id: int,
    model: str,
    phash: str,
    kind: str,
    error: str,
    raw: str | None,
) -> None:
    record_generation_failure(
        db,
        GenerationFailure(
            run_id=run_id,
            document_id=doc_id,
            entity_id=entity_id,
            model=model,
            prompt_hash=phash,
            kind=kind,
            error=error,
            raw=raw or "",
            created_at=utcnow(),
        ),
    )


def plan_generation(
    db: Database,
    doc: Document,
    entities: list[Entity],
    model: str,
    per_entity: int,
    window_tokens: int | None = None,
    min_span: float = MIN_SPAN_FRACTION,
) -> Planned:
    """One request per entity (nothing sent) and its ``(entity, context kind, passage
    indexes, context tokens, span fields)``; every request is checked by the model layer
    (provider, key, window, task) before the caller writes anything."""

    window = context_window(model) if window_tokens is None else window_tokens
    budget = None if window <= 0 else window - MAX_REPLY_TOKENS - PROMPT_RESERVE_TOKENS
    if budget is not None and budget < 500:
        raise ContextTooLongError(
            f"{model}: a {window}-token window leaves no room for "
            "book passages; use a longer-context model"
        )
    requests: list[LLMRequest] = []
    meta: list[PlannedEntity] = []
    for e in entities:
        context, kind, idxs = entity_context(db, doc, e, budget)
        note = (
            "The full text of the book is given above."
            if kind == "full"
            else "Only passages of the book that mention this entity are given above, in book "
            "order; use your reading of them as a whole."
        )
        prompt = render_prompt(
            PROMPT,
            title=doc.title or doc.id,
            entity=e.name,
            aliases=", ".join(e.aliases[:8]) or "none",
            n_questions=per_entity,
            context_note=note,
        )
        requests.append(
            LLMRequest(
                model=model,
                prompt=prompt,
                context=context,
                max_tokens=MAX_REPLY_TOKENS,
                task="generate_questions",
                purpose="question generation",
                fields={
                    "entity": e.name,
                    "title": doc.title,
                    "n_questions": per_entity,
                    "context_kind": kind,
                },
            )
        )
        n_ctx = doc.n_tokens if kind == "full" and doc.n_tokens else count_tokens(context)
        offsets = built_from_offsets(db, doc.id, idxs, e.id)
        meta.append(
            PlannedEntity(e, kind, idxs, n_ctx, span_fields(offsets, len(doc.text), min_span))
        )
    preflight(requests)
    return requests, meta


def check_generator_model(model: str) -> None:
    """Raise before anything is written when ``model`` cannot generate questions (unknown
    provider or baseline, missing key, an offline baseline: LLM-only task)."""

    preflight(
        [
            LLMRequest(
                model=model,
                prompt="",
                max_tokens=MAX_REPLY_TOKENS,
                task="generate_questions",
                purpose="question generation",
                fields={"entity": "", "title": "", "n_questions": 1, "context_kind": "full"},
            )
        ]
    )


def _candidates(
    entity: Entity,
    kind: str,
    idxs: list[int],
    ctx_tokens: int,
    pairs: list[QAPair],
    resp: LLMResponse,
    model: str,
    per_entity: int,
    span: SpanFields,
) -> list[Candidate]:
    phash = prompt_hash(PROMPT)
    return [
        Candidate(
            question=pair.question,
            answer=pair.answer,
            qtype="long-span",
            entity_id=entity.id,
            provenance={
                "generator": "llm",
                "model": model,
                "prompt": PROMPT,
                "prompt_hash": phash,
                "entity": entity.name,
                "context_kind": kind,
                "request_id": resp.request_id,
                "cache_hit": resp.cache_hit,
            },
            metadata={
                "entity": entity.name,
                "context_tokens": ctx_tokens,
                "context_passages": idxs,
                "question_type": "long-span",
                **span,
            },
        )
        for pair in pairs[:per_entity]
    ]


def generate_with_model(
    db: Database,
    doc: Document,
    planned: Planned,
    model: str,
    per_entity: int,
    run_id: str,
    progress: bool = False,
) -> tuple[dict[str, int], int]:
    """Send the planned requests (one per entity) and store each entity's questions (or its
    failure) in its own transaction as its reply arrives; return the store counts
    (kept/discarded/existing) and the failure count.

    An LLM stage (:func:`core.llm.stage.run_stage`). Entities are stored in their planned order
    (a reply that arrives early waits for the entities before it), so the near-duplicate check
    sees the same earlier questions whatever the order of the replies.
    """

    phash = prompt_hash(PROMPT)
    requests, meta = planned
    counts = {"kept": 0, "discarded": 0, "existing": 0}

    def store(db: Database, i: int, resp: LLMResponse) -> str:
        e, kind, idxs, ctx_tokens, span = meta[i]
        if resp.error is not None:
            error, kind_of_failure = f"{resp.error_kind}: {resp.error}", "provider_error"
        else:
            try:
                pairs = parse_qa_pairs(resp.text)
            except ValueError as exc:
                error, kind_of_failure = str(exc), "unparsed"
            else:
                cands = _candidates(e, kind, idxs, ctx_tokens, pairs, resp, model, per_entity, span)
                for key, n in store_candidates(db, doc.id, cands, run_id).items():
                    counts[key] += n
                return "stored"
        _record_failure(db, run_id, doc.id, e.id, model, phash, kind_of_failure, error, resp.text)
        return "failed"

    tally = run_stage(
        db, list(enumerate(requests)), store, run_id=run_id, progress=progress, ordered=True
    )
    return counts, tally.get("failed", 0)


def generate_questions(
    db: Database,
    doc_id: str,
    model: str,
    *,
    n_entities: int = 5,
    per_entity: int = 3,
    window_tokens: int | None = None,
    progress: bool = False,
    entity_method: str = "auto",
    min_span_fraction: float = MIN_SPAN_FRACTION,
    max_failure_share: float = 0.2,
) -> GenerationSummary:
    """Generate questions about the top ``n_entities`` entities of ``doc_id`` with ``model``
    (an LLM id, or ``baseline`` / ``baseline:entity-cooccurrence``) and store them.

    Entities are extracted first if none are stored (``entity_method``, default ``auto``: spaCy
    NER when installed, else the built-in extractor). Returns counts: ``kept``, ``discarded``,
    ``existing`` (already stored: re-run), ``failures``, ``skipped_entities``, ``run_id`` and
    for the baseline a ``note`` (:func:`core.generation.baseline_mix.baseline_note`: fewer
    questions than asked, evidence at the ends, one answer over a third of the kept questions).
    Questions whose span fraction is below ``min_span_fraction`` are flagged (the baseline makes
    none). When the share of entities whose reply failed (unparsed, provider error) passes
    ``max_failure_share`` (:func:`core.llm.stage.over_limit`) the run is ``failed`` and
    ``failure_summary`` says so.
    """
    if n_entities < 1 or per_entity < 1:
        raise InputError("--entities and --per-entity must be at least 1")
    if not 0 <= min_span_fraction <= 1:
        raise InputError("--min-span-fraction must be between 0 and 1")
    doc = require_document(db, doc_id)
    is_baseline = model in ("baseline", BASELINE)
    model = BASELINE if is_baseline else model
    if not is_baseline:
        check_generator_model(model)  # unknown model / no key: before anything is written
    if not get_entities(db, doc_id, top=1):
        build_entities(db, doc_id, method=entity_method, progress=progress)
    entities = get_entities(db, doc_id, top=n_entities)
    skipped, planned = 0, None
    if not is_baseline:
        phash = prompt_hash(PROMPT)
        todo = [e for e in entities if not generated_exists(db, doc_id, e.id, model, phash)]
        skipped = len(entities) - len(todo)
        # every request built and checked (window, task) before the run row is written
        planned = plan_generation(
            db, doc, todo, model, per_entity, window_tokens, min_span_fraction
        )
    run_id = start_run(
        db,
        "generate",
        f"{doc_id} {model}",
        {
            "model": model,
            "entities": n_entities,
            "per_entity": per_entity,
            "min_span_fraction": min_span_fraction,
        },
    )
    try:
        if is_baseline:
            candidates = baseline_candidates(db, doc, n_entities, per_entity, min_span_fraction)
            counts, failures = store_candidates(db, doc_id, candidates, run_id), 0
        elif planned is not None and todo:
            counts, failures = generate_with_model(
                db, doc, planned, model, per_entity, run_id, progress
            )
        else:
            counts, failures = {"kept": 0, "discarded": 0, "existing": 0}, 0
    except BaseException as exc:
        finish_run(db, run_id, RunStatus.FAILED, str(exc)[:500])
        raise
    summary = GenerationSummary(
        run_id=run_id,
        model=model,
        kept=counts["kept"],
        discarded=counts["discarded"],
        existing=counts["existing"],
        failures=failures,
        skipped_entities=skipped,
    )
    if is_baseline:
        kept = kept_baseline_answers(db, doc_id)
        summary["note"] = baseline_note(candidates, len(entities), n_entities, per_entity, kept)
    elif line := over_limit_line(
        f"generate {doc_id}",
        {model: failure_share(len(todo), failures)},
        "replies unparsed or failed",
        max_failure_share,
        "see generation_failures",
    ):
        summary["failure_summary"] = line
    status = RunStatus.FAILED if "failure_summary" in summary else RunStatus.DONE
    finish_run(db, run_id, status, dumps(summary))
    return summary
