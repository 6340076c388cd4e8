"""Scripted provider for tests: ``scripted:<name>`` replies from a function or a table.

``set_script(name, fn)`` where ``fn(request) -> str`` (or an LLMResponse, or raises
ProviderCallError to simulate a failure); or ``set_script(name, {prompt: reply, ...})``.
Replies are not cached (a test may change the script between calls); calls are recorded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from core.errors import ConfigError
from core.llm.catalog import ProviderSettings
from core.llm.registry import register
from core.llm.tokens import count_tokens, request_input_tokens
from core.llm.types import LLMRequest, LLMResponse, ProviderCallError

Script = Callable[[LLMRequest], str | LLMResponse] | Mapping[str, str]
_scripts: dict[str, Script] = {}
_calls: dict[str, int] = {}
_lock = threading.Lock()


def set_script(name: str, script: Script) -> None:
    """Install the replies of ``scripted:<name>``."""
    with _lock:
        _scripts[name] = script
        _calls[name] = 0


def call_count(name: str) -> int:
    """How many calls ``scripted:<name>`` has received since its script was set."""
    return _calls.get(name, 0)


class ScriptedProvider:
    """Replies from the installed scripts; deterministic when the script is."""

    name = "scripted"
    cacheable = False

    def validate(self, request: LLMRequest, model: str) -> None:
        """A model without a script is a configuration error."""
        if model not in _scripts:
            raise ConfigError(f"scripted:{model} has no script: call set_script({model!r}, fn)")

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """Run the script of ``model`` on ``request``."""
        self.validate(request, model)
        with _lock:
            script = _scripts[model]
            _calls[model] = _calls.get(model, 0) + 1
        if callable(script):
            reply = script(request)
        else:
            if request.prompt not in script:
                raise ProviderCallError("bad_request", f"scripted:{model}: no reply for prompt")
            reply = script[request.prompt]
        if isinstance(reply, LLMResponse):
            return reply
        return LLMResponse(
            text=str(reply),
            input_tokens=request_input_tokens(request),
            output_tokens=count_tokens(str(reply)),
            finish_reason="stop",
            request_id=f"scripted-{model}-{_calls[model]}",
            raw={"script": model},
        )


@register("scripted")
def scripted_factory(settings: ProviderSettings, api_key: str | None) -> ScriptedProvider:
    """The scripted provider (no key)."""
    return ScriptedProvider()
