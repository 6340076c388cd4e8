"""Articles of the systems under test: one per (bank, query, system), never built from the exam.

Kinds of system (each a small factory that returns the article text or ``None``):

* ``retrieval`` over a stored document: BM25 passages for the query text up to a token budget,
  concatenated in book order (:func:`core.corpus.retrieval.retrieve`).
* ``pool`` retrieval over an in-memory list of passages (e.g. the CAR nugget pool): passages
  ranked by BM25 (:mod:`core.exam.lexical`), taken greedily best first while the token budget allows,
  emitted in pool order.
* ``lead`` - the first passages of a document up to the budget (a position baseline).
* ``generated`` - a model writes an overview of the query/book (``prompts/exam_article.md``);
  offline baselines cannot write and raise ``ConfigError``.
* ``gold`` - a given reference text (system name ``_gold_``), the n-EXAM normaliser.

None of them reads ``exam_questions``. A system that produces no text for a query stores no
article; that query scores 0 for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from core.corpus.confusables import check_lookalikes
from core.corpus.documents import count_tokens
from core.corpus.names import check_name
from core.corpus.retrieval import retrieve
from core.errors import InputError
from core.exam.lexical import ArticleIndex, bm25_window_scores, content_terms
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import transaction
from core.store.documents import get_passages
from core.store.exam_bank import (
    ExamArticle,
    bank_articles,
    bank_queries,
    query_exists,
    replace_article,
)

if TYPE_CHECKING:
    from core.store.engine import Database

GOLD = "_gold_"


def checked_system(db: Database, bank_id: str, system: object) -> str:
    """``system`` as a new article's system name: a valid name (:func:`check_name`, NFC) that does
    not look like a different system of the bank (:func:`check_lookalikes`: Unicode TR39
    skeletons, case); an ``InputError`` otherwise."""
    name = check_name(system, "system")
    known = {a["system"] for a in bank_articles(db, bank_id)}
    check_lookalikes([name], known, "system")
    return name


def store_article(
    db: Database,
    bank_id: str,
    query_id: str,
    system: str,
    text: str,
    *,
    kind: str,
    metadata: dict[str, Any] | None = None,
    run_id: str | None = None,
) -> int:
    """Insert or replace the article of ``system`` for ``query_id``; returns its id.

    Replacing an article drops its old grades (cascade). Empty text raises ``InputError``.
    """

    system = check_name(system, "system")
    if not text.strip():
        raise InputError(f"empty article for system {system!r}, query {query_id!r}")
    if not query_exists(db, bank_id, query_id):
        raise InputError(f"query {query_id!r} is not in exam bank {bank_id!r}")
    with transaction(db):
        return replace_article(
            db,
            ExamArticle(
                bank_id=bank_id,
                query_id=query_id,
                system=system,
                kind=kind,
                text=text,
                n_tokens=count_tokens(text),
                metadata=metadata or {},
                run_id=run_id,
            ),
        )


def import_articles(
    db: Database,
    bank_id: str,
    system: str,
    texts: dict[str, str],
    *,
    kind: str = "imported",
    metadata: dict[str, Any] | None = None,
) -> int:
    """Store one article per query for ``system`` in one transaction; returns how many."""
    with transaction(db):
        for query_id, text in texts.items():
            store_article(db, bank_id, query_id, system, text, kind=kind, metadata=metadata)
    return len(texts)


def pool_article(pool: list[str], query: str, budget_tokens: int) -> str | None:
    """BM25-retrieve passages of ``pool`` for ``query`` up to ``budget_tokens``, in pool order.

    Passages are taken by descending score (ties: pool order); one that would overflow the budget
    is skipped. Passages sharing no term with the query are never taken; ``None`` if none match.
    """
    if budget_tokens < 1:
        raise InputError(f"budget_tokens must be positive, got {budget_tokens}")
    windows = [content_terms(p) for p in pool]
    tfs = [Counter(w) for w in windows]
    df: Counter[str] = Counter()
    for tf in tfs:
        df.update(tf.keys())
    avgdl = sum(map(len, windows)) / len(windows) if windows else 0.0
    index = ArticleIndex(windows=windows, tfs=tfs, df=df, avgdl=avgdl)
    scores = bm25_window_scores(index, content_terms(query))
    order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    chosen, used = [], 0
    for i in order:
        n = count_tokens(pool[i])
        if used + n <= budget_tokens:
            chosen.append(i)
            used += n
    return "\n\n".join(pool[i] for i in sorted(chosen)) if chosen else None


def retrieval_article(db: Database, document_id: str, query: str, budget_tokens: int) -> str | None:
    """BM25 passages of a stored document for ``query`` up to the budget, in book order."""

    passages = retrieve(db, document_id, query, budget_tokens=budget_tokens)
    return "\n\n".join(p.text for p in passages) if passages else None


def lead_article(db: Database, document_id: str, budget_tokens: int) -> str | None:
    """The first passages of a stored document whose tokens sum to at most the budget."""
    out, used = [], 0
    for p in get_passages(db, document_id):
        if used + p.n_tokens > budget_tokens:
            break
        out.append(p.text)
        used += p.n_tokens
    return "\n\n".join(out) if out else None


def _generated_by(db: Database, bank_id: str, system: str, model: str) -> set[str]:
    """Queries of ``bank_id`` whose ``system`` article was already written by ``model``."""
    return {
        a["query_id"]
        for a in bank_articles(db, bank_id)
        if a["system"] == system
        and a["kind"] == "generated"
        and (a["metadata"] or {}).get("model") == model
    }


def generate_articles(
    db: Database,
    bank_id: str,
    system: str,
    model: str,
    *,
    document_id: str | None = None,
    budget_tokens: int = 6000,
    max_words: int = 600,
    run_id: str | None = None,
    counts: Counter[str] | None = None,
) -> int:
    """Have ``model`` write an overview article per query (retrieve-and-generate).

    The context is the query's book (``exam_queries.document_id``, or ``document_id``) retrieved
    for the query text up to ``budget_tokens``; without a book the model writes from the query
    alone. The model never sees the exam questions. Returns the number of articles stored.

    An LLM stage (:func:`core.llm.stage.run_stage`): each article is stored in its own
    transaction as its reply arrives; a rerun asks only for the queries whose ``system`` article
    ``model`` has not written yet. ``counts`` (updated in place) gets ``stored`` and ``failed``
    (a provider error or an empty reply: no article).
    """

    queries = bank_queries(db, bank_id)
    done = _generated_by(db, bank_id, system, model)
    planned = []
    for q in queries:
        if q["query_id"] in done:
            continue
        doc = q["document_id"] or document_id
        context = (retrieval_article(db, doc, q["query_text"], budget_tokens) or "") if doc else ""
        prompt = render_prompt("exam_article", query=q["query_text"], max_words=max_words)
        request = LLMRequest(
            model=model,
            prompt=prompt,
            context=context,
            task="summarize",
            max_tokens=1500,
            fields={"query": q["query_text"], "context": context},
            purpose="exam-article",
            tags={"system": system},
        )
        planned.append((q["query_id"], request))
    metadata = {"model": model, "prompt_hash": prompt_hash("exam_article")}

    def store(db: Database, query_id: str, resp: LLMResponse) -> str | None:
        if resp.error or not (resp.text or "").strip():
            return "failed"
        store_article(
            db,
            bank_id,
            query_id,
            system,
            resp.text,
            kind="generated",
            metadata=metadata,
            run_id=run_id,
        )
        return "stored"

    tally = run_stage(db, planned, store, run_id=run_id, progress=True, counts=counts)
    return tally.get("stored", 0)


def articles(
    db: Database, bank_id: str, systems: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Stored articles of a bank (optionally of some systems), by system and query."""
    out = bank_articles(db, bank_id)
    wanted = set(systems) if systems is not None else None
    return [a for a in out if wanted is None or a["system"] in wanted]
