"""OpenAI Batch API: JSONL file upload, ``batches.create``, poll, output/error file import."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from core.llm.batch import error_response
from core.llm.providers_openai import OpenAIProvider, openai_body, parse_chat_completion
from core.llm.sdk_errors import kind_for_status
from core.llm.types import LLMRequest, LLMResponse

ENDPOINT: Final = "/v1/chat/completions"
STATUS = {
    "validating": "in_progress",
    "in_progress": "in_progress",
    "finalizing": "in_progress",
    "completed": "completed",
    "failed": "failed",
    "expired": "expired",
    "cancelling": "in_progress",
    "cancelled": "cancelled",
}


def batch_jsonl(items: list[tuple[str, LLMRequest, str]]) -> bytes:
    """The batch input file: one ``{"custom_id", "method", "url", "body"}`` line per request."""
    return "\n".join(
        json.dumps(
            {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": openai_body(req, name)},
            ensure_ascii=False,
        )
        for cid, req, name in items
    ).encode("utf-8")


class OpenAIBatch:
    """Batch adapter over the provider's SDK client."""

    def __init__(self, provider: OpenAIProvider) -> None:
        self.client = provider.client(provider.settings.base_url)

    def submit(self, items: list[tuple[str, LLMRequest, str]]) -> tuple[str, dict[str, Any]]:
        """Upload the JSONL file and create the batch."""
        upload = self.client.files.create(file=("batch.jsonl", batch_jsonl(items)), purpose="batch")
        batch = self.client.batches.create(
            input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h"
        )
        return batch.id, {"input_file_id": upload.id}

    def status(self, batch_id: str, meta: dict[str, Any]) -> str:
        """Poll; remembers the output and error file ids in ``meta``."""
        batch = self.client.batches.retrieve(batch_id)
        meta["output_file_id"], meta["error_file_id"] = batch.output_file_id, batch.error_file_id
        return STATUS.get(batch.status, "in_progress")

    def results(self, batch_id: str, meta: dict[str, Any]) -> Iterator[tuple[str, LLMResponse]]:
        """Lines of the output and error files."""
        for file_id in (meta.get("output_file_id"), meta.get("error_file_id")):
            if not file_id:
                continue
            for line in self.client.files.content(file_id).text.splitlines():
                if line.strip():
                    yield self._item(json.loads(line))

    @staticmethod
    def _item(entry: dict[str, Any]) -> tuple[str, LLMResponse]:
        cid, resp = entry["custom_id"], entry.get("response") or {}
        code = int(resp.get("status_code") or 0)
        if code == 200:
            return cid, parse_chat_completion(resp["body"], str(resp.get("request_id") or ""))
        err = entry.get("error") or (resp.get("body") or {}).get("error") or {}
        return cid, error_response(
            kind_for_status(code) if code else "unknown",
            f"openai batch item: {err.get('message', err)}",
        )
