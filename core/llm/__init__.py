"""The model layer: every LLM call of the project goes through here.

>>> from core.llm import LLMRequest, complete
>>> resp = complete(db, LLMRequest(model="offline:extractive", task="answer",
...                                fields={"question": "Who?", "context": text}))

See docs/readme/models.md for model ids, keys, cache, costs, batch and the offline baselines.
"""

from core.llm.catalog import configure, known_models, model_info, provider_settings
from core.llm.cost import call_cost, cost_totals, estimate_cost
from core.llm.engine import cache_mode, complete, complete_many, preflight, set_cache_mode
from core.llm.registry import model_available, provider_names
from core.llm.tokens import count_tokens, request_input_tokens
from core.llm.types import (LLMError, LLMRequest, LLMResponse, ModelUnavailableError,
                            NeedsRealModelError, Provider, ProviderCallError)
from core.llm.windows import check_context, context_window, fits_context

__all__ = [
    "LLMRequest", "LLMResponse", "Provider", "LLMError", "ProviderCallError",
    "ModelUnavailableError", "NeedsRealModelError", "complete", "complete_many", "preflight",
    "set_cache_mode", "cache_mode",
    "model_available", "provider_names", "context_window", "fits_context", "check_context",
    "estimate_cost", "call_cost", "cost_totals", "configure", "known_models", "model_info",
    "provider_settings", "count_tokens", "request_input_tokens",
]
