"""Prompt templates: one file per prompt in ``prompts/``, loaded and rendered by one helper.

A template is Markdown text with ``{{name}}`` placeholders and a leading comment block
(``<!-- ... -->``) that documents it; the comment is not sent to the model. Rendering fails on a
missing or an unused variable, so a template and its caller cannot drift apart silently. A
section ``{{#name}}`` ... ``{{/name}}`` (each tag on a line of its own) is sent only when the
value ``name`` is not empty; otherwise it is left out whole, tag lines included, so a prompt
without it reads as if the template never had it.

Untrusted text (answers, questions, references, candidates) sits between ``[[NAME <nonce>]]`` markers in
judge prompts; :func:`neutralise` is the one function that disarms it (pipeline judges, XRAG
panel judges), so an answer cannot close its own section or pose as instructions.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from functools import cache
from pathlib import Path

from core.errors import ConfigError

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_DOC = re.compile(r"\A\s*<!--.*?-->\s*", re.S)
_MARKER = re.compile(r"\[\s*\[|\]\s*\]")
_SECTION = re.compile(r"\{\{#([a-zA-Z_][a-zA-Z0-9_]*)\}\}\n?(.*?)\{\{/\1\}\}\n?", re.S)


def new_nonce() -> str:
    """A fresh random marker code (12 hex digits) for one call."""
    return secrets.token_hex(6)


def neutralise(text: str, nonce: str = "") -> str:
    """``text`` with marker-like strings disarmed: ``[[``/``]]`` become ``[ (``/``) ]`` and the
    call's nonce, if it appears, is masked."""
    out = _MARKER.sub(lambda m: "[ (" if m.group(0)[0] == "[" else ") ]", text or "")
    if nonce:
        out = out.replace(nonce, "#" * len(nonce))
    return out


@cache
def load_prompt(name: str) -> str:
    """The body of ``prompts/<name>.md`` without its documentation comment."""
    path = PROMPTS_DIR / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"unknown prompt {name!r}: no file {path}")
    return _DOC.sub("", path.read_text(encoding="utf-8"), count=1)


def render_prompt(name: str, **values: object) -> str:
    """Fill every ``{{var}}`` of template ``name`` and keep each ``{{#var}}`` section only when
    ``var`` is not empty; missing or extra variables raise ConfigError."""
    template = load_prompt(name)
    needed = set(_PLACEHOLDER.findall(template)) | {m.group(1) for m in _SECTION.finditer(template)}
    missing, extra = needed - values.keys(), values.keys() - needed
    if missing or extra:
        raise ConfigError(
            f"prompt {name!r}: missing variables {sorted(missing)}, unexpected {sorted(extra)}"
        )
    kept = _SECTION.sub(lambda m: m.group(2) if values[m.group(1)] else "", template)
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), kept)


def prompt_hash(name: str) -> str:
    """A short stable hash of a template's text (stored as provenance with every use)."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:16]


def available_prompts() -> list[str]:
    """Names of all templates in ``prompts/``."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.md") if p.stem != "README")
