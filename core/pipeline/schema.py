"""The experiment file as one frozen pydantic v2 model, :class:`Experiment`: read from the TOML
file, validated once, and handed to the runner unchanged.

Every table forbids unknown keys (the error suggests the closest known key), every value has a
strict type (no "5" for 5, no true for 1), numbers must be finite, and ranges are stated here:
``0 < level < 1``, ``0 < budget <= 1``, ``0 < max_failure_share <= 1``, counts (``c``,
``batch``, ``bootstrap``, token budgets) ``>= 1`` (``bootstrap`` at most 100,000),
``prior_alpha >= 0``; ``request_params`` as :mod:`core.llm.request_checks` says. Names of systems and
judges follow the one name rule of :mod:`core.corpus.names` (NFC-normalised). After the types,
the model checks the cross-references between tables (duplicate names, a tournament judge that
must be pairwise, grounding judges of the right kind, rater-bias families) and builds the
answering :class:`~core.answering.systems.System` and :class:`~core.judging.specs.Judge` values
from its tables.
"""

from __future__ import annotations

import difflib
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from core.answering.systems import System, make_system
from core.corpus.names import name_problem
from core.errors import ConfigError
from core.judging.specs import Judge, make_judge
from core.llm.request_checks import check_params
from core.stats.ranking_settings import RankingSettings, Ties


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


def _params(value: dict[str, Any]) -> dict[str, Any]:
    try:
        check_params(value, "request_params")
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return value


SafeName = Annotated[str, AfterValidator(_safe_name)]
Params = Annotated[dict[str, Any], AfterValidator(_params)]
Text = Annotated[str, AfterValidator(_text)]
Count = Annotated[int, Field(ge=1)]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


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
    request_params: Params | None = None


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
    """``[report]``: the report's leaderboard settings (:meth:`ranking`), the level of every
    interval, and the prior precision of the MAP fit used when the maximum-likelihood one does
    not exist."""

    bootstrap: Annotated[int, Field(ge=1, le=100_000)] = 500
    ties: Ties = "half"
    level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    prior_alpha: Annotated[float, Field(ge=0)] = 0.01

    def ranking(self, seed: int) -> RankingSettings:
        """The :class:`RankingSettings` of the report's leaderboards (maximum likelihood)."""
        return RankingSettings(ties=self.ties, n_boot=self.bootstrap, seed=seed, level=self.level)


def _tables(items: list[SystemSpec] | list[JudgeSpec]) -> list[dict[str, Any]]:
    return [item.model_dump(exclude_none=True, exclude_unset=True) for item in items]


class Experiment(_Table):
    """The whole experiment file, validated: its tables as read, plus the systems and judges
    they describe (:attr:`systems`, :attr:`judges`, :attr:`pairwise_judges`). ``name`` defaults
    to the file's stem; :meth:`config` is what is stored (and read back by the report)."""

    name: SafeName
    description: Text | None = None
    seed: int = 0
    c: Count = 200
    max_failure_share: Annotated[float, Field(gt=0, le=1)] = 0.2
    data: DataSpec = DataSpec()
    system_tables: Annotated[list[SystemSpec], Field(min_length=1, alias="systems")]
    judge_tables: Annotated[list[JudgeSpec], Field(alias="judges")] = []
    tournament: TournamentSpec = TournamentSpec()
    grounding: GroundingSpec | None = None
    report: ReportSpec = ReportSpec()
    rater_bias: RaterBiasSpec = RaterBiasSpec()
    _path: str = PrivateAttr(default="")
    _systems: list[System] = PrivateAttr(default_factory=list)
    _judges: list[Judge] = PrivateAttr(default_factory=list)
    _pairwise: list[Judge] = PrivateAttr(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _name_from_path(cls, data: Any, info: ValidationInfo) -> Any:
        path = str((info.context or {}).get("path") or "")
        if isinstance(data, dict) and "name" not in data and path:
            return {"name": Path(path).stem, **data}
        return data

    @model_validator(mode="after")
    def _cross_references(self, info: ValidationInfo) -> Self:
        self._path = str((info.context or {}).get("path") or "")
        name = self.name
        self._systems = [make_system(s) for s in _tables(self.system_tables)]
        self._judges = [make_judge(j) for j in _tables(self.judge_tables)]
        for label, items in (
            ("system", [s.name for s in self._systems]),
            ("judge", [j.name for j in self._judges]),
        ):
            dup = {x for x in items if items.count(x) > 1}
            if dup:
                raise ConfigError(f"experiment {name!r}: duplicate {label} name(s) {sorted(dup)}")
        if self.data.status is not None and self.data.include_unreviewed is not None:
            raise ConfigError(
                f"experiment {name!r}: [data] has both 'status' and 'include_unreviewed'; "
                'give one (a status list with "pending" takes unreviewed questions)'
            )
        by_name = {j.name: j for j in self._judges}
        listed = self.tournament.judges
        pairwise = listed if listed is not None else [j.name for j in self._judges if j.pairwise]
        for jn in pairwise:
            if jn not in by_name or not by_name[jn].pairwise:
                raise ConfigError(
                    f"experiment {name!r}: [tournament] judge {jn!r} is not a "
                    "pairwise judge of this experiment"
                )
        if pairwise and len(self._systems) < 2:
            raise ConfigError(f"experiment {name!r}: a tournament needs at least two systems")
        self._pairwise = [by_name[j] for j in pairwise]
        self._check_grounding(by_name)
        self._check_rater_bias(by_name)
        return self

    def _check_grounding(self, by_name: dict[str, Judge]) -> None:
        for role, kinds in (("reference", ("reference_absolute",)), ("context", ("autoais",))):
            jn = getattr(self.grounding, role) if self.grounding else None
            if jn is not None and (jn not in by_name or by_name[jn].kind not in kinds):
                raise ConfigError(
                    f"experiment {self.name!r}: [grounding] {role} = {jn!r} must name a "
                    f"{' or '.join(kinds)} judge of this experiment"
                )

    def _check_rater_bias(self, by_name: dict[str, Judge]) -> None:
        bias = self.rater_bias.model_dump(exclude_none=True)
        for key, judge_name in bias.items():
            if judge_name not in by_name:
                raise ConfigError(
                    f"experiment {self.name!r}: [rater_bias] {key} = {judge_name!r} is not a "
                    "judge of this experiment"
                )
        if bias:
            for what, items in (("system", self._systems), ("judge", self._judges)):
                missing = [x.name for x in items if not x.family]
                if missing:
                    raise ConfigError(
                        f"experiment {self.name!r}: [rater_bias] needs a family for "
                        f"every {what}; missing for {missing}"
                    )

    @property
    def path(self) -> str:
        """The file it was read from ("" for a config given as a table)."""
        return self._path

    @property
    def systems(self) -> list[System]:
        """The answering systems of ``[[systems]]``."""
        return list(self._systems)

    @property
    def judges(self) -> list[Judge]:
        """The judges of ``[[judges]]``."""
        return list(self._judges)

    @property
    def pairwise_judges(self) -> list[Judge]:
        """The tournament's judges: ``[tournament] judges``, else every pairwise judge."""
        return list(self._pairwise)

    @property
    def absolute_judges(self) -> list[Judge]:
        """Judges rating single answers."""
        return [j for j in self._judges if not j.pairwise]

    def config(self) -> dict[str, Any]:
        """The keys the file set (JSON values): stored with the run, validated again by the
        report into the same :class:`Experiment`."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


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
    model: type[BaseModel] = Experiment
    for part in loc:
        if isinstance(part, str) and part in _TABLES and model is Experiment:
            model = _TABLES[part]
    return model


def describe_error(exc: ValidationError, raw: dict[str, Any]) -> str:
    """The first error of ``exc`` as one line naming the key."""
    errors = exc.errors(include_url=False)
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(err["loc"])
    key, kind = _key(loc), err["type"]
    if kind == "extra_forbidden":
        known = [f.alias or n for n, f in _model_for(loc[:-1]).model_fields.items()]
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
