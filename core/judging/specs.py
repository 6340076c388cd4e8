"""Judge configurations: the judge kinds, the :class:`Judge` setup, its factories and storage.

A judge = kind (prompt + task + verdict set) + model + context strategy (``none``, ``rag``,
``full``); :mod:`core.judging.runner` describes the kinds. A rater name always means one setup:
:func:`register_judge` refuses to store another configuration under a stored name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.store.engine import Database

from core.errors import ConfigError
from core.store.connection import utcnow
from core.store.setups import StoredJudge, get_judge, insert_judge


class JudgeKind(StrEnum):
    """The judge kinds an experiment can name (``kind = ...`` in a ``[[judges]]`` table)."""

    AUTOAIS = "autoais"
    SIDE_BY_SIDE = "side_by_side"
    REFERENCE_ABSOLUTE = "reference_absolute"
    REFERENCE_SIDE_BY_SIDE = "reference_side_by_side"


@dataclass(frozen=True, slots=True)
class JudgeKindSpec:
    """A judge kind's fixed settings: the ``task`` of its model calls, its ``prompt`` template,
    whether it compares two answers (``pairwise``), its ``verdicts`` set (for
    :func:`core.judging.verdicts.parse_reply`), the stored ``criterion`` and whether it reads the
    reference answers instead of the document (``references``)."""

    task: str
    prompt: str
    pairwise: bool
    verdicts: str
    criterion: str
    references: bool


KINDS: dict[JudgeKind, JudgeKindSpec] = {
    JudgeKind.AUTOAIS: JudgeKindSpec(
        task="support",
        prompt="judge_autoais",
        pairwise=False,
        verdicts="absolute",
        criterion="supported",
        references=False,
    ),
    JudgeKind.SIDE_BY_SIDE: JudgeKindSpec(
        task="compare",
        prompt="judge_side_by_side",
        pairwise=True,
        verdicts="pairwise_equal",
        criterion="better",
        references=False,
    ),
    JudgeKind.REFERENCE_ABSOLUTE: JudgeKindSpec(
        task="match_reference",
        prompt="judge_reference_absolute",
        pairwise=False,
        verdicts="absolute",
        criterion="matches-reference",
        references=True,
    ),
    JudgeKind.REFERENCE_SIDE_BY_SIDE: JudgeKindSpec(
        task="compare_reference",
        prompt="judge_reference_side_by_side",
        pairwise=True,
        verdicts="pairwise_equal",
        criterion="better-vs-reference",
        references=True,
    ),
}
CONTEXTS = ("none", "rag", "full")


def judge_names() -> list[str]:
    """The judge kinds an experiment can name (``kind = ...`` in a ``[[judges]]`` table)."""
    return sorted(str(k) for k in KINDS)


@dataclass(frozen=True)
class Judge:
    """An auto-rater; its rater string is ``auto:<name>``."""

    name: str
    kind: str
    model: str
    context: str = "none"
    tokens: int = 4000
    both_orders: bool = False
    fallback: str = ""
    max_tokens: int = 512
    family: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(
                f"judge {self.name!r}: unknown judge kind {self.kind!r}; "
                f"known: {', '.join(judge_names())}"
            )
        if self.context not in CONTEXTS:
            raise ConfigError(
                f"judge {self.name!r}: unknown context {self.context!r}; "
                f"known: {', '.join(CONTEXTS)}"
            )
        if ":" not in self.model:
            raise ConfigError(
                f"judge {self.name!r}: model {self.model!r} must look like 'provider:model'"
            )
        if self.fallback not in ("", "rag"):
            raise ConfigError(f"judge {self.name!r}: fallback must be 'rag' or empty")

    @property
    def rater(self) -> str:
        """The ``judgments.rater`` string."""
        return f"auto:{self.name}"

    @property
    def spec(self) -> JudgeKindSpec:
        """The kind's fixed settings (task, prompt, verdict set, ...)."""
        return KINDS[JudgeKind(self.kind)]

    @property
    def pairwise(self) -> bool:
        """True for side-by-side kinds."""
        return self.spec.pairwise

    def params(self) -> dict[str, Any]:
        """Stored parameters."""
        data = asdict(self)
        for key in ("name", "kind", "model", "context", "family", "description"):
            data.pop(key)
        return data


def autoais(model: str, *, context: str = "rag", name: str | None = None, **kw: Any) -> Judge:
    """AutoAIS absolute rater (is the answer supported by the source?)."""
    return Judge(
        name or f"autoais/{context}/{model}", JudgeKind.AUTOAIS.value, model, context, **kw
    )


def side_by_side(model: str, *, context: str = "rag", name: str | None = None, **kw: Any) -> Judge:
    """Side-by-side rater with the book as context."""
    return Judge(
        name or f"sbs/{context}/{model}", JudgeKind.SIDE_BY_SIDE.value, model, context, **kw
    )


def reference_absolute(
    model: str, *, context: str = "none", name: str | None = None, **kw: Any
) -> Judge:
    """Ground-truth rater: does the answer match either reference answer?"""
    return Judge(
        name or f"reference/{model}", JudgeKind.REFERENCE_ABSOLUTE.value, model, context, **kw
    )


def reference_side_by_side(
    model: str, *, context: str = "none", name: str | None = None, **kw: Any
) -> Judge:
    """Ground-truth side-by-side rater with ``Equal``."""
    return Judge(
        name or f"reference-sbs/{model}",
        JudgeKind.REFERENCE_SIDE_BY_SIDE.value,
        model,
        context,
        **kw,
    )


def similarity(*, name: str = "similarity") -> Judge:
    """The semantic-similarity baseline: ``reference_absolute`` with ``offline:similarity``."""
    return reference_absolute("offline:similarity", name=name)


def make_judge(spec: dict[str, Any]) -> Judge:
    """A judge from a TOML table ``{name, kind, model, context, tokens, both_orders, ...}``."""
    spec = dict(spec)
    for key in ("name", "kind", "model"):
        if not spec.get(key):
            raise ConfigError(f"judge {spec.get('name', '?')!r}: missing {key!r}")
    unknown = set(spec) - set(Judge.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"judge {spec['name']!r}: unknown settings {sorted(unknown)}")
    if spec["kind"] not in KINDS:
        raise ConfigError(
            f"judge {spec['name']!r}: unknown judge kind {spec['kind']!r}; "
            f"known: {', '.join(judge_names())}"
        )
    spec.setdefault("context", "none" if KINDS[JudgeKind(spec["kind"])].references else "rag")
    return Judge(**spec)


def check_judge_setup(db: Database, judge: Judge) -> bool:
    """Whether ``judge`` is stored already; a stored judge of that name with another setup
    (kind, model, context or parameters) raises ConfigError (otherwise a rerun would silently
    mix the old setup's judgments into the new)."""
    old = get_judge(db, judge.name)
    if old is None:
        return False
    if (old.kind, old.model, old.context, old.params) != (
        judge.kind,
        judge.model,
        judge.context,
        judge.params(),
    ):
        raise ConfigError(
            f"judge {judge.name!r} is already stored with another "
            f"configuration (kind {old.kind}, model {old.model}, "
            f"context {old.context}); give the new one another name"
        )
    return True


def register_judge(db: Database, judge: Judge) -> None:
    """Store ``judge`` in table ``judges``; a stored judge of that name must be identical."""
    if check_judge_setup(db, judge):
        return
    insert_judge(
        db,
        StoredJudge(
            name=judge.name,
            kind=judge.kind,
            model=judge.model,
            context=judge.context,
            params=judge.params(),
            prompt=judge.spec.prompt,
            family=judge.family,
            description=judge.description,
            created_at=utcnow(),
        ),
    )


def with_context(judge: Judge, context: str) -> Judge:
    """A copy of ``judge`` reading another context (for the rater-bias study)."""
    return replace(judge, context=context, name=f"{judge.name}@{context}")
