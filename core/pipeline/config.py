"""Experiment files (TOML): reading, validation into an :class:`Experiment`, model checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.answering.systems import System, make_system
from core.corpus.tabular import read_toml_file
from core.errors import ConfigError, InputError
from core.judging.specs import Judge, make_judge
from core.llm.catalog import provider_settings, split_model_id
from core.llm.keys import get_key
from core.llm.registry import model_available, provider_names
from core.pipeline.schema import validate_spec


@dataclass
class Experiment:
    """A validated experiment file."""

    name: str
    path: str
    raw: dict[str, Any]
    seed: int
    c: int
    data: dict[str, Any]
    systems: list[System]
    judges: list[Judge]
    pairwise_judges: list[Judge]
    design: str = "full"
    budget: float = 1.0
    batch: int = 25
    grounding: dict[str, str] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    rater_bias: dict[str, Any] = field(default_factory=dict)
    max_failure_share: float = 0.2  # `run` exits 3 when a judge's unparsed/failed share passes it

    @property
    def absolute_judges(self) -> list[Judge]:
        """Judges rating single answers."""
        return [j for j in self.judges if not j.pairwise]


#: Review statuses an experiment samples by default, and the unreviewed one it may add.
REVIEWED_STATUSES = ("accepted", "edited")
UNREVIEWED_STATUS = "pending"


def question_statuses(data: dict[str, Any]) -> list[str]:
    """The review statuses ``[data]`` takes: its ``status`` list, else accepted and edited,
    plus pending with ``include_unreviewed = true`` (rejected and discarded never by default)."""
    if data.get("status"):
        return list(data["status"])
    return [*REVIEWED_STATUSES, *([UNREVIEWED_STATUS] if data.get("include_unreviewed") else [])]


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file through the shared reader (encoding, syntax: file, line and column)."""
    path = Path(path)
    root_relative = Path(__file__).resolve().parents[2] / path
    if not path.exists() and not path.is_absolute() and root_relative.is_file():
        path = root_relative  # e.g. "experiments/demo_offline.toml" from any directory
    if not path.exists():
        raise InputError("no such experiment file", path=str(path))
    return read_toml_file(path)


def _tables(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(exclude_none=True, exclude_unset=True) for item in items]


def parse_config(raw: dict[str, Any], path: str = "") -> Experiment:
    """Validate a parsed experiment file (no database access).

    Types, ranges and unknown keys: :func:`core.pipeline.schema.validate_spec`; then the
    cross-references between tables.
    """
    spec = validate_spec(raw, path)
    name = spec.name or (Path(path).stem if path else "")
    if not name:
        raise ConfigError("experiment: missing 'name'")
    systems = [make_system(s) for s in _tables(spec.systems)]
    judges = [make_judge(j) for j in _tables(spec.judges)]
    for label, items in (
        ("system", [s.name for s in systems]),
        ("judge", [j.name for j in judges]),
    ):
        dup = {x for x in items if items.count(x) > 1}
        if dup:
            raise ConfigError(f"experiment {name!r}: duplicate {label} name(s) {sorted(dup)}")
    if spec.data.status is not None and spec.data.include_unreviewed is not None:
        raise ConfigError(
            f"experiment {name!r}: [data] has both 'status' and 'include_unreviewed'; "
            'give one (a status list with "pending" takes unreviewed questions)'
        )
    by_name = {j.name: j for j in judges}
    tour = spec.tournament
    pairwise_names = (
        tour.judges if tour.judges is not None else [j.name for j in judges if j.pairwise]
    )
    for jn in pairwise_names:
        if jn not in by_name or not by_name[jn].pairwise:
            raise ConfigError(
                f"experiment {name!r}: [tournament] judge {jn!r} is not a "
                "pairwise judge of this experiment"
            )
    if pairwise_names and len(systems) < 2:
        raise ConfigError(f"experiment {name!r}: a tournament needs at least two systems")
    grounding = spec.grounding.model_dump() if spec.grounding else {}
    for role, kinds in (("reference", ("reference_absolute",)), ("context", ("autoais",))):
        jn = grounding.get(role)
        if jn is not None and (jn not in by_name or by_name[jn].kind not in kinds):
            raise ConfigError(
                f"experiment {name!r}: [grounding] {role} = {jn!r} must name a "
                f"{' or '.join(kinds)} judge of this experiment"
            )
    bias = spec.rater_bias.model_dump(exclude_none=True)
    for key, judge_name in bias.items():
        if judge_name not in by_name:
            raise ConfigError(
                f"experiment {name!r}: [rater_bias] {key} = {judge_name!r} is not a "
                "judge of this experiment"
            )
    if bias:
        for what, items in (("system", systems), ("judge", judges)):
            missing = [x.name for x in items if not x.family]
            if missing:
                raise ConfigError(
                    f"experiment {name!r}: [rater_bias] needs a family for "
                    f"every {what}; missing for {missing}"
                )
    return Experiment(
        name=name,
        path=str(path),
        raw=raw,
        seed=spec.seed,
        c=spec.c,
        data=spec.data.model_dump(exclude_none=True),
        systems=systems,
        judges=judges,
        pairwise_judges=[by_name[j] for j in pairwise_names],
        design=tour.design,
        budget=tour.budget,
        batch=tour.batch,
        grounding=grounding,
        report=spec.report.model_dump(exclude_none=True),
        rater_bias=bias,
        max_failure_share=spec.max_failure_share,
    )


def load_experiment(path_or_config: str | Path | dict[str, Any]) -> Experiment:
    """An :class:`Experiment` from a TOML path or an already parsed dict."""
    if isinstance(path_or_config, dict):
        return parse_config(path_or_config)
    return parse_config(read_toml(path_or_config), str(path_or_config))


# ---------------------------------------------------------------------------------------------
# Validation against the store and the model layer
# ---------------------------------------------------------------------------------------------


def check_models(exp: Experiment, *, allow_missing_keys: bool = False) -> list[str]:
    """Raise ConfigError for an unknown model (or a missing key unless allowed); return the
    models whose key is missing."""

    missing = []
    for model in sorted({x.model for x in [*exp.systems, *exp.judges]}):
        prefix, _ = split_model_id(model)
        if prefix not in provider_names():
            raise ConfigError(
                f"unknown model {model!r}: no provider {prefix!r}; "
                f"known: {', '.join(provider_names())}"
            )
        settings = provider_settings(prefix)
        if settings.key_env and not settings.key_optional and not get_key(settings.key_env):
            if allow_missing_keys:
                missing.append(model)
                continue
            raise ConfigError(
                f"model {model!r} has no key: set {settings.key_env} "
                "(or use --dry-run to see the plan without keys)"
            )
        ok, reason = model_available(model)
        if not ok:
            raise ConfigError(f"unknown or unavailable model {model!r}: {reason}")
    return missing
