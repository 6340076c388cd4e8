"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp) through the ``openai`` SDK.

Ids: ``openai:<model>``; ``compat:<model>@<base_url>`` for any OpenAI-compatible server;
``vllm:<model>``, ``ollama:<model>``, ``llamacpp:<model>`` with base URLs from the catalogue
or ``$VLLM_BASE_URL`` etc. The context goes first, byte-identical, at the start of the system
message, so OpenAI's automatic prefix caching applies (reported as ``cached_tokens``).
SDK retries are off: the shared retry loop (core.llm.retry) decides.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.llm.catalog import ProviderSettings
from core.llm.registry import register
from core.llm.sdk_errors import from_sdk_error
from core.llm.types import LLMRequest, LLMResponse, ProviderCallError

if TYPE_CHECKING:
    import openai

_REASONING = re.compile(r"^(o\d|gpt-5)")


def openai_messages(request: LLMRequest) -> list[dict[str, str]]:
    """Chat messages: one system message ``context + system`` (context first), then the turns."""
    head = "\n\n".join(p for p in (request.context, request.system) if p)
    return ([{"role": "system", "content": head}] if head else []) + request.turns()


def openai_body(request: LLMRequest, model: str, *, compat: bool = False) -> dict[str, Any]:
    """Keyword arguments of ``chat.completions.create`` (also the batch JSONL ``body``)."""
    body: dict[str, Any] = {"model": model, "messages": openai_messages(request)}
    if compat:
        body["max_tokens"] = request.max_tokens
        body["temperature"] = request.temperature
    else:
        body["max_completion_tokens"] = request.max_tokens
        if not _REASONING.match(model):  # reasoning models accept only the default temperature
            body["temperature"] = request.temperature
    body.update(request.params.get("openai", {}))
    return body


def parse_chat_completion(data: dict[str, Any], request_id: str = "") -> LLMResponse:
    """LLMResponse from a chat.completion dict."""
    try:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        return LLMResponse(
            text=choice["message"].get("content") or "",
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            cached_tokens=int(details.get("cached_tokens") or 0),
            finish_reason=str(choice.get("finish_reason") or ""),
            request_id=request_id or str(data.get("id") or ""),
            raw=data,
        )
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ProviderCallError("bad_response", f"unexpected reply shape ({exc!r})") from None


class OpenAIProvider:
    """Chat completions through one SDK client per base URL (thread-safe, pooled)."""

    cacheable = True

    def __init__(self, settings: ProviderSettings, api_key: str | None, *, compat: bool) -> None:
        self.name, self.settings, self.api_key, self.compat = (
            settings.name,
            settings,
            api_key,
            compat,
        )
        self._clients: dict[str | None, openai.OpenAI] = {}
        self._lock = threading.Lock()

    def client(self, base_url: str | None) -> openai.OpenAI:
        """The SDK client for ``base_url`` (created on first use)."""
        with self._lock:
            if base_url not in self._clients:
                import openai

                self._clients[base_url] = openai.OpenAI(
                    api_key=self.api_key or "not-needed",
                    base_url=base_url,
                    timeout=self.settings.timeout_s,
                    max_retries=0,
                )
            return self._clients[base_url]

    def target(self, model: str) -> tuple[str, str | None]:
        """(model name, base URL) for a model id without the provider prefix."""
        if self.name == "compat":
            name, sep, url = model.partition("@")
            if not sep or not url.startswith(("http://", "https://")):
                raise ConfigError(
                    f"compat model {model!r} must look like 'name@http://host:port/v1'"
                )
            return name, url
        return model, self.settings.base_url

    def validate(self, request: LLMRequest, model: str) -> None:
        """Check the id's shape before any request."""
        self.target(model)

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """One chat completion."""
        name, url = self.target(model)
        client = self.client(url)
        try:
            # the client's plain POST: same auth, errors and pooling as chat.completions.create,
            # without its per-call parameter transform and pydantic parse (~0.7 ms of CPU a call)
            raw = client.post(
                "/chat/completions",
                body=openai_body(request, name, compat=self.compat),
                cast_to=self._raw_type(),
            )
            data = raw.parse()
        except Exception as exc:
            raise from_sdk_error(exc, self.name) from None
        if not isinstance(data, dict):
            raise ProviderCallError("bad_response", "the reply is not a JSON object")
        return parse_chat_completion(data, raw.headers.get("x-request-id") or "")

    @staticmethod
    def _raw_type() -> type[openai.APIResponse[dict[str, Any]]]:
        import openai

        return openai.APIResponse[dict[str, Any]]

    def close(self) -> None:
        """Close the HTTP pools."""
        for client in self._clients.values():
            client.close()


@register("openai")
def openai_factory(settings: ProviderSettings, api_key: str | None) -> OpenAIProvider:
    """OpenAI's API (``$OPENAI_API_KEY``; ``$OPENAI_BASE_URL`` to redirect)."""
    return OpenAIProvider(settings, api_key, compat=False)


@register("compat", "vllm", "ollama", "llamacpp")
def compat_factory(settings: ProviderSettings, api_key: str | None) -> OpenAIProvider:
    """An OpenAI-compatible server (vLLM, Ollama, llama.cpp) at a base URL."""
    return OpenAIProvider(settings, api_key, compat=True)
