"""XRAG pairing rule, pure (no database): title named entities, publication dates and the
candidate pairs of related articles.

Two English articles are related when their titles share at least ``min_shared`` named entities
and they were published at most ``max_days`` days apart. Title entities are maximal runs of
capitalised, non-function-word tokens (a number directly after such a run belongs to it:
"Super Bowl 50"), compared case-insensitively.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from itertools import combinations
from typing import Any, TypedDict

from core.errors import ConfigError

MIN_SHARED = 2
MAX_DAYS = 14


class DatedArticle(TypedDict):
    """What the pairing rule reads of an article: its id, title and publication date."""

    id: str
    title: str
    published: date


_TOKEN = re.compile(r"[^\W_][\w'’.-]*", re.U)
FUNCTION_WORDS = frozenset(
    """
a an the and or but of in on at to for from by with as after before over under into about
against between during says say said is are was were be will would can could may might
how why what when where who which this that these those its it his her their our your my
vs v not no up down out off than then more most less first last
""".split()
)


def parse_date(value: object) -> date:
    """An ISO date (``YYYY-MM-DD``, optionally followed by a time) as a ``date``."""
    text = str(value or "").strip()
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise ValueError(f"published date {text!r} is not an ISO date (YYYY-MM-DD)") from None


def title_entities(title: str) -> set[str]:
    """Named entities of a title: capitalised runs, function words and lower-case words split."""
    found: set[str] = set()
    run: list[str] = []
    for tok in _TOKEN.findall(title.replace("_", " ")):
        word = tok.strip(".'’-")
        if not word:
            continue
        if word.lower() not in FUNCTION_WORDS and (word[0].isupper() or (word.isdigit() and run)):
            run.append(word)
            continue
        if run:
            found.add(" ".join(run).lower())
        run = []
    if run:
        found.add(" ".join(run).lower())
    return found


def candidate_pairs(
    articles: Sequence[DatedArticle], *, min_shared: int = MIN_SHARED, max_days: int = MAX_DAYS
) -> list[dict[str, Any]]:
    """Pairs of articles sharing >= ``min_shared`` title entities within ``max_days`` days.

    ``article_a`` is the earlier article (ties: smaller id). Candidates come from an inverted
    index entity -> articles, so only articles sharing an entity are compared.
    """
    if min_shared < 1 or max_days < 0:
        raise ConfigError("min_shared must be >= 1 and max_days >= 0")
    ents = {a["id"]: title_entities(a["title"]) for a in articles}
    by_id = {a["id"]: a for a in articles}
    index: dict[str, list[str]] = defaultdict(list)
    for doc_id, found in ents.items():
        for e in found:
            index[e].append(doc_id)
    seen: set[tuple[str, str]] = set()
    pairs = []
    for ids in index.values():
        for x, y in combinations(sorted(ids), 2):
            if (x, y) in seen:
                continue
            seen.add((x, y))
            shared = ents[x] & ents[y]
            days = abs((by_id[x]["published"] - by_id[y]["published"]).days)
            if len(shared) >= min_shared and days <= max_days:
                a, b = sorted((by_id[x], by_id[y]), key=lambda r: (r["published"], r["id"]))
                pairs.append(
                    {
                        "article_a": a["id"],
                        "article_b": b["id"],
                        "shared_entities": sorted(shared),
                        "days_apart": days,
                    }
                )
    return sorted(pairs, key=lambda p: (p["article_a"], p["article_b"]))
