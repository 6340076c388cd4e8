"""LLM-assisted alias merging of extracted entities (prompt ``prompts/merge_aliases.md``).

String rules (:mod:`core.generation.entities`) cannot tell that "M. Madeleine" and "Jean Valjean" name one
person. :func:`llm_merge_groups` shows a model the top entities, each with an example sentence,
and reads back groups of names for the same referent (``{"groups": [[name, ...], ...]}``);
:func:`apply_merge_groups` unions those groups and re-ranks by mention count. A reply that cannot
be parsed raises ValueError (the caller keeps the string merges and notes the failure).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from core.generation.entities import _UnionFind
from core.generation.names import Entity
from core.llm.engine import complete, preflight
from core.llm.prompts import render_prompt
from core.llm.reply_json import json_values
from core.llm.types import LLMRequest

if TYPE_CHECKING:
    from core.store.engine import Database


def apply_merge_groups(entities: list[Entity], groups: list[list[str]]) -> list[Entity]:
    """Merge entities named together in a group (names not found are ignored); re-rank."""

    index = {e.name: i for i, e in enumerate(entities)}
    uf = _UnionFind()
    for group in groups:
        ids = [str(index[n]) for n in group if n in index]
        for other in ids[1:]:
            uf.union(other, ids[0])
    merged: dict[str, list[Entity]] = defaultdict(list)
    for i, e in enumerate(entities):
        merged[uf.find(str(i))].append(e)
    out: list[Entity] = []
    for parts in merged.values():
        parts.sort(key=lambda e: -e.n_mentions)
        head = parts[0]
        aliases = list(
            dict.fromkeys(a for p in parts for a in [p.name, *p.aliases] if a != head.name)
        )
        mentions = sorted((m for p in parts for m in p.mentions), key=lambda m: m.start)
        out.append(Entity(name=head.name, aliases=aliases, label=head.label, mentions=mentions))
    out.sort(key=lambda e: (-e.n_mentions, e.name))
    return out


def _reply_json(text: str) -> object:
    """The first JSON object in a reply (else the first list; fenced or bare); raises ValueError
    if none."""
    values = json_values(text)
    for kind in (dict, list):
        found = next((v for v in values if isinstance(v, kind)), None)
        if found is not None:
            return found
    raise ValueError("no JSON object or list in the reply")


def parse_merge_groups(text: str, names: set[str]) -> list[list[str]]:
    """Groups from ``{"groups": [[name, ...], ...]}`` (or a bare list of lists).

    Names not in ``names`` are dropped; groups of fewer than two known names are ignored.
    Raises ValueError when the reply has no usable structure.
    """
    data = _reply_json(text)
    groups = data.get("groups") if isinstance(data, dict) else data
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise ValueError('expected {"groups": [[name, ...], ...]}')
    out = []
    for group in groups:
        known = list(dict.fromkeys(str(n) for n in group if str(n) in names))
        if len(known) >= 2:
            out.append(known)
    return out


def llm_merge_groups(
    db: Database,
    text: str,
    entities: list[Entity],
    model: str,
    run_id: str | None = None,
) -> list[list[str]]:
    """Ask ``model`` (prompt ``merge_aliases``) which of ``entities`` name the same referent.

    Raises ValueError (with the raw reply) when the reply cannot be parsed.
    """

    lines = []
    for e in entities:
        m = e.mentions[len(e.mentions) // 2]
        snippet = " ".join(text[max(0, m.start - 80) : m.end + 80].split())
        also = f"; also written {', '.join(e.aliases[:6])}" if e.aliases else ""
        lines.append(f'- {e.name} ({e.n_mentions} mentions{also}). Example: "...{snippet}..."')
    prompt = render_prompt("merge_aliases", entities="\n".join(lines))
    request = LLMRequest(
        model=model,
        prompt=prompt,
        max_tokens=1024,
        task="merge_aliases",
        fields={"entities": [e.name for e in entities]},
        purpose="entity alias merging",
    )
    reply = complete(db, request, run_id=run_id)
    try:
        return parse_merge_groups(reply.text, {e.name for e in entities})
    except ValueError as exc:
        raise ValueError(f"{exc}; raw reply: {reply.text[:500]!r}") from None


def check_merge_model(model: str) -> None:
    """Raise (ConfigError and kin) before anything is written when ``model`` cannot merge
    aliases: unknown provider or baseline, missing key, or a baseline without this task."""

    preflight(
        [
            LLMRequest(
                model=model,
                prompt="",
                max_tokens=1024,
                task="merge_aliases",
                fields={"entities": []},
                purpose="entity alias merging",
            )
        ]
    )
