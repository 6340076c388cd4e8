"""Prompt templates: one file per prompt in ``prompts/``, loaded and rendered by one helper.

A template is Markdown text with ``{{name}}`` placeholders and a leading comment block
(``<!-- ... -->``) that documents it; the comment is not sent to the model. Rendering fails on a
missing or an unused variable, so a template and its caller cannot drift apart silently.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from core.errors import ConfigError

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_DOC = re.compile(r"\A\s*<!--.*?-->\s*", re.S)


@cache
def load_prompt(name: str) -> str:
    """The body of ``prompts/<name>.md`` without its documentation comment."""
    path = PROMPTS_DIR / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"unknown prompt {name!r}: no file {path}")
    return _DOC.sub("", path.read_text(encoding="utf-8"), count=1)


def prompt_variables(name: str) -> set[str]:
    """The placeholder names a template uses."""
    return set(_PLACEHOLDER.findall(load_prompt(name)))


def render_prompt(name: str, **values: object) -> str:
    """Fill every ``{{var}}`` of template ``name``; missing or extra variables raise ConfigError."""
    template = load_prompt(name)
    needed = set(_PLACEHOLDER.findall(template))
    missing, extra = needed - values.keys(), values.keys() - needed
    if missing or extra:
        raise ConfigError(
            f"prompt {name!r}: missing variables {sorted(missing)}, unexpected {sorted(extra)}"
        )
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def prompt_hash(name: str) -> str:
    """A short stable hash of a template's text (stored as provenance with every use)."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:16]


def available_prompts() -> list[str]:
    """Names of all templates in ``prompts/``."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.md") if p.stem != "README")
