"""What the Review page shows: question filters, one question with its passages, reviewer
agreement, and BM25 search of the question's documents."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from core.annotation import guideline as guideline
from core.corpus.retrieval import search
from core.store.documents import (
    count_passages,
    document_headers,
    first_passages,
    passages_at,
)
from core.store.documents import searchable_documents as documents_with_passages
from core.store.entities import entities_by_id, get_entity, mention_passages
from core.store.questions import (
    distinct_values,
    find_question_ids,
    get_question,
    get_question_later,
    question_documents,
    question_entities,
    question_texts,
)
from core.store.reviews import effective_reviews
from core.views.judgments import QuestionText, text_of
from core.views.review_records import (
    Article,
    DocumentRef,
    EntityRef,
    ParentQuestion,
    PassageShown,
    QuestionDetail,
    QuestionFilters,
    QuestionSpan,
    ReviewAgreement,
    SearchHit,
    question_record,
)
from core.views.row_records import EntityRow, ReviewRow, entity_row, review_row
from core.views.text import InertMarkdown, highlight_markdown

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.store.questions import Question


def question_filters(db: Database) -> QuestionFilters:
    """Options of the question filters: documents, entities, types, statuses, origins."""
    return {
        "documents": [(r["id"], r["title"] or r["id"]) for r in question_documents(db)],
        "entities": [(r["id"], r["name"]) for r in question_entities(db)],
        "qtypes": distinct_values(db, "qtype"),
        "statuses": distinct_values(db, "status"),
        "origins": distinct_values(db, "origin"),
    }


def question_ids(
    db: Database,
    *,
    document_id: str | None = None,
    entity_id: int | None = None,
    qtype: str | None = None,
    status: str | None = None,
    origin: str | None = None,
    search: str = "",
) -> list[str]:
    """Ids of the questions matching every given filter (``search``: substring of the text)."""
    filters = {
        "document_id": document_id,
        "entity_id": entity_id,
        "qtype": qtype,
        "status": status,
        "origin": origin,
    }
    return find_question_ids(db, filters, search)


def question_labels(db: Database, ids: tuple[str, ...]) -> dict[str, str]:
    """Question id -> ``"question text (id)"`` for item pickers (unknown ids left out)."""
    return {qid: f"{text} ({qid})" for qid, text in question_texts(db, ids).items()}


def is_boilerplate(text: str) -> bool:
    """Whether a passage is Project Gutenberg front or back matter (licence, header)."""
    head = (text or "")[:2000].lower()
    return "project gutenberg" in head and (
        "ebook" in head or "license" in head or "www.gutenberg" in head
    )


def supporting_documents(db: Database, question: Mapping[str, Any]) -> list[DocumentRef]:
    """The documents a question draws on: an XRAG question's two articles (``metadata``), the
    provenance ``documents``, or its context document."""
    prov = question.get("provenance") or {}
    meta = question.get("metadata") or {}
    ids = (
        meta.get("articles")
        or prov.get("documents")
        or prov.get("document_ids")
        or [question.get("context_document_id") or question.get("document_id")]
    )
    ids = [d if isinstance(d, str) else d.get("id") for d in ids if d]
    found: dict[str, DocumentRef] = {
        h.id: {"id": h.id, "title": h.title, "kind": h.kind, "language": h.language}
        for h in document_headers(db, ids).values()
    }
    return [found.get(d, {"id": d, "title": d, "kind": "", "language": ""}) for d in ids]


def _int_list(values: Any) -> list[int]:
    return [int(i) for i in (values or []) if str(i).lstrip("-").isdigit()]


def _spread(values: list[int], n: int) -> list[int]:
    """``n`` of the sorted ``values`` evenly spaced from first to last (all when fewer)."""
    if len(values) <= n:
        return list(values)
    if n <= 1:
        return values[:n]
    return [values[round(i * (len(values) - 1) / (n - 1))] for i in range(n)]


def question_detail(db: Database, question_id: str, max_passages: int = 6) -> QuestionDetail | None:
    """A question with its entity, highlighted mention passages, provenance and reviews.

    Passages: first the ones the question was built from (``metadata.evidence[].passage_idx``,
    provenance ``passages``, ``metadata.context_passages``), each marked ``evidence``, in book
    order, then mention passages (never Project Gutenberg front / back matter,
    :func:`is_boilerplate`) of its entities spread evenly over the book (first to last mention) up to
    ``max_passages`` in all, so a reviewer can judge whether it needs distant passages. Every
    entity of the question (``metadata.entity_ids``, e.g. a pair) is highlighted.
    """
    record = get_question(db, question_id)
    if record is None:
        return None
    q = question_record(record)  # the page's view of the question
    entity: EntityRow | None = None
    passages: list[PassageShown] = []
    if record.entity_id is not None:
        ent = get_entity(db, record.entity_id)
        entity = entity_row(ent) if ent else None
    prov = q.get("provenance") or {}
    meta = q.get("metadata") or {}
    stored_evidence = meta.get("evidence")
    evidence: list[Any] = stored_evidence if isinstance(stored_evidence, list) else []
    built_from = list(
        dict.fromkeys(
            _int_list(e.get("passage_idx") for e in evidence if isinstance(e, dict))
            + _int_list(prov.get("passages") or prov.get("passage_idx"))
            + _int_list(meta.get("context_passages"))
        )
    )[:max_passages]
    doc = q.get("document_id")
    entity_ids = list(
        dict.fromkeys(([entity["id"]] if entity else []) + _int_list(meta.get("entity_ids")))
    )
    entities: list[EntityRef] = [
        {"id": e.id, "name": e.name, "aliases": e.aliases, "document_id": e.document_id}
        for e in entities_by_id(db, entity_ids)
    ]
    if entity:
        doc = entity["document_id"]
    mention_idxs: list[int] = []
    if entities:
        mention_idxs = mention_passages(db, [e["id"] for e in entities])
    boiler: set[int] = set()
    candidates = list(dict.fromkeys(built_from + mention_idxs))
    if candidates and doc:
        boiler = {p.idx for p in passages_at(db, doc, candidates) if is_boilerplate(p.text)}
    built_from = [i for i in built_from if i not in boiler]
    room = max(0, max_passages - len(built_from))
    extra = _spread([i for i in mention_idxs if i not in built_from and i not in boiler], room)
    idxs = sorted(set(built_from) | set(extra))
    terms = [t for e in entities for t in [e["name"], *(e.get("aliases") or [])]]
    if idxs and doc:
        for p in passages_at(db, doc, idxs):
            passages.append(
                {
                    "idx": p.idx,
                    "text": p.text,
                    "role": "evidence" if p.idx in built_from else "mention",
                    "markdown": highlight_markdown(p.text, terms),
                }
            )
        # the passages the question was built from first, then the mentions (each in book order)
        passages.sort(key=lambda p: (p["role"] != "evidence", p["idx"]))
    n_passages = count_passages(db, doc) if doc else 0
    answers = q.get("answers") or []
    reviews = [review_row(r) for r in effective_reviews(db, question_id)]
    documents = supporting_documents(db, q)
    articles: list[Article] = []  # a cross-document question is judged against each article
    if guideline.is_cross_document(record) or record.parent_id:
        for d in documents:
            text = "\n\n".join(p.text for p in first_passages(db, d["id"], 40))
            articles.append({**d, "text": text})
    found = get_question(db, record.parent_id) if record.parent_id else None
    parent: ParentQuestion | None = (
        {"id": found.id, "question": found.question, "answers": found.answers} if found else None
    )
    return {
        "question": q,
        "answer": answers[0] if answers else "",
        "answers": answers,
        "parent": parent,
        "entities": entities,
        "n_mention_passages": len(mention_idxs),
        "n_passages": int(n_passages),
        "entity": entity,
        "passages": passages,
        "provenance": prov,
        "articles": articles,
        "documents": documents,
        "reviews": reviews,
        "checklist_fields": guideline.checklist_fields(record),
        "review_agreement": review_agreement(reviews),
        "span": question_span(meta),
    }


def question_span(meta: dict[str, Any]) -> QuestionSpan | None:
    """``{"fraction", "minimum", "flag", "text"}`` of a generated question's stored span fraction
    (share of the book between its first and last evidence), or None when it has none."""
    value = meta.get("span_fraction")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    minimum = meta.get("min_span_fraction")
    minimum = float(minimum) if isinstance(minimum, (int, float)) else None
    flag = bool(meta.get("span_flag")) or (minimum is not None and value < minimum)
    text = f"evidence spans {value:.0%} of the book" + (
        f" (below the minimum {minimum:.0%}: may not need the whole book)"
        if flag and minimum is not None
        else ""
    )
    n, ends = meta.get("evidence_n"), meta.get("evidence_at_ends")
    if isinstance(n, int) and isinstance(ends, int) and n:
        text += f"; {ends} of its {n} evidence offsets in the first or last 10 %"
    return {"fraction": float(value), "minimum": minimum, "flag": flag, "text": text}


def review_agreement(reviews: list[ReviewRow]) -> ReviewAgreement | None:
    """Per checklist item and for the decision: share of reviewer pairs that agree."""
    if len(reviews) < 2:
        return None
    fields: dict[str, list[object]] = {"decision": [r["decision"] for r in reviews]}
    spec = [
        f
        for fs in (
            guideline.CHECKLIST_FIELDS,
            guideline.SINGLE_DOCUMENT_FIELDS,
            guideline.TRANSLATION_FIELDS,
        )
        for f in fs
        if f["type"] != "text"
    ]
    for key in dict.fromkeys(f["name"] for f in spec):
        values = [r["checklist"].get(key) for r in reviews]
        if any(v is not None for v in values):
            fields[key] = values
    out: dict[str, float | None] = {}
    for key, values in fields.items():
        values = [v for v in values if v is not None]
        pairs = [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
        out[key] = round(sum(a == b for a, b in pairs) / len(pairs), 3) if pairs else None
    return {"n_reviewers": len(reviews), "pairwise_agreement": out}


def searchable_documents(db: Database, question_id: str) -> list[tuple[str, str]]:
    """(doc id, label) of the documents a human can search for this question: the story / book,
    its summary and any other context document."""
    return documents_of(db, get_question(db, question_id))


def documents_of(db: Database, q: Question | None) -> list[tuple[str, str]]:
    """:func:`searchable_documents` of a question already read (none for None)."""
    if q is None:
        return []
    ids = [d for d in (q.document_id, q.context_document_id) if d]
    out = documents_with_passages(db, ids)
    return [(r.id, f"{r.kind}: {r.title or r.id}") for r in out]


def question_and_documents_later(
    db: Database, question_id: str
) -> Callable[[], tuple[QuestionText, list[tuple[str, str]]]]:
    """The question's text (:func:`~core.views.judgments.question_text`) and its searchable
    documents, the question read once (a Side by side label: one round trip less, issue 33);
    its read is sent with the connection's next statement on PostgreSQL (a Side by side run
    asks it before the item's own row and answers: their round trip takes it); call the
    result for the text and documents."""
    found = get_question_later(db, question_id)

    def read() -> tuple[QuestionText, list[tuple[str, str]]]:
        q = found()
        return text_of(q), documents_of(db, q)

    return read


def search_context(db: Database, doc_id: str, query: str, k: int = 5) -> list[SearchHit]:
    """BM25 hits ``{idx, score, text, markdown}`` with the query terms highlighted."""

    if not query.strip():
        return []
    terms = [w for w in re.findall(r"\w+", query) if len(w) > 2]
    return [
        {
            "idx": p.idx,
            "score": round(s, 2),
            "text": p.text,
            "markdown": highlight_markdown(p.text, terms),
        }
        for p, s in search(db, doc_id, query, k)
    ]


#: Keys a checklist's choices take, in order (after the digits, letters no other key of the
#: Review page uses: A, X, E, S, U, G are taken; C and R are Streamlit's own).
CHECKLIST_KEYS = "1234567890QWTYIOPHJKLZVBNMDF"


def checklist_keys(fields: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """``(field name, choice, key)`` for every choice of the checklist's radio items (a required
    Yes / No item: ``Yes``, ``No``; a choice item: its choices), in order: the first item's
    Yes is ``1`` and its No ``2``, the second's ``3`` and ``4``, and so on."""
    choices = [
        (f["name"], option)
        for f in fields
        if f["type"] == "choice" or (f["type"] == "bool" and f["required"])
        for option in (f["choices"] if f["type"] == "choice" else ("Yes", "No"))
    ]
    return [(name, option, key) for (name, option), key in zip(choices, CHECKLIST_KEYS)]


def review_rules(translation: bool, two_articles: bool) -> InertMarkdown:
    """What each decision needs, shown under the Review page's buttons (constant text)."""
    needs = (
        "**Accept** is refused when the translation does not keep the meaning; **Reject** "
        "needs nothing more (a note is optional); **Save edit** needs a corrected translation "
        "(the original is kept)."
        if translation
        else "**Accept** is refused when the checklist says not intelligible, not answerable or "
        "answer not correct; **Reject** needs nothing more (a note is optional); **Save edit** "
        "needs an edited question or a corrected answer (the original is kept)."
    )
    articles = (
        " If either article alone is **Sufficient**, the question is discarded whatever the "
        "decision: it does not need both articles."
        if two_articles
        else ""
    )
    return InertMarkdown(
        f"Answer the checklist, then decide. {needs}{articles} The question's status is the "
        "majority of the current reviews' decisions; submitting again replaces your own "
        "earlier review (kept in the history)."
    )
