"""Gemini batch jobs (``google-genai``): ``batches.create`` with inline requests or an uploaded
JSONL file, ``batches.get`` to poll, results from the job's inlined responses or result file.

Up to ``INLINE_MAX_BYTES`` of request JSON goes inline (the API's limit is 20 MB), each request
tagged with ``metadata.key`` = its custom id; larger jobs upload a JSONL file (``files.upload``,
one ``{"key", "request"}`` line per request, ``request`` a REST ``GenerateContentRequest``) and
read the result file (``files.download``: one ``{"key", "response"}`` or ``{"key", "error"}``
line per request). Batch requests never use an explicit context cache (its 1 h TTL is shorter
than a batch's 24 h window): the context goes first in the system instruction.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from core.llm.batch import error_response
from core.llm.providers_google import (
    GoogleProvider,
    created_name,
    gemini_config,
    gemini_contents,
    parse_generate,
)
from core.llm.sdk_errors import kind_for_status, plain
from core.llm.types import LLMRequest, LLMResponse

if TYPE_CHECKING:
    from google.genai.types import BatchJob, GenerateContentResponse, InlinedRequest

INLINE_MAX_BYTES = 10_000_000
#: google-genai JobState -> normalised status
STATUS = {
    "JOB_STATE_SUCCEEDED": "completed",
    "JOB_STATE_PARTIALLY_SUCCEEDED": "completed",
    "JOB_STATE_FAILED": "failed",
    "JOB_STATE_CANCELLED": "cancelled",
    "JOB_STATE_EXPIRED": "expired",
}


def _state(job: BatchJob) -> str:
    state = getattr(job, "state", None)
    return str(getattr(state, "value", state) or "")


class GoogleBatch:
    """Batch adapter over the provider's SDK client."""

    def __init__(self, provider: GoogleProvider) -> None:
        self.client = provider.client

    def inlined(self, items: list[tuple[str, LLMRequest, str]]) -> list[InlinedRequest]:
        """``InlinedRequest`` objects: contents, config (context in the system instruction), key."""
        from google.genai import types

        return [
            types.InlinedRequest(
                contents=[types.Content.model_validate(c) for c in gemini_contents(req)],
                config=types.GenerateContentConfig.model_validate(gemini_config(req)),
                metadata={"key": cid},
            )
            for cid, req, _ in items
        ]

    def jsonl(self, inlined: list[InlinedRequest]) -> bytes:
        """The input file: one ``{"key", "request"}`` line per request (the SDK's own REST form)."""
        from google.genai import (
            _common,
            batches,
        )

        lines = []
        for item in inlined:
            body = batches._InlinedRequest_to_mldev(self.client._api_client, item)
            body = _common.encode_unserializable_types(_common.convert_to_dict(body))
            key = (item.metadata or {})["key"]  # set by inlined()
            lines.append(json.dumps({"key": key, "request": body["request"]}, ensure_ascii=False))
        return "\n".join(lines).encode("utf-8")

    def submit(self, items: list[tuple[str, LLMRequest, str]]) -> tuple[str, dict[str, Any]]:
        """Create the job inline when small enough, else from an uploaded JSONL file."""
        name = items[0][2]
        inlined = self.inlined(items)
        data = self.jsonl(inlined)
        if len(data) <= INLINE_MAX_BYTES:
            job = self.client.batches.create(
                model=name, src=inlined, config={"display_name": "workbench"}
            )
            keys = [cid for cid, _, _ in items]
            return created_name(job.name, "batch job"), {"mode": "inline", "keys": keys}
        upload = self.client.files.upload(
            file=io.BytesIO(data),
            config={"mime_type": "application/jsonl", "display_name": "workbench-batch"},
        )
        job = self.client.batches.create(
            model=name, src=created_name(upload.name, "file"), config={"display_name": "workbench"}
        )
        return created_name(job.name, "batch job"), {"mode": "file", "input_file": upload.name}

    def status(self, batch_id: str, meta: dict[str, Any]) -> str:
        """Poll ``batches.get``; remembers the result file name in ``meta``."""
        job = self.client.batches.get(name=batch_id)
        if job.dest is not None and job.dest.file_name:
            meta["responses_file"] = job.dest.file_name
        return STATUS.get(_state(job), "in_progress")

    def results(self, batch_id: str, meta: dict[str, Any]) -> Iterator[tuple[str, LLMResponse]]:
        """Inlined responses (matched by ``metadata.key``, else by position) or result-file lines."""
        job = self.client.batches.get(name=batch_id)
        dest = job.dest
        if dest is not None and dest.inlined_responses:
            keys = meta.get("keys") or []
            for i, item in enumerate(dest.inlined_responses):
                key = (item.metadata or {}).get("key") or (keys[i] if i < len(keys) else None)
                if key:
                    yield key, self._parse(item.response, plain(item.error) if item.error else None)
            return
        file_name = (dest.file_name if dest is not None else None) or meta.get("responses_file")
        if not file_name:
            return
        for line in self.client.files.download(file=file_name).decode("utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                if entry.get("key"):
                    yield entry["key"], self._parse_line(entry)

    @staticmethod
    def _parse(
        response: GenerateContentResponse | None, error: dict[str, Any] | None
    ) -> LLMResponse:
        if error or response is None:
            error = error or {}
            code = int(error.get("code") or 0)
            return error_response(_kind(code), f"google batch item: {error.get('message', error)}")
        return parse_generate(plain(response))

    @staticmethod
    def _parse_line(entry: dict[str, Any]) -> LLMResponse:
        """A result-file line: ``response`` is a REST (camelCase) GenerateContentResponse."""
        from google.genai import types

        if entry.get("response") is not None:
            resp = types.GenerateContentResponse.model_validate(entry["response"])
            return parse_generate(plain(resp))
        error = entry.get("error") or entry.get("status") or {}
        return GoogleBatch._parse(None, error if isinstance(error, dict) else {"message": error})


def _kind(code: int) -> str:
    """google.rpc codes (small numbers) or HTTP statuses -> error kind."""
    rpc = {
        3: "bad_request",
        4: "timeout",
        7: "auth",
        8: "rate_limit",
        13: "server",
        14: "server",
        16: "auth",
    }
    if code in rpc:
        return rpc[code]
    return kind_for_status(code) if code >= 400 else "unknown"
