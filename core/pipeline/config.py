"""Experiment files (TOML): reading, validation into an :class:`Experiment`, model checks."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.answering.systems import System, make_system
from core.errors import ConfigError, InputError
from core.judging.specs import Judge, make_judge
from core.llm.catalog import provider_settings, split_model_id
from core.llm.keys import get_key
from core.llm.registry import model_available, provider_names

TOP_KEYS = {
    "name",
    "description",
    "seed",
    "c",
    "data",
    "systems",
    "judges",
    "tournament",
    "grounding",
    "report",
    "rater_bias",
    "max_failure_share",
}
DATA_KEYS = {"origin", "split", "documents", "question_ids", "status", "context_kind", "language"}
TOURNAMENT_KEYS = {"judges", "design", "budget", "batch"}


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


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; a syntax error is a ConfigError naming the file, line and column."""
    path = Path(path)
    root_relative = Path(__file__).resolve().parents[2] / path
    if not path.is_file() and not path.is_absolute() and root_relative.is_file():
        path = root_relative  # e.g. "experiments/demo_offline.toml" from any directory
    if not path.is_file():
        raise InputError("no such experiment file", path=str(path))
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: TOML syntax error: {exc}") from None


def _unknown(section: str, got: dict, known: set[str]) -> None:
    bad = set(got) - known
    if bad:
        raise ConfigError(
            f"experiment: unknown key(s) {sorted(bad)} in {section}; known: {sorted(known)}"
        )


def parse_config(raw: dict[str, Any], path: str = "") -> Experiment:
    """Validate a parsed experiment file (no database access)."""
    _unknown("the top level", raw, TOP_KEYS)
    name = raw.get("name") or (Path(path).stem if path else "")
    if not name:
        raise ConfigError("experiment: missing 'name'")
    seed, c = raw.get("seed", 0), raw.get("c", 200)
    if not isinstance(seed, int) or not isinstance(c, int) or c < 1:
        raise ConfigError("experiment: 'seed' must be an integer and 'c' a positive integer")
    data = raw.get("data", {})
    _unknown("[data]", data, DATA_KEYS)
    systems = [make_system(s) for s in raw.get("systems", [])]
    if not systems:
        raise ConfigError(f"experiment {name!r}: no [[systems]]")
    judges = [make_judge(j) for j in raw.get("judges", [])]
    for label, items in (
        ("system", [s.name for s in systems]),
        ("judge", [j.name for j in judges]),
    ):
        dup = {x for x in items if items.count(x) > 1}
        if dup:
            raise ConfigError(f"experiment {name!r}: duplicate {label} name(s) {sorted(dup)}")
    by_name = {j.name: j for j in judges}
    tour = raw.get("tournament", {})
    _unknown("[tournament]", tour, TOURNAMENT_KEYS)
    pairwise_names = tour.get("judges", [j.name for j in judges if j.pairwise])
    for jn in pairwise_names:
        if jn not in by_name or not by_name[jn].pairwise:
            raise ConfigError(
                f"experiment {name!r}: [tournament] judge {jn!r} is not a "
                "pairwise judge of this experiment"
            )
    design = tour.get("design", "full")
    if design not in ("full", "adaptive"):
        raise ConfigError(f"experiment {name!r}: [tournament] design must be full or adaptive")
    if pairwise_names and len(systems) < 2:
        raise ConfigError(f"experiment {name!r}: a tournament needs at least two systems")
    grounding = raw.get("grounding", {})
    _unknown("[grounding]", grounding, {"reference", "context"})
    for role, kinds in (("reference", ("reference_absolute",)), ("context", ("autoais",))):
        jn = grounding.get(role)
        if jn is not None and (jn not in by_name or by_name[jn].kind not in kinds):
            raise ConfigError(
                f"experiment {name!r}: [grounding] {role} = {jn!r} must name a "
                f"{' or '.join(kinds)} judge of this experiment"
            )
    if bool(grounding) and len(grounding) != 2:
        raise ConfigError(f"experiment {name!r}: [grounding] needs both reference and context")
    bias = raw.get("rater_bias", {})
    _unknown("[rater_bias]", bias, {"reference", "pairwise_reference"})
    for key in ("reference", "pairwise_reference"):
        if key in bias and bias[key] not in by_name:
            raise ConfigError(
                f"experiment {name!r}: [rater_bias] {key} = {bias[key]!r} is not a "
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
    max_fail = raw.get("max_failure_share", 0.2)
    if (
        isinstance(max_fail, bool)
        or not isinstance(max_fail, (int, float))
        or not 0 <= max_fail <= 1
    ):
        raise ConfigError(f"experiment {name!r}: 'max_failure_share' must be a number in [0, 1]")
    report_cfg = raw.get("report", {})
    _unknown("[report]", report_cfg, {"bootstrap", "ties", "level", "prior_alpha"})
    return Experiment(
        name=name,
        path=str(path),
        raw=raw,
        seed=seed,
        c=c,
        data=data,
        systems=systems,
        judges=judges,
        pairwise_judges=[by_name[j] for j in pairwise_names],
        design=design,
        budget=float(tour.get("budget", 1.0)),
        batch=int(tour.get("batch", 25)),
        grounding=grounding,
        report=report_cfg,
        rater_bias=bias,
        max_failure_share=float(max_fail),
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
