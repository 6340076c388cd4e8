"""Gemini through the ``google-genai`` SDK (``google:<model>``, ``$GEMINI_API_KEY``).

Contexts of at least ``explicit_cache_min_tokens`` tokens go into an explicit context cache
(``caches.create`` with the context and the system instruction, TTL ``explicit_cache_ttl_s``),
created once per (model, context, system), reused by every later call, and deleted by
:func:`release_context_caches` (also at exit). A run longer than the TTL does not lose its cache:
a cache older than ``RENEW_AT`` of its TTL is replaced by a fresh one (the old one deleted), and
a call that finds its cache gone (404 / "cached content" errors) forgets it and is retried, which
creates a new one. Shorter contexts are sent first in the system instruction, where Gemini's
implicit caching applies. ``cached_tokens`` = ``cached_content_token_count``.
"""

from __future__ import annotations

import atexit
import hashlib
import threading
import time
from typing import TYPE_CHECKING, Any

from core.llm.catalog import ProviderSettings
from core.llm.registry import register
from core.llm.sdk_errors import from_sdk_error, plain
from core.llm.tokens import count_tokens
from core.llm.types import LLMRequest, LLMResponse, ProviderCallError

if TYPE_CHECKING:
    from google import genai
    from google.genai.types import ContentDict, GenerateContentConfigDict

_providers: list["GoogleProvider"] = []
#: share of the TTL after which a context cache is replaced before the next call
RENEW_AT = 0.8


def _now() -> float:
    return time.monotonic()


def created_name(name: str | None, what: str) -> str:
    """The name of a resource the API just created (cache, batch job, file); none is a bad reply."""
    if not name:
        raise ProviderCallError("bad_response", f"google: the new {what} has no name")
    return name


def gemini_contents(request: LLMRequest) -> list[ContentDict]:
    """The turns as Gemini contents (role ``model`` for assistant turns)."""
    return [
        {"role": "model" if t["role"] == "assistant" else "user", "parts": [{"text": t["content"]}]}
        for t in request.turns()
        if t["role"] != "system"
    ]


def gemini_config(
    request: LLMRequest, cached_content: str | None = None
) -> GenerateContentConfigDict:
    """GenerateContentConfig fields; the system instruction is omitted with a cached content."""
    config: GenerateContentConfigDict = {
        "temperature": request.temperature,
        "max_output_tokens": request.max_tokens,
    }
    if cached_content:
        config["cached_content"] = cached_content
    else:
        head = "\n\n".join(p for p in (request.context, request.system) if p)
        if head:
            config["system_instruction"] = head
    config.update(request.params.get("google", {}))
    return config


def parse_generate(data: dict[str, Any]) -> LLMResponse:
    """LLMResponse from a GenerateContentResponse dict."""
    try:
        usage = data.get("usage_metadata") or {}
        cand = (data.get("candidates") or [{}])[0]
        parts = ((cand.get("content") or {}).get("parts")) or []
        text = "".join(p.get("text") or "" for p in parts if not p.get("thought"))
        finish = cand.get("finish_reason") or ""
        return LLMResponse(
            text=text,
            input_tokens=int(usage.get("prompt_token_count") or 0),
            output_tokens=int(usage.get("candidates_token_count") or 0),
            cached_tokens=int(usage.get("cached_content_token_count") or 0),
            finish_reason=str(finish).lower(),
            request_id=str(data.get("response_id") or ""),
            raw=data,
        )
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ProviderCallError("bad_response", f"unexpected reply shape ({exc!r})") from None


class GoogleProvider:
    """generate_content through one SDK client; explicit context caches for long contexts."""

    name = "google"
    cacheable = True

    def __init__(self, settings: ProviderSettings, api_key: str | None) -> None:
        self.settings, self.api_key = settings, api_key
        self._client: genai.Client | None = None
        self._lock = threading.Lock()
        self.context_caches: dict[str, str] = {}
        self._created: dict[str, float] = {}
        self._cache_locks: dict[str, threading.Lock] = {}
        _providers.append(self)

    @property
    def client(self) -> genai.Client:
        """The SDK client (created on first use; SDK retries off, timeout in ms)."""
        with self._lock:
            if self._client is None:
                from google import genai
                from google.genai import (
                    types,
                )

                self._client = genai.Client(
                    api_key=self.api_key,
                    http_options=types.HttpOptions(
                        base_url=self.settings.base_url,
                        timeout=int(self.settings.timeout_s * 1000),
                        retry_options=types.HttpRetryOptions(attempts=1),
                    ),
                )
            return self._client

    def context_cache(self, request: LLMRequest, model: str) -> str | None:
        """The explicit cache name for this request's context (created on first use), or None."""
        if count_tokens(request.context) < self.settings.explicit_cache_min_tokens:
            return None
        key = hashlib.sha256(
            "\x00".join((model, request.context, request.system)).encode()
        ).hexdigest()
        with self._lock:
            lock = self._cache_locks.setdefault(key, threading.Lock())
        with lock:  # one creation per context even under concurrency
            old = self.context_caches.get(key)
            ttl = self.settings.explicit_cache_ttl_s
            if old is not None and _now() - self._created.get(key, 0.0) >= RENEW_AT * ttl:
                self.forget(key)  # about to expire: replace it before it fails a call
                self._delete(old)
            if key not in self.context_caches:
                from google.genai import (
                    types,
                )

                cache = self.client.caches.create(
                    model=model,
                    config=types.CreateCachedContentConfig(
                        contents=[
                            types.Content(role="user", parts=[types.Part(text=request.context)])
                        ],
                        system_instruction=request.system or None,
                        ttl=f"{ttl}s",
                    ),
                )
                name = created_name(cache.name, "context cache")
                self.context_caches[key], self._created[key] = name, _now()
            return self.context_caches[key]

    def forget(self, key: str) -> None:
        """Drop a context cache from the table (it expired or was deleted)."""
        with self._lock:
            self.context_caches.pop(key, None)
            self._created.pop(key, None)

    def _delete(self, name: str) -> None:
        try:
            self.client.caches.delete(name=name)
        except Exception:  # already expired: the TTL bounds the cost anyway
            pass

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """One generate_content call."""
        cached = None
        try:
            cached = self.context_cache(request, model) if request.context else None
            resp = self.client.models.generate_content(
                model=model,
                contents=gemini_contents(request),
                config=gemini_config(request, cached),
            )
        except Exception as exc:
            err = from_sdk_error(exc, self.name)
            if cached and _cache_gone(err):
                for key, name in list(self.context_caches.items()):
                    if name == cached:
                        self.forget(key)
                raise ProviderCallError(
                    "server", f"{self.name}: context cache {cached} expired; a retry recreates it"
                ) from None
            raise err from None
        return parse_generate(plain(resp))

    def release(self) -> int:
        """Delete the context caches this provider created; returns how many."""
        with self._lock:
            names, self.context_caches, self._created = list(self.context_caches.values()), {}, {}
        for name in names:
            self._delete(name)
        return len(names)

    close = release


def _cache_gone(err: ProviderCallError) -> bool:
    """A call that named a context cache failed because the cache no longer exists."""
    text = str(err).lower()
    return err.status == 404 or (err.status in (400, 403) and "cache" in text)


def release_context_caches() -> int:
    """Delete every Gemini context cache created in this process."""
    return sum(p.release() for p in _providers)


atexit.register(release_context_caches)


@register("google")
def google_factory(settings: ProviderSettings, api_key: str | None) -> GoogleProvider:
    """Google's Gemini API (``$GEMINI_API_KEY`` or ``$GOOGLE_API_KEY``)."""
    return GoogleProvider(settings, api_key)
