"""Provider registry: ``provider:model`` ids resolve to small factories with deferred imports.

A factory takes the provider's :class:`~core.llm.catalog.ProviderSettings` and its API key (or
None) and returns a
:class:`~core.llm.types.Provider`; SDKs are imported inside the factory, so a missing or slow SDK
costs nothing until that provider is used. Instances are cached per provider and settings.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from collections.abc import Callable

from core.errors import ConfigError
from core.llm.catalog import (
    ProviderSettings,
    provider_settings,
    split_model_id,
    unknown_model_message,
)
from core.llm.keys import get_key
from core.llm.types import ModelUnavailableError, Provider

Factory = Callable[[ProviderSettings, "str | None"], Provider]
_factories: dict[str, Factory] = {}
_instances: dict[tuple[str, str, str], Provider] = {}
_lock = threading.Lock()
#: Modules that register providers when imported (loaded lazily, on first lookup).
PROVIDER_MODULES = (
    "core.llm.providers_openai",
    "core.llm.providers_anthropic",
    "core.llm.providers_google",
    "core.llm.offline",
    "core.llm.scripted",
)
_loaded = False


def register(*names: str) -> Callable[[Factory], Factory]:
    """Decorator: register ``factory`` under each provider prefix in ``names``."""

    def deco(factory: Factory) -> Factory:
        for name in names:
            _factories[name] = factory
        return factory

    return deco


def _load_modules() -> None:
    global _loaded
    if not _loaded:
        for module in PROVIDER_MODULES:
            importlib.import_module(module)
        _loaded = True


def provider_names() -> list[str]:
    """Every registered provider prefix."""
    _load_modules()
    return sorted(_factories)


def known_provider(model_id: str) -> Factory:
    """The factory of ``model_id``'s provider; ConfigError for a bad id, an unknown provider or
    a model the catalogue does not list for a catalogued-only provider (with close matches)."""
    _load_modules()
    prefix, _ = split_model_id(model_id)
    factory = _factories.get(prefix)
    if factory is None:
        raise ConfigError(
            f"unknown provider {prefix!r} in {model_id!r}; known: {', '.join(provider_names())}"
        )
    unknown = unknown_model_message(model_id)
    if unknown:  # a misspelled id is named as such before any remark about keys
        raise ConfigError(unknown)
    return factory


def resolve(model_id: str) -> tuple[Provider, str, ProviderSettings]:
    """``model_id`` -> (provider instance, model name without prefix, settings)."""
    factory = known_provider(model_id)
    prefix, name = split_model_id(model_id)
    settings = provider_settings(prefix)
    api_key = get_key(settings.key_env)
    if settings.key_env and not api_key and not settings.key_optional:
        raise ModelUnavailableError(f"{model_id} unavailable: set {settings.key_env}")
    ident = (prefix, repr(settings), hashlib.sha256((api_key or "").encode()).hexdigest())
    with _lock:
        inst = _instances.get(ident)
        if inst is None:
            inst = _instances[ident] = factory(settings, api_key)
    return inst, name, settings


def model_available(model_id: str) -> tuple[bool, str]:
    """``(True, 'ok')`` or ``(False, reason)``, e.g. ``'unavailable: set OPENAI_API_KEY'``."""
    try:
        prefix, _ = split_model_id(model_id)
    except ConfigError as exc:
        return False, str(exc)
    _load_modules()
    if prefix not in _factories:
        return False, f"unavailable: unknown provider {prefix!r}"
    try:  # a broken catalogue or key is the reason, not an exception in a page
        unknown = unknown_model_message(model_id)
        if unknown:
            return False, unknown
        settings = provider_settings(prefix)
        if settings.key_env and not settings.key_optional and not get_key(settings.key_env):
            return False, f"unavailable: set {settings.key_env}"
    except ConfigError as exc:
        return False, f"unavailable: {exc}"
    check = getattr(_factories[prefix], "available", None)
    return check(model_id) if callable(check) else (True, "ok")


def clear_instances() -> None:
    """Forget cached provider instances (after changing settings or keys)."""
    with _lock:
        for inst in _instances.values():
            close = getattr(inst, "close", None)
            if callable(close):
                close()
        _instances.clear()
