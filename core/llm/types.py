"""Request, response and provider types of the model layer, and its error kinds."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from core.errors import ConfigError, WorkbenchError
from core.llm.request_checks import check_request_values

#: Error kinds a provider call can end with; the first five are retried.
RETRYABLE_KINDS = frozenset({"rate_limit", "server", "connection", "timeout", "bad_response"})
ERROR_KINDS = RETRYABLE_KINDS | {"auth", "bad_request", "context_too_long", "config", "unknown"}


@dataclass(frozen=True)
class LLMRequest:
    """One model call.

    ``context`` is the large block (a book, articles) sent first and byte-identical across a run
    so provider prompt caching applies; ``system`` the instructions; ``prompt`` the user turn
    (or ``messages``, a list of ``{"role", "content"}`` dicts, for several turns). ``task`` and
    ``fields`` are the structured inputs the prompt was rendered from (offline baselines read
    them). ``purpose`` and ``tags`` (e.g. ``{"system": ..., "judge": ...}``) only label the call
    for cost reports and are not part of the cache key.
    """

    model: str
    prompt: str = ""
    system: str = ""
    context: str = ""
    messages: tuple[dict[str, str], ...] = ()
    temperature: float = 0.0
    max_tokens: int = 512
    task: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    purpose: str = ""
    tags: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        texts = ("model", "prompt", "system", "context", "task", "purpose")
        check_request_values(
            {name: getattr(self, name) for name in texts},
            self.messages,
            self.temperature,
            self.max_tokens,
            {"fields": self.fields, "tags": self.tags, "params": self.params},
        )
        if ":" not in self.model:
            raise ConfigError(f"model id {self.model!r} must look like 'provider:model'")
        object.__setattr__(self, "messages", tuple(dict(m) for m in self.messages))

    def turns(self) -> list[dict[str, str]]:
        """The conversation after the system block: ``messages`` then ``prompt`` as a user turn."""
        out = [{"role": m["role"], "content": m["content"]} for m in self.messages]
        if self.prompt:
            out.append({"role": "user", "content": self.prompt})
        if not out:
            out.append({"role": "user", "content": ""})
        return out

    def cache_payload(self) -> dict[str, Any]:
        """Everything that determines the reply: provider, model, full input and parameters."""
        return {
            "model": self.model,
            "system": self.system,
            "context": self.context,
            "turns": self.turns(),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "task": self.task,
            "fields": self.fields,
            "params": self.params,
        }

    def cache_key(self) -> str:
        """sha256 of the canonical JSON of :meth:`cache_payload`."""
        blob = json.dumps(self.cache_payload(), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def with_model(self, model: str) -> "LLMRequest":
        """A copy of this request for another model."""
        data = asdict(self)
        data["model"] = model
        return LLMRequest(**data)


@dataclass
class LLMResponse:
    """A reply, or a failure (``error`` set, ``text`` empty) recorded with its ``error_kind``."""

    text: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str = ""
    request_id: str = ""
    raw: Any = None
    cache_hit: bool = False
    cost_usd: float = 0.0
    error: str | None = None
    error_kind: str | None = None
    model: str = ""
    cache_key: str = ""
    cache_write_tokens: int = 0

    @property
    def ok(self) -> bool:
        """True when the call produced a reply."""
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        """The stored form (cache rows): a shallow dict (``raw`` is already JSON-like; a deep
        copy of it cost a third of a millisecond per reply)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@runtime_checkable
class Provider(Protocol):
    """A model backend: one blocking call that returns a response or raises ProviderCallError."""

    name: str
    cacheable: bool

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """Send ``request`` to ``model`` (the id without the provider prefix)."""
        ...


class LLMError(WorkbenchError):
    """A model-layer failure with a one-line message."""


class ProviderCallError(LLMError):
    """A provider call failed. ``kind`` is one of ERROR_KINDS; ``retry_after`` in seconds;
    ``attempts``: how many calls were made (set by :func:`core.llm.retry.call_with_retry`)."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind if kind in ERROR_KINDS else "unknown"
        self.retry_after = retry_after
        self.status = status
        self.attempts = 1

    @property
    def retryable(self) -> bool:
        """Whether another attempt may succeed."""
        return self.kind in RETRYABLE_KINDS


class ModelUnavailableError(ConfigError):
    """A model cannot be used here (no key, unknown provider)."""


class NeedsRealModelError(ConfigError):
    """An offline baseline was asked for an LLM-only task (the one "needs a real model" error)."""


def require_real_model(model: str, step: str) -> None:
    """Raise NeedsRealModelError when ``model`` is an offline baseline: ``step`` needs an LLM."""
    if model.startswith("offline:"):
        raise NeedsRealModelError(
            f"{step} needs a real model (an LLM), not the offline baseline "
            f"{model!r}: pass e.g. --model openai:gpt-4o-mini"
        )
