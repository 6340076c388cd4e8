"""Anthropic Message Batches: ``messages.batches.create``, poll, stream the results."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from core.llm.batch import error_response
from core.llm.providers_anthropic import (
    AnthropicProvider,
    anthropic_params,
    parse_message,
)
from core.llm.sdk_errors import plain
from core.llm.types import LLMRequest, LLMResponse

if TYPE_CHECKING:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

STATUS = {"in_progress": "in_progress", "canceling": "in_progress", "ended": "completed"}


class AnthropicBatch:
    """Batch adapter over the provider's SDK client."""

    def __init__(self, provider: AnthropicProvider) -> None:
        self.client = provider.client

    def submit(self, items: list[tuple[str, LLMRequest, str]]) -> tuple[str, dict[str, Any]]:
        """Create the batch: one ``{"custom_id", "params"}`` entry per request."""
        batch = self.client.messages.batches.create(
            requests=[
                {
                    "custom_id": cid,
                    # anthropic_params builds exactly messages.create's keyword arguments
                    "params": cast("MessageCreateParamsNonStreaming", anthropic_params(req, name)),
                }
                for cid, req, name in items
            ]
        )
        return batch.id, {}

    def status(self, batch_id: str, meta: dict[str, Any]) -> str:
        """Poll the processing status."""
        return STATUS.get(
            self.client.messages.batches.retrieve(batch_id).processing_status, "in_progress"
        )

    def results(self, batch_id: str, meta: dict[str, Any]) -> Iterator[tuple[str, LLMResponse]]:
        """Stream the results JSONL."""
        for entry in self.client.messages.batches.results(batch_id):
            data = plain(entry)
            result = data.get("result") or {}
            if result.get("type") == "succeeded":
                yield data["custom_id"], parse_message(result["message"])
            else:
                kind = "server" if result.get("type") == "errored" else "timeout"
                yield (
                    data["custom_id"],
                    error_response(
                        kind,
                        f"anthropic batch item {result.get('type')}: {result.get('error', '')}",
                    ),
                )
