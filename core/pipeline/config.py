"""Experiment files (TOML): reading, validation into an
:class:`~core.pipeline.schema.Experiment`, model checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.corpus.toml_input import read_toml_file
from core.errors import ConfigError, InputError
from core.llm.catalog import provider_settings, split_model_id
from core.llm.keys import get_key
from core.llm.registry import model_available, provider_names
from core.pipeline.schema import DataSpec, Experiment, describe_error

#: Review statuses an experiment samples by default, and the unreviewed one it may add.
REVIEWED_STATUSES = ("accepted", "edited")
UNREVIEWED_STATUS = "pending"


def question_statuses(data: DataSpec) -> list[str]:
    """The review statuses ``[data]`` takes: its ``status`` list, else accepted and edited,
    plus pending with ``include_unreviewed = true`` (rejected and discarded never by default)."""
    if data.status:
        return list(data.status)
    return [*REVIEWED_STATUSES, *([UNREVIEWED_STATUS] if data.include_unreviewed else [])]


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file through the shared reader (encoding, syntax: file, line and column)."""
    path = Path(path)
    root_relative = Path(__file__).resolve().parents[2] / path
    if not path.exists() and not path.is_absolute() and root_relative.is_file():
        path = root_relative  # e.g. "experiments/demo_offline.toml" from any directory
    if not path.exists():
        raise InputError("no such experiment file", path=str(path))
    return read_toml_file(path)


def parse_config(raw: Any, path: str = "") -> Experiment:
    """``raw`` (a parsed experiment file) validated into an :class:`Experiment`, no database
    access: types, ranges and unknown keys, then the cross-references between tables. ``path``
    names the file and gives the default name. A one-line ``ConfigError`` naming the key."""
    where = f"{path}: " if path else "experiment: "
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}expected a TOML table at the top level")
    try:
        return Experiment.model_validate(raw, context={"path": path})
    except ValidationError as exc:
        raise ConfigError(where + describe_error(exc, raw)) from None


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
    for model in sorted({s.model for s in exp.systems} | {j.model for j in exp.judges}):
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
