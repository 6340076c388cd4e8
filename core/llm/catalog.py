"""The model catalogue (``models.toml``): prices, context windows and per-provider settings."""

from __future__ import annotations

import difflib
import os
import threading
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.corpus.toml_input import read_toml_file
from core.errors import ConfigError, InputError

CATALOG_PATH = Path(__file__).with_name("models.toml")
_overrides: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class ProviderSettings:
    """Connection, limits and retry settings of one provider (``[providers.<name>]``)."""

    name: str
    key_env: str = ""
    key_optional: bool = False
    base_url: str | None = None
    timeout_s: float = 120.0
    max_in_flight: int = 8
    rpm: int = 0
    tpm: int = 0
    max_attempts: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    default_context_window: int = 128000
    batch_discount: float = 1.0
    explicit_cache_min_tokens: int = 4096
    explicit_cache_ttl_s: int = 3600
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelInfo:
    """Prices (USD per 1M tokens) and context window of one ``provider:model``."""

    model: str
    context_window: int
    input: float | None = None
    cached_input: float | None = None
    cache_write: float | None = None
    output: float | None = None
    baseline: str = ""

    @property
    def priced(self) -> bool:
        """True when the catalogue has input and output prices for this model."""
        return self.input is not None and self.output is not None


@lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    """The catalogue at ``path`` read by the one TOML reader (a folder, a device, bad bytes or
    syntax, deep nesting: one ``InputError``) and checked by :func:`_check_catalog`."""
    try:
        data = read_toml_file(path)
    except InputError as exc:
        raise ConfigError(f"model catalogue: {exc}") from None
    _check_catalog(data, path)
    return data


_KINDS: dict[str, tuple[type, ...]] = {"str": (str,), "bool": (bool,), "int": (int,)}
_KINDS.update({"float": (int, float), "str | None": (str,)})
#: Settings that 0 would break (no call at all, no slot, an instant timeout); others are >= 0.
_AT_LEAST = {"max_attempts": 1, "max_in_flight": 1, "timeout_s": 0.001}


def _check_catalog(data: dict[str, Any], path: str) -> None:
    """Refuse a catalogue whose ``providers`` or ``models`` is not a table of tables, or whose
    known settings have the wrong type (a count or price that is negative, text for a number)."""
    for section, cls in (("providers", ProviderSettings), ("models", ModelInfo)):
        tables = data.get(section, {})
        if not isinstance(tables, dict):
            raise ConfigError(f"model catalogue {path}: [{section}] must be a table of tables")
        types = {f.name: str(f.type) for f in fields(cls)}
        for name, table in tables.items():
            where = f"model catalogue {path}: [{section}.{name!r}]"
            if not isinstance(table, dict):
                raise ConfigError(f"{where} must be a table, found {type(table).__name__}")
            for key, value in table.items():
                kinds = _KINDS.get(types.get(key, "").replace("float | None", "float"))
                if key in ("name", "model", "extra") or (kinds is None and section == "models"):
                    raise ConfigError(f"{where}: unknown setting {key!r}")
                wrong = kinds is not None and (
                    not isinstance(value, kinds)
                    or (bool not in kinds and isinstance(value, bool))
                    or (
                        isinstance(value, (int, float))
                        and not _AT_LEAST.get(key, 0) <= value < float("inf")
                    )
                )
                if wrong:
                    raise ConfigError(f"{where}: {key} = {value!r} is not a valid {types[key]}")


def catalog() -> dict[str, Any]:
    """The parsed catalogue (``$WORKBENCH_MODELS_TOML`` or the bundled ``models.toml``)."""
    return _load(os.environ.get("WORKBENCH_MODELS_TOML", str(CATALOG_PATH)))


def split_model_id(model_id: str) -> tuple[str, str]:
    """``'openai:gpt-4o'`` -> ``('openai', 'gpt-4o')``."""
    provider, sep, name = model_id.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"model id {model_id!r} must look like 'provider:model'")
    return provider, name


def configure(provider: str, **settings: Any) -> None:
    """Override settings of ``provider`` for this process (tests, benchmarks, the CLI)."""
    known = set(ProviderSettings.__dataclass_fields__) - {"name"}
    unknown = set(settings) - known
    if unknown:
        raise ConfigError(f"unknown provider settings {sorted(unknown)}")
    with _lock:
        _overrides.setdefault(provider, {}).update(settings)


def reset_configuration(provider: str | None = None) -> None:
    """Drop overrides made with :func:`configure` (all, or one provider's)."""
    with _lock:
        if provider is None:
            _overrides.clear()
        else:
            _overrides.pop(provider, None)


def provider_settings(provider: str) -> ProviderSettings:
    """Settings from the catalogue, then ``$<PROVIDER>_BASE_URL``, then :func:`configure`."""
    section = dict(catalog().get("providers", {}).get(provider, {}))
    known = set(ProviderSettings.__dataclass_fields__)
    extra = {k: section.pop(k) for k in list(section) if k not in known}
    settings = ProviderSettings(name=provider, extra=extra, **section)
    env_url = os.environ.get(f"{provider.upper()}_BASE_URL")
    if env_url:
        settings = replace(settings, base_url=env_url)
    with _lock:
        over = dict(_overrides.get(provider, {}))
    return replace(settings, **over) if over else settings


def model_info(model_id: str) -> ModelInfo:
    """Catalogue entry of ``model_id``; unknown models get the provider's default window."""
    provider, _ = split_model_id(model_id)
    entry = catalog().get("models", {}).get(model_id)
    if entry is None:
        return ModelInfo(model_id, provider_settings(provider).default_context_window)
    entry = dict(entry)
    window = entry.pop("context_window", provider_settings(provider).default_context_window)
    return ModelInfo(model_id, int(window), **entry)


def known_models() -> list[str]:
    """Every model id listed in the catalogue."""
    return sorted(catalog().get("models", {}))


def unknown_model_message(model_id: str) -> str | None:
    """``"unknown model ..."`` with close catalogue matches when ``model_id`` is not listed and
    its provider takes only catalogued models (``catalogued_only = true``); None otherwise."""
    provider, _ = split_model_id(model_id)
    if model_id in catalog().get("models", {}):
        return None
    if not provider_settings(provider).extra.get("catalogued_only"):
        return None
    known = known_models()
    close = (
        difflib.get_close_matches(model_id, known, n=3, cutoff=0.6)
        or [m for m in known if m.startswith(f"{provider}:")][:3]
    )
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (
        f"unknown model {model_id!r} (not in the model catalogue {CATALOG_PATH.name}){hint} "
        "Add it under [models] to use a new model."
    )
