"""The simulated annotators of ``benchmarks/team_load.py`` without a browser (issue 37): each is
one websocket to the server's ``/_stcore/stream`` speaking Streamlit's own protocol, the
``BackMsg`` / ``ForwardMsg`` protobufs of ``streamlit.proto``, as the browser's frontend does.

- Opening a tab is a ``rerun_script`` ``BackMsg`` whose ``ClientState`` carries the address's
  query string (``token=...``) and the page's name from its path (``Side_by_side``); later reruns
  carry the current page's script hash (from the server's ``navigation`` / ``new_session``
  messages) and the query string the server last set (``page_info_changed``: the token leaves).
- The page is the tree of elements the ``delta`` messages place at their ``delta_path``; when a
  run finishes (``script_finished``, not ``FINISHED_EARLY_FOR_RERUN``) the elements it did not
  send are dropped, as the frontend clears stale nodes (a fragment run: only that fragment's).
- A key press is what the frontend does with a shortcut: the button whose ``shortcut`` is the
  key gets ``trigger_value`` true in the rerun's widget states, beside the values the frontend
  keeps for the text inputs and checkboxes on the page, with the button's ``fragment_id``.
- Cacheable messages are kept by hash and listed in ``cached_message_hashes``; a ``ref_hash``
  message is resolved from that cache (the frontend's message cache).

The client costs a few per cent of a core for dozens of annotators, so the CPU measured is the
servers' (the Chromium mode, ``--client browser``, measured mostly the browsers)."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import time
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

from team_bench.usage import Usage

#: ``script_finished`` values that end a run the page waits for (not one cut short by a rerun)
_DONE = {
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}
_DONE_OF = re.compile(r"(\d+) of")
_ESCAPED = re.compile(r"\\(.)")


class NotConfirmed(Exception):
    """A run finished without what the action needed (its message says what the page showed)."""


class Tab:
    """One browser tab on one server, as the server sees it (see the module docstring)."""

    def __init__(self, ws: ClientConnection, page_name: str, query: str) -> None:
        self.ws, self.page_name, self.query = ws, page_name, query
        self.page_hash = ""
        #: delta path -> (element or None for a block, its fragment id)
        self.elements: dict[tuple[int, ...], tuple[Any, str]] = {}
        self._touched: set[tuple[int, ...]] = set()
        self._values: dict[str, WidgetState] = {}
        self._cache: dict[str, ForwardMsg] = {}

    @classmethod
    async def open(cls, base: str, page_name: str, query: str, timeout_s: float) -> Tab:
        """Connect to ``base`` (``http://host:port``) and run the page's first script run."""
        url = "ws" + base.removeprefix("http") + "/_stcore/stream"
        ws = await connect(
            url, subprotocols=["streamlit"], max_size=None, ping_interval=None, open_timeout=60
        )
        tab = cls(ws, page_name, query)
        await tab.rerun(timeout_s=timeout_s)
        return tab

    async def close(self) -> None:
        await self.ws.close()

    # --- sending -----------------------------------------------------------------------------

    async def rerun(
        self, trigger: str | None = None, fragment_id: str = "", timeout_s: float = 60.0
    ) -> int:
        """Send a rerun request (``trigger``: the id of a pressed button) and read the server's
        messages until that run finishes; its ``script_finished`` status."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page_name
        state.fragment_id = fragment_id
        state.cached_message_hashes.extend(self._cache)
        live = {self._widget_id(el) for el, _ in self.elements.values() if el is not None}
        for wid, value in self._values.items():
            if wid in live:
                state.widget_states.widgets.append(value)
        if trigger:
            state.widget_states.widgets.append(WidgetState(id=trigger, trigger_value=True))
        await self.ws.send(msg.SerializeToString())
        return await self._until_finished(timeout_s)

    async def press(self, key: str, timeout_s: float) -> int:
        """The page's keyboard shortcut ``key``: its button triggered (NotConfirmed: none)."""
        for el, fragment_id in self.elements.values():
            if el is not None and el.WhichOneof("type") == "button":
                button = el.button
                if button.shortcut.lower() == key.lower() and not button.disabled:
                    return await self.rerun(button.id, fragment_id, timeout_s)
        raise NotConfirmed(f"no button has the shortcut {key!r}; {self.state()}")

    # --- receiving ---------------------------------------------------------------------------

    async def _until_finished(self, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no finished script run within {timeout_s:g} s")
            data = await asyncio.wait_for(self.ws.recv(), left)
            msg = ForwardMsg()
            msg.ParseFromString(data if isinstance(data, bytes) else data.encode())
            status = self._receive(msg)
            if status is not None:
                return status

    def _receive(self, msg: ForwardMsg) -> int | None:
        """Apply one message to the tab; a finished run's status, else None."""
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            cached = ForwardMsg()
            cached.CopyFrom(self._cache[msg.ref_hash])
            cached.metadata.CopyFrom(msg.metadata)
            msg, kind = cached, cached.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self._cache[msg.hash] = msg
        if kind == "new_session":
            self._touched.clear()  # a full run starts
            self.page_hash = msg.new_session.page_script_hash or self.page_hash
        elif kind == "navigation" and msg.navigation.page_script_hash:
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "delta":
            self._delta(msg)
        elif kind == "script_finished":
            if msg.script_finished in _DONE:
                self._drop_stale(msg)
                return int(msg.script_finished)
        return None

    def _delta(self, msg: ForwardMsg) -> None:
        path, delta = tuple(msg.metadata.delta_path), msg.delta
        which = delta.WhichOneof("type")
        if which == "new_transient":
            return
        element = delta.new_element if which == "new_element" else None
        self.elements[path] = (element, delta.fragment_id)
        self._touched.add(path)
        if element is not None:
            self._keep_value(element)

    def _keep_value(self, element: Any) -> None:
        """The value the frontend registers for a text input or checkbox when it appears."""
        kind = element.WhichOneof("type")
        if kind == "text_input" and element.text_input.id not in self._values:
            widget = element.text_input
            self._values[widget.id] = WidgetState(id=widget.id, string_value=widget.default)
        elif kind == "checkbox" and element.checkbox.id not in self._values:
            widget = element.checkbox
            self._values[widget.id] = WidgetState(id=widget.id, bool_value=widget.default)

    def _drop_stale(self, msg: ForwardMsg) -> None:
        if msg.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
            ran = set(msg.metadata.run.fragment_ids) or {
                self.elements[p][1] for p in self._touched if p in self.elements
            }
            stale = [p for p, (_, f) in self.elements.items() if f in ran]
        else:
            stale = list(self.elements)
        for path in stale:
            if path not in self._touched:
                del self.elements[path]
        self._touched.clear()

    # --- reading the page --------------------------------------------------------------------

    @staticmethod
    def _widget_id(element: Any) -> str:
        kind = element.WhichOneof("type")
        return str(getattr(getattr(element, kind), "id", "")) if kind else ""

    def _of(self, kind: str) -> list[Any]:
        return [
            getattr(el, kind)
            for _, (el, _) in sorted(self.elements.items())
            if el is not None and el.WhichOneof("type") == kind
        ]

    def texts(self) -> list[str]:
        """The markdown, headings and alerts on the page, in order, Markdown escapes undone
        (``load1\\-0`` reads ``load1-0``)."""
        out = []
        for _, (el, _) in sorted(self.elements.items()):
            kind = el.WhichOneof("type") if el is not None else None
            if kind in ("markdown", "heading", "alert"):
                out.append(_ESCAPED.sub(r"\1", getattr(el, kind).body))
        return out

    def done(self) -> int:
        """The progress line's done count (-1: no progress line)."""
        for bar in self._of("progress"):
            if found := _DONE_OF.search(bar.text):
                return int(found.group(1))
        return -1

    def shows_heading(self, title: str) -> bool:
        return any(t.strip().lstrip("#").strip() == title for t in self.texts())

    def exceptions(self) -> list[str]:
        return [f"{e.type}: {e.message}"[:200] for e in self._of("exception")]

    def state(self) -> str:
        """What the page shows, for an error message: progress, alerts and exceptions."""
        progress = [bar.text for bar in self._of("progress")]
        alerts = [a.body[:120] for a in self._of("alert")]
        return f"progress {progress}; page showed {alerts + self.exceptions()}"


async def sign_in(base: str, name: str, token: str, timeout_s: float) -> Tab:
    """A tab opened on Side by side with ``name``'s one-time link, an item shown."""
    tab = await Tab.open(base, "Side_by_side", f"token={token}", timeout_s)
    signed = any(f"Signed in as **{name}**" in t for t in tab.texts())
    if not signed or not tab.shows_heading("Answer A"):
        await tab.close()
        raise NotConfirmed(f"{name} not signed in on Side by side; {tab.state()}")
    return tab


async def annotate(
    tab: Tab, name: str, actions: int, timeout_s: float, think_s: tuple[float, float]
) -> dict:
    """``actions`` keyboard verdicts (keys ``1``..``4``), each after a think time drawn from
    ``think_s`` (0, 0: closed loop). An action is key -> its run finished with the progress one
    further and the next item shown, no exception. Same result as the browser's ``annotate``."""
    times: list[float] = []
    pressed, errors = 0, []
    rng = random.Random(name)
    for _ in range(actions):
        if think_s[1] > 0:
            await asyncio.sleep(rng.uniform(*think_s))
        before = tab.done()
        key = rng.choice("1234")
        t = time.perf_counter()
        pressed += 1
        try:
            await tab.press(key, timeout_s)
            took = time.perf_counter() - t
            if shown := tab.exceptions():
                raise NotConfirmed(f"exception shown: {shown[0]}")
            if tab.done() <= before or not tab.shows_heading("Answer A"):
                raise NotConfirmed(f"not stored or no next item; {tab.state()}")
            times.append(took)
        except Exception as exc:  # a timeout, a closed socket or a page without the next item
            errors.append(f"{name} action {pressed}: {type(exc).__name__}: {str(exc)[:300]}")
            break
    return {"name": name, "times": times, "pressed": pressed, "errors": errors}


async def run_round(
    bases: list[str],
    people: list[tuple[str, str]],
    args: argparse.Namespace,
    roots: dict[str, list[int]],
) -> tuple[list[dict], Usage]:
    """Sign everyone in, annotator i on ``bases[i % K]``, then all label at once (measured while
    they label); the same contract as the browser's ``run_round``."""
    tabs = []
    try:
        for i, (name, token) in enumerate(people):
            tabs.append(await sign_in(bases[i % len(bases)], name, token, args.action_timeout))
        with Usage({**roots, "clients": [os.getpid()]}) as usage:
            results = await asyncio.gather(
                *(
                    annotate(tab, name, args.actions, args.action_timeout, args.think)
                    for (name, _), tab in zip(people, tabs)
                )
            )
    finally:
        for tab in tabs:
            await tab.close()
    return list(results), usage


async def first_visit(bases: list[str], timeout_s: float = 180) -> None:
    """Each server's first script run imports everything: one signed-out visit per server."""
    for base in bases:
        tab = await Tab.open(base, "", "", timeout_s)
        await tab.close()
