"""Context windows: check that a request fits its model before any request is sent."""

from __future__ import annotations

from core.errors import ContextTooLongError
from core.llm.catalog import model_info
from core.llm.tokens import request_input_tokens
from core.llm.types import LLMRequest


def context_window(model_id: str) -> int:
    """The model's context window in tokens (0 = unlimited) from the catalogue."""
    return model_info(model_id).context_window


def fits_context(model_id: str, request: LLMRequest) -> bool:
    """True when input tokens + ``max_tokens`` fit the window of ``model_id``."""
    window = context_window(model_id)
    return window <= 0 or request_input_tokens(request) + request.max_tokens <= window


def check_context(request: LLMRequest) -> None:
    """Raise ContextTooLongError (never truncate) when ``request`` does not fit its model."""
    if not fits_context(request.model, request):
        need = request_input_tokens(request) + request.max_tokens
        raise ContextTooLongError(
            f"{request.model}: input {need:,} tokens (incl. max_tokens {request.max_tokens}) "
            f"exceeds the context window of {context_window(request.model):,}; "
            "use a retrieval context or a longer-context model"
        )
