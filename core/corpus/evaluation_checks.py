"""Whole-file checks of imported ratings, before anything is stored (each refusal names the file
and line): no imported rater is an account, and no rater judged the same item twice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.corpus.evaluation_ratings import RatingKey, rating_key
from core.errors import InputError


def check_not_accounts(
    accounts: Iterable[str], ratings: Sequence[Mapping[str, Any]], source: str | Path
) -> None:
    """Refuse an imported ``human:NAME`` verdict where NAME is an account: imported raters are
    never accounts (it would count as that person's own label, and their Undo would withdraw it)."""
    names = set(accounts)
    for r in ratings:
        name = r["rater"].partition(":")[2]
        if r["rater_kind"] == "human" and name in names:
            raise InputError(
                f"imported rater {r['rater']!r} is the name of the account {name!r}: imported "
                "raters are never accounts; nothing imported (rename the rater in the file, or "
                f"pass --rater 'human:{name} (imported)' for rows without a rater)",
                path=str(source),
                line=r["line"],
                column="rater",
            )


def check_duplicates(ratings: Sequence[Mapping[str, Any]], source: str | Path) -> None:
    """Refuse a second verdict of one rater on one item (:func:`rating_key`), naming both lines."""
    seen: dict[RatingKey, int] = {}  # rating_key -> line
    for r in ratings:
        k = rating_key(r)
        if k in seen:
            raise InputError(
                f"second verdict of {r['rater']} on the same item (first on line {seen[k]})",
                path=str(source),
                line=r["line"],
            )
        seen[k] = r["line"]
