"""Anthropic through the ``anthropic`` SDK (``anthropic:<model>``, ``$ANTHROPIC_API_KEY``).

The context is the first system block, byte-identical across a run and marked
``cache_control: ephemeral`` so later calls read it from Anthropic's prompt cache;
``cached_tokens`` = ``cache_read_input_tokens``, ``cache_write_tokens`` =
``cache_creation_input_tokens``, ``input_tokens`` = all three input counts together.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from core.llm.catalog import ProviderSettings
from core.llm.registry import register
from core.llm.sdk_errors import from_sdk_error, plain
from core.llm.types import LLMRequest, LLMResponse, ProviderCallError

if TYPE_CHECKING:
    import anthropic


def anthropic_params(request: LLMRequest, model: str) -> dict[str, Any]:
    """Keyword arguments of ``messages.create`` (also a Message Batches ``params``)."""
    system: list[dict[str, Any]] = []
    if request.context:
        system.append(
            {"type": "text", "text": request.context, "cache_control": {"type": "ephemeral"}}
        )
    if request.system:
        system.append({"type": "text", "text": request.system})
    messages = []
    for turn in request.turns():
        if turn["role"] == "system":
            system.append({"type": "text", "text": turn["content"]})
        else:
            messages.append({"role": turn["role"], "content": turn["content"]})
    # anthropic SDK 2.x has no sampling parameters (temperature is not sent); pass
    # params={"anthropic": {"extra_body": {...}}} for anything the API still accepts.
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    if system:
        params["system"] = system
    params.update(request.params.get("anthropic", {}))
    return params


def parse_message(data: dict[str, Any], request_id: str = "") -> LLMResponse:
    """LLMResponse from a Message dict."""
    try:
        usage = data.get("usage") or {}
        read = int(usage.get("cache_read_input_tokens") or 0)
        write = int(usage.get("cache_creation_input_tokens") or 0)
        text = "".join(b.get("text", "") for b in data["content"] if b.get("type") == "text")
        return LLMResponse(
            text=text,
            input_tokens=int(usage.get("input_tokens") or 0) + read + write,
            output_tokens=int(usage.get("output_tokens") or 0),
            cached_tokens=read,
            cache_write_tokens=write,
            finish_reason=str(data.get("stop_reason") or ""),
            request_id=request_id or str(data.get("id") or ""),
            raw=data,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ProviderCallError("bad_response", f"unexpected reply shape ({exc!r})") from None


class AnthropicProvider:
    """Messages API through one pooled SDK client."""

    name = "anthropic"
    cacheable = True

    def __init__(self, settings: ProviderSettings, api_key: str | None) -> None:
        self.settings, self.api_key = settings, api_key
        self._client: anthropic.Anthropic | None = None
        self._lock = threading.Lock()

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (created on first use; SDK retries off)."""
        with self._lock:
            if self._client is None:
                import anthropic

                self._client = anthropic.Anthropic(
                    api_key=self.api_key,
                    base_url=self.settings.base_url,
                    timeout=self.settings.timeout_s,
                    max_retries=0,
                )
            return self._client

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """One message."""
        try:
            raw = self.client.messages.with_raw_response.create(**anthropic_params(request, model))
            message = raw.parse()
        except Exception as exc:
            raise from_sdk_error(exc, self.name) from None
        return parse_message(plain(message), raw.headers.get("request-id") or "")

    def close(self) -> None:
        """Close the HTTP pool."""
        if self._client is not None:
            self._client.close()


@register("anthropic")
def anthropic_factory(settings: ProviderSettings, api_key: str | None) -> AnthropicProvider:
    """Anthropic's API (``$ANTHROPIC_API_KEY``; ``$ANTHROPIC_BASE_URL`` to redirect)."""
    return AnthropicProvider(settings, api_key)
