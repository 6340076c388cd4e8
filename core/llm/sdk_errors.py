"""Map SDK exceptions to ProviderCallError kinds, one table for the Stainless SDKs (openai,
anthropic) and google-genai: the providers share it instead of each writing its own."""

from __future__ import annotations

import json
from typing import Any

from core.llm.keys import redact
from core.llm.retry import parse_retry_after
from core.llm.types import ProviderCallError


def kind_for_status(status: int, body: str = "") -> str:
    """HTTP status -> error kind (413 and 'context length' 400s mean context_too_long)."""
    low = body.lower()
    if status == 429:
        return "rate_limit"
    if status in (408,):
        return "timeout"
    if status >= 500 or status == 529:
        return "server"
    if status in (401, 403):
        return "auth"
    if status == 413 or "context length" in low or "too long" in low or "maximum context" in low:
        return "context_too_long"
    return "bad_request"


def _message(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return redact(" ".join(str(text).split()))[:300]


def from_sdk_error(exc: BaseException, provider: str) -> ProviderCallError:
    """Classify an exception raised by an SDK call (any of the three SDKs)."""
    names = {c.__name__ for c in type(exc).__mro__}
    status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    retry_after = parse_retry_after(dict(headers) if headers is not None else None)
    if isinstance(exc, ProviderCallError):
        return exc
    if names & {
        "APITimeoutError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "TimeoutError",
    }:
        return ProviderCallError("timeout", f"{provider}: request timed out")
    if names & {
        "APIResponseValidationError",
        "JSONDecodeError",
        "ValidationError",
        "UnicodeDecodeError",
        "UnknownApiResponseError",
    }:
        return ProviderCallError("bad_response", f"{provider}: unreadable reply: {_message(exc)}")
    if isinstance(status, int) and 400 <= status < 600:
        body = _message(exc)
        return ProviderCallError(
            kind_for_status(status, body),
            f"{provider}: HTTP {status}: {body}",
            retry_after=retry_after,
            status=status,
        )
    if names & {
        "APIConnectionError",
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
        "NetworkError",
        "TransportError",
        "ConnectionError",
        "ProtocolError",
        "IncompleteRead",
    }:
        cause = exc.__cause__ or exc.__context__
        detail = f" ({type(cause).__name__})" if cause else ""
        return ProviderCallError("connection", f"{provider}: connection error{detail}")
    return ProviderCallError("unknown", f"{provider}: {type(exc).__name__}: {_message(exc)}")


def plain(obj: object) -> Any:
    """A JSON-safe dict of an SDK response object (pydantic models, dataclasses)."""
    for attr in ("model_dump", "to_dict", "dict"):
        fn = getattr(obj, attr, None)
        if callable(fn):
            try:
                return json.loads(
                    json.dumps(fn(mode="json") if attr == "model_dump" else fn(), default=str)
                )
            except TypeError:
                return json.loads(json.dumps(fn(), default=str))
    return obj
