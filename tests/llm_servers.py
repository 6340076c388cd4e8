"""Loopback fake provider servers for the model-layer tests and benchmark (no network).

One threaded HTTP/1.1 server speaks enough of the OpenAI, Anthropic and Gemini REST APIs for
their official SDKs: chat completions, messages, generateContent, Gemini cachedContents, and the
OpenAI / Anthropic / Gemini batch endpoints (file upload, create, poll, results; Gemini's
resumable upload and file download). A Gemini batch request whose text contains ``FAILME`` gets
an error result instead of a reply. ``server.plan`` is a
list of behaviours consumed one per model call (``"ok"``, ``("status", code, headers, body)``,
``"timeout"``, ``"truncated"``, ``"nonjson"``); with the list empty every call succeeds after
``server.delay`` seconds. A generateContent naming a cachedContent the server does not hold
(expired, deleted) gets Gemini's 404 NOT_FOUND. ``server.calls`` records model calls; ``peak``
the most in flight; ``server.reply`` (text -> text) writes the replies of chat completions,
messages and generateContent calls (default: ``echo: <text>``).

No behaviour depends on the wall clock racing the client: ``server.hold_after(k)`` answers the
first ``k`` model calls and holds every later one (received and recorded, unanswered) until
``server.release()``, so a test acts at a known point (after the k-th reply) however busy the
machine is; a ``"timeout"`` call is held until the server closes, so the client's timeout
always fires first. ``server.die_after = k`` kills the server after its k-th model
reply (``server.died`` is set).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Planted API keys of the three SDK providers (tests check they never leak) and one model each.
KEYS = {
    "OPENAI_API_KEY": "sk-PLANTED-openai-0123456789abcdefXYZ",
    "ANTHROPIC_API_KEY": "sk-ant-PLANTED-anthropic-0123456789abcdef",
    "GEMINI_API_KEY": "AIzaPLANTED-gemini-0123456789abcdef0123456789",
}
MODELS = ["openai:gpt-4o-mini", "anthropic:claude-haiku-4-5", "google:gemini-2.5-flash"]
CHAT = re.compile(r"^/v1/chat/completions$")
MESSAGES = re.compile(r"^/v1/messages$")
GEMINI = re.compile(r"^/v1(?:beta)?/models/([^/:]+):generateContent$")


def reply_text(prompt: str) -> str:
    """The deterministic reply: ``echo: <last user text>``."""
    return f"echo: {prompt}"


class FakeServer(ThreadingHTTPServer):
    """A loopback server with scripted behaviours; use as a context manager."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024

    def __init__(self, delay: float = 0.0, batch_polls: int = 1) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.delay, self.batch_polls = delay, batch_polls
        self.plan: list[Any] = []
        self.reply = reply_text  # the text of a successful chat completion, from the user turn
        self.sticky: dict[str, Any] = {}  # a call whose body contains the key always gets this
        self.calls: list[dict[str, Any]] = []
        self.all_requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.in_flight = self.peak = 0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.caches: dict[str, dict[str, Any]] = {}
        self.deleted_caches: list[str] = []
        self.held_after: int | None = None  # model calls after this many wait for release()
        self.gate = threading.Event()
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)
        # die_after = k: the k-th model reply is the last; then the server dies like a killed
        # process (listener closed, later calls on open connections dropped without a reply)
        self.die_after: int | None = None
        self.died = threading.Event()
        self.started = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.release()
        self.shutdown()
        self.server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that gave up (timeouts) close sockets: not an error here."""

    def hold_after(self, k: int) -> None:
        """Answer the next model calls up to the ``k``-th in all; hold later ones until release()."""
        self.gate.clear()
        self.held_after = k

    def release(self) -> None:
        """Answer the held calls and every later one."""
        self.held_after = None
        self.gate.set()

    def admit(self) -> tuple[bool, bool]:
        """(this model call is served, it is the last one before the server dies)."""
        with self.lock:
            if self.die_after is None:
                return True, False
            if self.started >= self.die_after:
                return False, False
            self.started += 1
            return True, self.started == self.die_after

    def die(self) -> None:
        """Stop serving and close the listening socket (from a thread of its own)."""
        self.died.set()
        self.shutdown()
        self.server_close()

    def next_behaviour(self) -> Any:
        with self.lock:
            return self.plan.pop(0) if self.plan else "ok"


def openai_reply(body: dict[str, Any], reply: Any = reply_text) -> dict[str, Any]:
    """A chat.completion for ``body``; cached tokens = the first message's tokens on reuse."""
    msgs = body.get("messages", [])
    last = next((m["content"] for m in reversed(msgs) if m["role"] == "user"), "")
    n_in = sum(len(str(m["content"]).split()) for m in msgs)
    first = len(str(msgs[0]["content"]).split()) if msgs and msgs[0]["role"] == "system" else 0
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {"role": "assistant", "content": reply(last)},
            }
        ],
        "usage": {
            "prompt_tokens": n_in,
            "completion_tokens": 3,
            "total_tokens": n_in + 3,
            "prompt_tokens_details": {"cached_tokens": first},
        },
    }


def anthropic_reply(body: dict[str, Any], reply: Any = reply_text) -> dict[str, Any]:
    """A Message for ``body``; a cache_control block counts as read from the cache."""
    msgs = body.get("messages", [])
    last = msgs[-1]["content"] if msgs else ""
    if isinstance(last, list):
        last = " ".join(b.get("text", "") for b in last)
    system = body.get("system") or []
    cached = sum(
        len(b["text"].split()) for b in system if isinstance(b, dict) and b.get("cache_control")
    )
    return {
        "id": f"msg_{uuid.uuid4().hex[:8]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "content": [{"type": "text", "text": reply(last)}],
        "usage": {
            "input_tokens": len(str(last).split()) + 1,
            "output_tokens": 3,
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0,
        },
    }


def gemini_reply(model: str, body: dict[str, Any], server: FakeServer) -> dict[str, Any]:
    """A GenerateContentResponse; a request naming a cachedContent reports its tokens cached."""
    contents = body.get("contents", [])
    last = " ".join(p.get("text", "") for p in contents[-1]["parts"]) if contents else ""
    cached = 0
    if body.get("cachedContent"):
        cached = server.caches[body["cachedContent"]]["tokens"]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": server.reply(last)}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": len(last.split()) + cached,
            "candidatesTokenCount": 3,
            "cachedContentTokenCount": cached,
            "totalTokenCount": len(last.split()) + cached + 3,
        },
        "modelVersion": model,
        "responseId": uuid.uuid4().hex[:8],
    }


class Handler(BaseHTTPRequestHandler):
    """Routes the few endpoints the SDKs use."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: FakeServer

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(
        self,
        code: int,
        payload: Any,
        headers: dict[str, str] | None = None,
        ctype: str = "application/json",
    ) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:8]}")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:8]}")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self) -> None:
        self._route("GET", b"")

    def do_DELETE(self) -> None:
        self._route("DELETE", b"")

    def do_POST(self) -> None:
        self._route("POST", self._body())

    def _route(self, method: str, raw: bytes) -> None:
        path = self.path.split("?")[0]
        srv = self.server
        with srv.lock:
            srv.all_requests.append((method, path))
            srv.all_requests.append(("headers", str(dict(self.headers))))
        model_call = method == "POST" and (
            CHAT.match(path) or MESSAGES.match(path) or GEMINI.match(path)
        )
        if model_call:
            return self._model_call(path, json.loads(raw or b"{}"))
        if not route_other(self, method, path, raw):
            self._send(404, {"error": {"message": f"no route {method} {path}"}})

    def _model_call(self, path: str, body: dict[str, Any]) -> None:
        srv = self.server
        with srv.lock:
            srv.in_flight += 1
            srv.peak = max(srv.peak, srv.in_flight)
            held = srv.held_after is not None and len(srv.calls) >= srv.held_after
            srv.calls.append(
                {
                    "path": path,
                    "body": body,
                    "t": time.monotonic(),
                    "auth": self.headers.get("Authorization")
                    or self.headers.get("x-api-key")
                    or self.headers.get("x-goog-api-key"),
                }
            )
        try:
            if held:
                srv.gate.wait(timeout=300)  # the test releases it (or the server closes)
            served, last = srv.admit()
            if not served:  # dead: the connection drops without a reply
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            blob = json.dumps(body)
            behaviour = next((b for k, b in srv.sticky.items() if k in blob), None)
            behaviour = behaviour or srv.next_behaviour()
            if srv.delay:
                time.sleep(srv.delay)
            self._behave(behaviour, path, body)
            if last:
                self.close_connection = True
                threading.Thread(target=srv.die, daemon=True).start()
        finally:
            with srv.lock:
                srv.in_flight -= 1

    def _behave(self, behaviour: Any, path: str, body: dict[str, Any]) -> None:
        if behaviour == "timeout":
            self.server.closing.wait(timeout=60)  # the client gives up long before
            behaviour = "ok"
        if isinstance(behaviour, tuple) and behaviour[0] == "status":
            _, code, headers, payload = behaviour
            return self._send(code, payload, headers)
        if behaviour == "nonjson":
            return self._send(
                200, b"<html><body>502 Bad Gateway</body></html>", ctype="application/json"
            )
        if CHAT.match(path):
            payload = openai_reply(body, self.server.reply)
        elif MESSAGES.match(path):
            payload = anthropic_reply(body, self.server.reply)
        else:
            name = body.get("cachedContent")
            if name and name not in self.server.caches:  # expired or deleted: what Gemini says
                return self._send(
                    404,
                    {
                        "error": {
                            "code": 404,
                            "status": "NOT_FOUND",
                            "message": "CachedContent not found (or permission denied)",
                        }
                    },
                )
            payload = gemini_reply(GEMINI.match(path).group(1), body, self.server)
        if behaviour == "truncated":
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self._send(200, payload)


def _multipart_file(raw: bytes, ctype: str) -> bytes:
    """The file part of a multipart/form-data upload."""
    boundary = ctype.split("boundary=")[1].strip('"').encode()
    for part in raw.split(b"--" + boundary):
        if b'name="file"' in part:
            return part.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n", 1)[0]
    raise ValueError("no file part")


def _batch_done(srv: FakeServer, batch: dict[str, Any]) -> bool:
    batch["polls"] += 1
    return batch["polls"] > srv.batch_polls


def route_other(h: Handler, method: str, path: str, raw: bytes) -> bool:
    """Files, batches (OpenAI, Anthropic, Gemini) and Gemini cachedContents. False when unknown."""
    srv, now = h.server, int(time.time())
    if route_gemini_batch(h, method, path, raw):
        return True
    if method == "POST" and path == "/v1/files":
        fid = f"file-{uuid.uuid4().hex[:8]}"
        srv.files[fid] = _multipart_file(raw, h.headers["Content-Type"])
        h._send(
            200,
            {
                "id": fid,
                "object": "file",
                "bytes": len(srv.files[fid]),
                "created_at": now,
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            },
        )
        return True
    m = re.match(r"^/v1/files/([^/]+)/content$", path)
    if method == "GET" and m:
        h._send(200, srv.files[m.group(1)], ctype="application/octet-stream")
        return True
    if method == "POST" and path == "/v1/batches":
        body = json.loads(raw)
        bid = f"batch_{uuid.uuid4().hex[:8]}"
        srv.batches[bid] = {
            "kind": "openai",
            "polls": 0,
            "input": body["input_file_id"],
            "endpoint": body["endpoint"],
            "created_at": now,
        }
        h._send(200, _openai_batch(srv, bid, done=False))
        return True
    m = re.match(r"^/v1/batches/([^/]+)$", path)
    if method == "GET" and m:
        bid = m.group(1)
        h._send(200, _openai_batch(srv, bid, done=_batch_done(srv, srv.batches[bid])))
        return True
    if method == "POST" and path == "/v1/messages/batches":
        body = json.loads(raw)
        bid = f"msgbatch_{uuid.uuid4().hex[:8]}"
        srv.batches[bid] = {
            "kind": "anthropic",
            "polls": 0,
            "requests": body["requests"],
            "created_at": now,
        }
        h._send(200, _anthropic_batch(srv, h, bid, done=False))
        return True
    m = re.match(r"^/v1/messages/batches/([^/]+)(/results)?$", path)
    if method == "GET" and m:
        bid = m.group(1)
        if m.group(2):
            lines = [
                {
                    "custom_id": r["custom_id"],
                    "result": {"type": "succeeded", "message": anthropic_reply(r["params"])},
                }
                for r in srv.batches[bid]["requests"]
            ]
            h._send(
                200, "\n".join(json.dumps(x) for x in lines).encode(), ctype="application/binary"
            )
        else:
            h._send(200, _anthropic_batch(srv, h, bid, done=_batch_done(srv, srv.batches[bid])))
        return True
    if method == "POST" and re.match(r"^/v1(beta)?/cachedContents$", path):
        body = json.loads(raw)
        name = f"cachedContents/{uuid.uuid4().hex[:8]}"
        texts = [p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", [])]
        texts += [p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", [])]
        srv.caches[name] = {"tokens": sum(len(t.split()) for t in texts), "body": body}
        h._send(
            200,
            {
                "name": name,
                "model": body.get("model"),
                "expireTime": "2099-01-01T00:00:00Z",
                "usageMetadata": {"totalTokenCount": srv.caches[name]["tokens"]},
            },
        )
        return True
    m = re.match(r"^/v1(?:beta)?/(cachedContents/[^/]+)$", path)
    if method == "DELETE" and m:
        srv.deleted_caches.append(m.group(1))
        srv.caches.pop(m.group(1), None)
        h._send(200, {})
        return True
    return False


def route_gemini_batch(h: Handler, method: str, path: str, raw: bytes) -> bool:
    """Gemini batchGenerateContent, batches/<id>, resumable file upload and file download."""
    srv = h.server
    m = re.match(r"^/v1(?:beta)?/models/([^/:]+):batchGenerateContent$", path)
    if method == "POST" and m:
        batch = json.loads(raw)["batch"]
        bid = f"batches/{uuid.uuid4().hex[:8]}"
        source = batch["inputConfig"]
        requests = (
            [{"key": None, **r} for r in source["requests"]["requests"]]
            if "requests" in source
            else [
                json.loads(x)
                for x in srv.files[source["fileName"]].decode().splitlines()
                if x.strip()
            ]
        )
        srv.batches[bid] = {
            "kind": "google",
            "polls": 0,
            "model": m.group(1),
            "requests": requests,
            "file": "fileName" in source,
            "display_name": batch.get("displayName"),
        }
        h._send(200, _gemini_batch(srv, bid, done=False))
        return True
    m = re.match(r"^/v1(?:beta)?/(batches/[^/:]+)$", path)
    if method == "GET" and m and m.group(1) in srv.batches:
        bid = m.group(1)
        h._send(200, _gemini_batch(srv, bid, done=_batch_done(srv, srv.batches[bid])))
        return True
    if method == "POST" and re.match(r"^/upload/v1(?:beta)?/files$", path):
        command = h.headers.get("X-Goog-Upload-Command", "")
        if command == "start":
            uid = uuid.uuid4().hex[:8]
            h._send(
                200, {}, {"x-goog-upload-url": f"{srv.url}/upload/v1beta/files?upload_id={uid}"}
            )
            return True
        name = f"files/{uuid.uuid4().hex[:8]}"
        srv.files[name] = raw
        h._send(
            200,
            {
                "file": {
                    "name": name,
                    "mimeType": "application/jsonl",
                    "sizeBytes": str(len(raw)),
                    "state": "ACTIVE",
                }
            },
            {"x-goog-upload-status": "final"},
        )
        return True
    m = re.match(r"^/v1(?:beta)?/(files/[^/:]+):download$", path)
    if method == "GET" and m:
        h._send(200, srv.files[m.group(1)], ctype="application/octet-stream")
        return True
    return False


def _gemini_result(srv: FakeServer, model: str, request: dict[str, Any]) -> dict[str, Any]:
    if "FAILME" in json.dumps(request):
        return {"error": {"code": 3, "message": "invalid request"}}
    return {"response": gemini_reply(model, request, srv)}


def _gemini_batch(srv: FakeServer, bid: str, done: bool) -> dict[str, Any]:
    """The batch as an Operation: ``metadata`` holds the GenerateContentBatch."""
    b = srv.batches[bid]
    meta: dict[str, Any] = {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": f"models/{b['model']}",
        "displayName": b["display_name"],
        "state": "BATCH_STATE_SUCCEEDED" if done else "BATCH_STATE_PENDING",
        "createTime": "2025-01-01T00:00:00Z",
        "updateTime": "2025-01-01T00:00:00Z",
    }
    if done:
        results = [
            {
                **_gemini_result(srv, b["model"], r["request"]),
                **({"metadata": r["metadata"]} if r.get("metadata") else {}),
                **({"key": r["key"]} if r.get("key") else {}),
            }
            for r in b["requests"]
        ]
        if b["file"]:
            if "output" not in b:
                b["output"] = f"files/{uuid.uuid4().hex[:8]}"
                srv.files[b["output"]] = "\n".join(json.dumps(x) for x in results).encode()
            meta["output"] = {"responsesFile": b["output"]}
        else:
            meta["output"] = {"inlinedResponses": {"inlinedResponses": results}}
        meta["endTime"] = "2025-01-01T01:00:00Z"
    return {"name": bid, "metadata": meta, "done": done}


def _openai_batch(srv: FakeServer, bid: str, done: bool) -> dict[str, Any]:
    b = srv.batches[bid]
    out = None
    if done and "output" not in b:
        lines = []
        for line in srv.files[b["input"]].decode().splitlines():
            if line.strip():
                req = json.loads(line)
                lines.append(
                    {
                        "id": f"resp_{req['custom_id']}",
                        "custom_id": req["custom_id"],
                        "response": {
                            "status_code": 200,
                            "request_id": "r1",
                            "body": openai_reply(req["body"]),
                        },
                        "error": None,
                    }
                )
        out = f"file-{uuid.uuid4().hex[:8]}"
        srv.files[out] = "\n".join(json.dumps(x) for x in lines).encode()
        b["output"] = out
    n = len(srv.files[b["input"]].decode().splitlines())
    return {
        "id": bid,
        "object": "batch",
        "endpoint": b["endpoint"],
        "errors": None,
        "input_file_id": b["input"],
        "completion_window": "24h",
        "status": "completed" if done else "in_progress",
        "output_file_id": b.get("output"),
        "error_file_id": None,
        "created_at": b["created_at"],
        "request_counts": {"total": n, "completed": n if done else 0, "failed": 0},
    }


def _anthropic_batch(srv: FakeServer, h: Handler, bid: str, done: bool) -> dict[str, Any]:
    b = srv.batches[bid]
    n = len(b["requests"])
    return {
        "id": bid,
        "type": "message_batch",
        "processing_status": "ended" if done else "in_progress",
        "request_counts": {
            "processing": 0 if done else n,
            "succeeded": n if done else 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        },
        "created_at": "2025-01-01T00:00:00Z",
        "expires_at": "2025-01-02T00:00:00Z",
        "ended_at": "2025-01-01T01:00:00Z" if done else None,
        "archived_at": None,
        "cancel_initiated_at": None,
        "results_url": f"{srv.url}/v1/messages/batches/{bid}/results" if done else None,
    }


def serve_in_process(delay: float, port_queue: Any, stop: Any) -> None:
    """Target of a separate process (benchmarks): serve until ``stop`` is set."""
    with FakeServer(delay=delay) as srv:
        port_queue.put(srv.url)
        stop.wait()
        port_queue.put(len(srv.calls))
