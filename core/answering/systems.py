"""Answering systems: a named model + context strategy + prompt, and the resumable answer runner.

Context strategies (``system_kinds()``):

* ``none``   - title and author only (closed book);
* ``rag``    - BM25 over the book's passages, the best ones up to ``tokens`` (4,000 by default),
  put back in book order (:func:`core.corpus.retrieval.retrieve`);
* ``full``   - the whole book;
* ``oracle`` - an oracle text, by default the NarrativeQA summary ``<document_id>#summary``.

``one_sentence=True`` selects the NarrativeQA-style prompt variants (one short sentence).
A context that does not fit the model's window raises :class:`ContextTooLongError` while the
requests are *planned* (before any is sent), unless ``fallback="rag"`` is configured, in which
case that question is answered from retrieved passages instead (recorded in the answer metadata).
Planning the requests and storing the answers: :mod:`core.answering.answer_runs`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from core.corpus.retrieval import format_context, retrieve
from core.errors import ConfigError, InputError
from core.llm.windows import fits_context
from core.store.connection import utcnow
from core.store.documents import Document, get_document
from core.store.questions import Question, questions_by_id
from core.store.setups import StoredSystem, get_system, insert_system

if TYPE_CHECKING:
    from core.store.engine import Database

_KINDS = {
    "none": "no context: title and author only (the model's parametric knowledge)",
    "rag": "BM25 retrieval: best passages up to a token budget (4,000), in book order",
    "full": "the full text of the book",
    "oracle": "an oracle text, e.g. the NarrativeQA summary (<document_id>#summary)",
}


def system_kinds() -> dict[str, str]:
    """Context strategies an answering system can use: ``{kind: description}``."""
    return dict(_KINDS)


@dataclass(frozen=True)
class System:
    """An answering system. ``name`` is what tables and rankings show."""

    name: str
    model: str
    context: str
    tokens: int = 4000
    one_sentence: bool = False
    fallback: str = ""
    fallback_tokens: int = 4000
    oracle_suffix: str = "#summary"
    max_tokens: int = 512
    if_missing: str = "error"
    family: str = ""
    description: str = ""
    request_params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.context not in _KINDS:
            raise ConfigError(
                f"system {self.name!r}: unknown context strategy {self.context!r}; "
                f"known: {', '.join(_KINDS)}"
            )
        if ":" not in self.model:
            raise ConfigError(
                f"system {self.name!r}: model {self.model!r} must look like 'provider:model'"
            )
        if self.fallback not in ("", "rag"):
            raise ConfigError(f"system {self.name!r}: fallback must be 'rag' or empty")
        if self.if_missing not in ("error", "skip"):
            raise ConfigError(f"system {self.name!r}: if_missing must be 'error' or 'skip'")
        if self.tokens < 1 or self.fallback_tokens < 1 or self.max_tokens < 1:
            raise ConfigError(f"system {self.name!r}: token budgets must be positive")

    @property
    def prompt(self) -> str:
        """Name of the prompt template in ``prompts/``."""
        stem = "answer_one_sentence" if self.one_sentence else "answer"
        return f"{stem}_{'no_context' if self.context == 'none' else 'with_context'}"

    def params(self) -> dict[str, Any]:
        """The stored parameters (everything but name, model, context, family, description)."""
        data = asdict(self)
        for key in ("name", "model", "context", "family", "description"):
            data.pop(key)
        return data


def _default_name(model: str, suffix: str, one_sentence: bool) -> str:
    return f"{model.split(':', 1)[1]}/{suffix}{'-1s' if one_sentence else ''}"


def no_context(
    model: str, *, name: str | None = None, one_sentence: bool = False, **kw: Any
) -> System:
    """Closed-book system: the model sees title, author and question only."""
    return System(
        name or _default_name(model, "none", one_sentence),
        model,
        "none",
        one_sentence=one_sentence,
        **kw,
    )


def bm25_rag(
    model: str,
    tokens: int = 4000,
    *,
    name: str | None = None,
    one_sentence: bool = False,
    **kw: Any,
) -> System:
    """Retrieval system: BM25 passages up to ``tokens`` tokens, in book order."""
    return System(
        name or _default_name(model, f"rag{tokens}", one_sentence),
        model,
        "rag",
        tokens=tokens,
        one_sentence=one_sentence,
        **kw,
    )


def full_context(
    model: str,
    *,
    name: str | None = None,
    fallback: str = "",
    one_sentence: bool = False,
    **kw: Any,
) -> System:
    """Full-text system; ``fallback='rag'`` answers from retrieval when the book is too long."""
    return System(
        name or _default_name(model, "full", one_sentence),
        model,
        "full",
        fallback=fallback,
        one_sentence=one_sentence,
        **kw,
    )


def oracle(
    model: str,
    *,
    name: str | None = None,
    suffix: str = "#summary",
    one_sentence: bool = False,
    **kw: Any,
) -> System:
    """Oracle system: answers from ``<document_id><suffix>`` (the NarrativeQA summary)."""
    return System(
        name or _default_name(model, "oracle", one_sentence),
        model,
        "oracle",
        oracle_suffix=suffix,
        one_sentence=one_sentence,
        **kw,
    )


_FACTORIES = {"none": no_context, "rag": bm25_rag, "full": full_context, "oracle": oracle}
_ALIASES = {
    "no_context": "none",
    "retrieval": "rag",
    "bm25_rag": "rag",
    "full_context": "full",
    "summary": "oracle",
}


def make_system(spec: dict[str, Any]) -> System:
    """A system from a TOML table ``{name, kind|context, model, tokens, one_sentence, ...}``."""
    spec = dict(spec)
    kind = spec.pop("kind", None) or spec.pop("context", None)
    kind = _ALIASES.get(kind, kind)
    if kind not in _KINDS:
        raise ConfigError(
            f"system {spec.get('name', '?')!r}: unknown system kind {kind!r}; "
            f"known: {', '.join(_KINDS)}"
        )
    model = spec.pop("model", None)
    if not model:
        raise ConfigError(f"system {spec.get('name', '?')!r}: no model given")
    known = set(System.__dataclass_fields__) - {"model", "context"}
    unknown = set(spec) - known - {"suffix"}
    if unknown:
        raise ConfigError(f"system {spec.get('name', '?')!r}: unknown settings {sorted(unknown)}")
    if "suffix" in spec:
        spec["oracle_suffix"] = spec.pop("suffix")
    name = spec.pop("name", None)
    base = _FACTORIES[kind](model, name=name)
    return replace(base, **spec)


def check_system_setup(db: Database, system: System) -> bool:
    """Whether ``system`` is stored already; a stored system of that name with another setup
    (model, context, parameters or prompt) raises ConfigError (otherwise a rerun would silently
    mix the old setup's answers into the new)."""
    old = get_system(db, system.name)
    if old is None:
        return False
    if (old.model, old.context, old.params, old.prompt) != (
        system.model,
        system.context,
        system.params(),
        system.prompt,
    ):
        raise ConfigError(
            f"system {system.name!r} is already stored with another "
            f"configuration (model {old.model}, context "
            f"{old.context}); give the new one another name"
        )
    return True


def register_system(db: Database, system: System) -> None:
    """Store ``system`` in table ``systems``; a stored system of that name must be identical."""
    if check_system_setup(db, system):
        return
    insert_system(
        db,
        StoredSystem(
            name=system.name,
            model=system.model,
            context=system.context,
            params=system.params(),
            prompt=system.prompt,
            family=system.family,
            description=system.description or _KINDS[system.context],
            created_at=utcnow(),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Contexts: the book, the oracle text, retrieved passages; the window check
# ---------------------------------------------------------------------------------------------


class OracleMissingError(InputError):
    """A question has no oracle text (e.g. no NarrativeQA summary)."""


def load_questions(db: Database, question_ids: Iterable[str]) -> list[Question]:
    """The questions in the given order; an unknown id raises InputError."""
    ids = list(question_ids)
    found = questions_by_id(db, ids)
    missing = [q for q in ids if q not in found]
    if missing:
        raise InputError(
            f"unknown question id {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
        )
    return [found[q] for q in ids]


def book_of(db: Database, question: Question) -> Document:
    """The text a question is about: its document (book or story) when that has text, else its
    context document (a NarrativeQA question whose story is missing is read from its summary).

    Raises InputError when neither is in the store with text (a missing book).
    """

    tried = []
    for doc_id in (question.document_id, question.context_document_id):
        if doc_id and doc_id not in tried:
            tried.append(doc_id)
            doc = get_document(db, doc_id)
            if doc is not None and doc.text:
                return doc
    raise InputError(
        f"question {question.id!r}: its book {tried[0] if tried else None!r} "
        "is not in the store (import it first)"
    )


def oracle_document(db: Database, question: Question, suffix: str) -> Document:
    """The oracle text of a question: ``<document_id><suffix>``, else a distinct context doc."""

    for doc_id in (f"{question.document_id}{suffix}", question.context_document_id):
        if doc_id and doc_id != question.document_id:
            doc = get_document(db, doc_id)
            if doc is not None:
                return doc
    raise OracleMissingError(
        f"question {question.id!r}: no oracle text "
        f"{question.document_id}{suffix!s} in the store "
        '(set if_missing = "skip" to leave such questions out)'
    )


def retrieved_context(db: Database, doc_id: str, query: str, tokens: int) -> str:
    """BM25 passages of ``doc_id`` for ``query`` up to ``tokens``, in book order, as one block."""

    return format_context(retrieve(db, doc_id, query, budget_tokens=tokens))


def fits(request: Any) -> bool:
    """Whether ``request`` fits its model's context window (input + max_tokens)."""

    return fits_context(request.model, request)
