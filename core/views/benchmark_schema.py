"""The tables of an exported benchmark and the type of every field, written once: the Parquet
files' Arrow schema, the Croissant record sets and the card's field lists all come from here.

A type is ``"string"``, ``"datetime"`` (ISO 8601 text, UTC: Arrow ``string``, Croissant
``sc:DateTime``, which ``pandas.read_json`` reads as timestamps), ``"int64"``, ``"float64"`` or
``"bool"``; a list of one type is
``[type]``; a record is a ``dict`` of field name -> type (in order). Every field may be null.
"""

from __future__ import annotations

from typing import Any

Type = Any  # "string" | "int64" | "float64" | "bool" | list[Type] | dict[str, Type]

EVIDENCE: dict[str, Type] = {
    "passage_id": "int64",
    "passage_index": "int64",
    "start": "int64",
    "end": "int64",
    "text": "string",
}
REVIEW: dict[str, Type] = {"annotator": "string", "decision": "string", "created_at": "datetime"}

#: Table -> (what a row is, field -> (type, description)).
TABLES: dict[str, tuple[str, dict[str, tuple[Type, str]]]] = {
    "questions": (
        "one question with its short reference answers and its evidence",
        {
            "id": ("string", "question id"),
            "question": ("string", "the question (a reviewer's edit when the status is edited)"),
            "answers": (["string"], "short reference answers (never whole passages)"),
            "evidence": ([EVIDENCE], "evidence passages: id, index, character offsets, quote"),
            "document_id": ("string", "the book or story the question is about"),
            "document_title": ("string", "its title"),
            "context_document_id": ("string", "the document that answers it"),
            "origin": ("string", "generated, narrativeqa, imported or xrag"),
            "entity": ("string", "the entity the question was generated about"),
            "qtype": ("string", "question type"),
            "span_fraction": ("float64", "share of the book between the first and last evidence"),
            "language": ("string", "language code"),
            "status": ("string", "review status: accepted, edited, ..."),
            "reviews": ([REVIEW], "the effective reviews: who decided what, and when"),
            "reviewed_at": ("datetime", "the latest review's time (UTC)"),
            "guideline_version": ("string", "hash of the review checklist it was reviewed with"),
            "generator_model": ("string", "the model that generated it"),
            "prompt_version": ("string", "hash of the generation prompt"),
            "original_question": ("string", "the text before a reviewer's edit (else null)"),
            "original_answers": (["string"], "the references before a reviewer's edit"),
            "split": ("string", "train or test when the export was split (else empty)"),
        },
    ),
    "documents": (
        "one source document, with its text only where its licence lets it travel",
        {
            "id": ("string", "document id"),
            "title": ("string", "title"),
            "author": ("string", "author"),
            "kind": ("string", "book, story, summary or article"),
            "source": ("string", "where it came from"),
            "language": ("string", "language code"),
            "n_chars": ("int64", "characters"),
            "n_tokens": ("int64", "tokens (cl100k_base)"),
            "sha256": ("string", "SHA-256 of the text, to check a text fetched elsewhere"),
            "licence": ("string", "the licence or terms of the text"),
            "text_included": ("bool", "whether the text is in this export"),
            "url": ("string", "where to fetch the text when it is not included"),
            "text": ("string", "the text (null when not included)"),
        },
    ),
    "passages": (
        "one evidence passage (of a document whose text is included)",
        {
            "id": ("int64", "passage id (the evidence's passage_id)"),
            "document_id": ("string", "document id"),
            "index": ("int64", "position in the document (book order)"),
            "start": ("int64", "first character in the document's text"),
            "end": ("int64", "character after the last"),
            "text": ("string", "the passage"),
            "n_tokens": ("int64", "tokens"),
        },
    ),
    "answers": (
        "one system's answer to a question",
        {
            "id": ("int64", "answer id"),
            "question_id": ("string", "question id"),
            "system": ("string", "system name"),
            "text": ("string", "the answer"),
            "status": ("string", "ok, abstained or error"),
            "split": ("string", "the question's split"),
        },
    ),
    "verdicts": (
        "one rater's effective verdict (people and auto-raters)",
        {
            "id": ("int64", "verdict id"),
            "question_id": ("string", "question id"),
            "kind": ("string", "pairwise or absolute"),
            "rater": ("string", "human:NAME or auto:JUDGE"),
            "rater_kind": ("string", "human or auto"),
            "criterion": ("string", "what was judged"),
            "system": ("string", "absolute: the system rated"),
            "answer_id": ("int64", "absolute: the answer rated"),
            "system_a": ("string", "pairwise: the system shown first"),
            "system_b": ("string", "pairwise: the system shown second"),
            "answer_a_id": ("int64", "pairwise: the answer shown first"),
            "answer_b_id": ("int64", "pairwise: the answer shown second"),
            "order_shown": ("string", "ab when system_a is the alphabetically first system"),
            "verdict": ("string", "yes/no, or A/B/Equal/None relative to the order shown"),
            "rationale": ("string", "the rater's reason"),
            "evidence": (["string"], "quotes the rater gave"),
            "created_at": ("datetime", "when (UTC)"),
            "split": ("string", "the question's split"),
        },
    ),
    "gold": (
        "one item's gold label",
        {
            "task": ("string", "review, disputes or side-by-side"),
            "item": ("string", "the item's key"),
            "question_id": ("string", "question id"),
            "systems": (["string"], "side by side: the two systems, alphabetical"),
            "label": ("string", "the gold label (side by side: first, second, Equal, None)"),
            "source": ("string", "adjudicated, or people (gold sources' or majority label)"),
            "split": ("string", "the question's split"),
        },
    ),
}


def arrow_type(t: Type) -> Any:
    """The Arrow type of a field type (pyarrow imported here: heavy)."""
    import pyarrow as pa  # type: ignore[import-untyped]  # pyarrow ships no type hints

    if isinstance(t, list):
        return pa.list_(arrow_type(t[0]))
    if isinstance(t, dict):
        return pa.struct([pa.field(k, arrow_type(v)) for k, v in t.items()])
    return {"int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}.get(t, pa.string())


def arrow_schema(table: str) -> Any:
    """The Arrow schema of ``table``."""
    import pyarrow as pa

    return pa.schema([pa.field(k, arrow_type(t)) for k, (t, _) in TABLES[table][1].items()])


#: Croissant data types of the scalar field types.
CROISSANT_TYPES = {
    "string": "sc:Text",
    "datetime": "sc:DateTime",
    "int64": "sc:Integer",
    "float64": "sc:Float",
    "bool": "sc:Boolean",
}


def type_text(t: Type) -> str:
    """A field type as the card writes it: ``list<string>``, ``struct<a: int64, ...>``."""
    if isinstance(t, list):
        return f"list<{type_text(t[0])}>"
    if isinstance(t, dict):
        return "struct<" + ", ".join(f"{k}: {type_text(v)}" for k, v in t.items()) + ">"
    return str(t)


def _hf_element(t: Type) -> Any:
    """The Hugging Face card's spelling of a type inside a ``list``: a dtype name, a list of
    named fields (a record) or ``{"list": ...}`` (a list of lists)."""
    if isinstance(t, list):
        return {"list": _hf_element(t[0])}
    if isinstance(t, dict):
        return [hf_feature(k, v) for k, v in t.items()]
    return "string" if t == "datetime" else str(t)


def hf_feature(name: str, t: Type) -> dict[str, Any]:
    """One field as the card's ``dataset_info.features`` spells it (as ``datasets`` writes it:
    ``dtype`` for a scalar, ``list`` for a list, ``struct`` for a record), so every file of a
    config is read with the declared types, not types inferred file by file (a split whose
    evidence lists are all empty would read as ``list<null>`` and clash with the other)."""
    if isinstance(t, list):
        return {"name": name, "list": _hf_element(t[0])}
    if isinstance(t, dict):
        return {"name": name, "struct": [hf_feature(k, v) for k, v in t.items()]}
    return {"name": name, "dtype": _hf_element(t)}


def hf_features(table: str) -> list[dict[str, Any]]:
    """The card's feature list of ``table``."""
    return [hf_feature(k, t) for k, (t, _) in TABLES[table][1].items()]
