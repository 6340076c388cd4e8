"""The declarative schema of an experiment file (pydantic v2), checked before anything else.

Every table forbids unknown keys (the error suggests the closest known key), every value has a
strict type (no "5" for 5, no true for 1), numbers must be finite, and ranges are stated here:
``0 < level < 1``, ``0 < budget <= 1``, ``0 < max_failure_share <= 1``, counts (``c``,
``batch``, ``bootstrap``, token budgets) ``>= 1``, ``prior_alpha >= 0``. Names of systems and
judges follow the one name rule of :mod:`core.corpus.names` (NFC-normalised). Cross-references (a tournament judge
that must be pairwise, grounding judges of the right kind) are checked in
:mod:`core.pipeline.config` after this schema.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from core.corpus.names import name_problem
from core.errors import ConfigError


def _safe_name(value: str) -> str:
    problem = name_problem(value)
    if problem:
        raise ValueError(problem)
    return unicodedata.normalize("NFC", value)


def _text(value: str) -> str:
    bad = next((ch for ch in value if ord(ch) < 32 and ch not in "\t\n\r" or ord(ch) == 127), None)
    if bad is not None:
        raise ValueError(f"control character U+{ord(bad):04X} not allowed")
    return value


SafeName = Annotated[str, AfterValidator(_safe_name)]
Text = Annotated[str, AfterValidator(_text)]
Count = Annotated[int, Field(ge=1)]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class DataSpec(_Table):
    """``[data]``: which stored questions the experiment samples. Review statuses: accepted and
    edited by default; ``include_unreviewed = true`` adds pending ones; ``status`` lists them
    explicitly (and then ``include_unreviewed`` is not allowed)."""

    origin: Text | None = None
    split: Text | None = None
    documents: list[SafeName] | None = None
    question_ids: list[SafeName] | None = None
    status: list[Literal["accepted", "edited", "pending", "rejected", "discarded"]] | None = None
    include_unreviewed: bool | None = None
    context_kind: Text | None = None
    language: Text | None = None


class SystemSpec(_Table):
    """One ``[[systems]]`` table (kinds and models are checked by the answering layer)."""

    name: SafeName | None = None
    kind: Text | None = None
    context: Text | None = None
    model: Text
    tokens: Count | None = None
    one_sentence: bool | None = None
    fallback: Literal["", "rag"] | None = None
    fallback_tokens: Count | None = None
    suffix: Text | None = None
    oracle_suffix: Text | None = None
    max_tokens: Count | None = None
    if_missing: Literal["error", "skip"] | None = None
    family: Text | None = None
    description: Text | None = None
    request_params: dict[str, Any] | None = None


class JudgeSpec(_Table):
    """One ``[[judges]]`` table (kinds are checked by the judging layer)."""

    name: SafeName
    kind: Text
    model: Text
    context: Text | None = None
    tokens: Count | None = None
    both_orders: bool | None = None
    fallback: Literal["", "rag"] | None = None
    max_tokens: Count | None = None
    family: Text | None = None
    description: Text | None = None


class TournamentSpec(_Table):
    """``[tournament]``: pairwise judges, design and the share of the full design to spend."""

    judges: list[SafeName] | None = None
    design: Literal["full", "adaptive"] = "full"
    budget: Annotated[float, Field(gt=0, le=1)] = 1.0
    batch: Count = 25


class GroundingSpec(_Table):
    """``[grounding]``: the reference and context judges (both or neither)."""

    reference: SafeName
    context: SafeName


class RaterBiasSpec(_Table):
    """``[rater_bias]``: the reference judges of the rater-bias study."""

    reference: SafeName | None = None
    pairwise_reference: SafeName | None = None


class ReportSpec(_Table):
    """``[report]``: leaderboard settings."""

    bootstrap: Count | None = None
    ties: Literal["half", "drop"] | None = None
    level: Annotated[float, Field(gt=0, lt=1)] | None = None
    prior_alpha: Annotated[float, Field(ge=0)] | None = None


class ExperimentSpec(_Table):
    """The whole experiment file."""

    name: SafeName | None = None
    description: Text | None = None
    seed: int = 0
    c: Count = 200
    max_failure_share: Annotated[float, Field(gt=0, le=1)] = 0.2
    data: DataSpec = DataSpec()
    systems: Annotated[list[SystemSpec], Field(min_length=1)]
    judges: list[JudgeSpec] = []
    tournament: TournamentSpec = TournamentSpec()
    grounding: GroundingSpec | None = None
    report: ReportSpec = ReportSpec()
    rater_bias: RaterBiasSpec = RaterBiasSpec()


_TABLES: dict[str, type[BaseModel]] = {
    "data": DataSpec,
    "systems": SystemSpec,
    "judges": JudgeSpec,
    "tournament": TournamentSpec,
    "grounding": GroundingSpec,
    "report": ReportSpec,
    "rater_bias": RaterBiasSpec,
}

_TYPE_WORDS = {
    "int_type": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_type": "expected a number",
    "string_type": "expected text (in quotes)",
    "bool_type": "expected true or false",
    "list_type": "expected a list",
    "dict_type": "expected a table",
    "model_type": "expected a table",
    "model_attributes_type": "expected a table",
    "finite_number": "expected a finite number (not nan or inf)",
}


def _key(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _model_for(loc: tuple[Any, ...]) -> type[BaseModel]:
    model: type[BaseModel] = ExperimentSpec
    for part in loc:
        if isinstance(part, str) and part in _TABLES and model is ExperimentSpec:
            model = _TABLES[part]
    return model


def describe_error(exc: ValidationError, raw: dict[str, Any]) -> str:
    """The first error of ``exc`` as one line naming the key."""
    errors = exc.errors(include_url=False)
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(err["loc"])
    key, kind = _key(loc), err["type"]
    if kind == "extra_forbidden":
        known = list(_model_for(loc[:-1]).model_fields)
        close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
        return f"unknown key {key!r}{hint}"
    if kind == "missing":
        return f"missing key {key!r}"
    got = err.get("input")
    if kind == "too_short" and loc == ("systems",):
        return "key 'systems': at least one [[systems]] table is needed"
    if kind in ("list_type",) and isinstance(got, dict) and loc[-1] in ("systems", "judges"):
        return f"key {key!r}: expected a list of tables ([[{loc[-1]}]]), found a single table"
    message = _TYPE_WORDS.get(kind) or err["msg"][0].lower() + err["msg"][1:]
    if kind.startswith(("value_error", "assertion_error")):
        message = err["msg"].removeprefix("Value error, ")
    return f"key {key!r}: {message}, found {got!r}"


def validate_spec(raw: Any, path: str = "") -> ExperimentSpec:
    """``raw`` checked against :class:`ExperimentSpec`; a one-line ``ConfigError`` otherwise."""
    where = f"{path}: " if path else "experiment: "
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}expected a TOML table at the top level")
    try:
        return ExperimentSpec.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(where + describe_error(exc, raw)) from None
