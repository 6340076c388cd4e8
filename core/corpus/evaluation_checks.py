"""Whole-file checks of imported ratings, before anything is stored (each refusal names the file
and line): no imported rater is an account, no rater judged the same item twice, and no
pairwise verdict compares a system with itself.

:func:`uses_account_name` is the one comparison of an imported rater with an account, used both
ways: an import naming an account is refused here, an account taking a name imported labels use
in :func:`core.annotation.identity.account_name`."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.corpus.evaluation_ratings import RatingKey, rating_key
from core.corpus.names import normal_form
from core.errors import InputError
from core.store.judgments import JudgmentKind, RaterKind


def uses_account_name(rater: str, account: str) -> bool:
    """Whether the rater ``rater`` (``human:NAME``) is the person ``account`` once both are in
    :func:`core.corpus.names.normal_form` (NFC, trimmed)."""
    kind, _, name = rater.partition(":")
    return kind == RaterKind.HUMAN and normal_form(name) == normal_form(account)


def check_not_accounts(
    accounts: Iterable[str], ratings: Sequence[Mapping[str, Any]], source: str | Path
) -> None:
    """Refuse an imported ``human:NAME`` verdict where NAME is an account: imported raters are
    never accounts (it would count as that person's own label, and their Undo would withdraw it)."""
    names = {normal_form(a): a for a in accounts}
    for r in ratings:
        name = names.get(normal_form(r["rater"].partition(":")[2]), "")
        if r["rater_kind"] == RaterKind.HUMAN and name and uses_account_name(r["rater"], name):
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


def check_distinct_systems(ratings: Sequence[Mapping[str, Any]], source: str | Path) -> None:
    """Refuse a pairwise verdict (a battle) of a system against itself, in every layout; the names
    are compared as stored (NFC, trimmed), so two spellings of one name are the same system."""
    for r in ratings:
        if r.get("kind") != JudgmentKind.PAIRWISE:
            continue
        a, b = (unicodedata.normalize("NFC", str(r[k])).strip() for k in ("system_a", "system_b"))
        if a == b:
            raise InputError(
                f"a verdict compares {a!r} with itself (system_a and system_b are the same)",
                path=str(source),
                line=r["line"],
            )
