"""The Team page: per annotator done / skipped / remaining, speed, overlap, agreement; settings."""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

import pandas as pd

from core.annotation.adjudication import settled
from core.annotation.attention import attention_accuracy
from core.annotation.base import required_annotations
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.annotation.tasks import human_labels, next_items, task_items, team_labels
from core.corpus.evaluation_ratings import is_slot
from core.store.accounts import list_accounts
from core.store.gold_sources import active_gold_sources
from core.store.judgments import JudgmentStatus, RaterKind
from core.store.settings import SETTINGS, all_settings
from core.views.gold import gold_agreement

if TYPE_CHECKING:
    from core.store.engine import Database

#: Gaps longer than this between two labels are breaks, not time spent on an item.
MAX_GAP_S = 600.0


def _seconds_per_item(times: list[str]) -> float | None:
    stamps = sorted(datetime.fromisoformat(t) for t in times)
    gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:])]
    gaps = [g for g in gaps if 0 <= g <= MAX_GAP_S]
    return round(statistics.median(gaps), 1) if gaps else None


TEAM_COLUMNS = [
    "annotator",
    "done",
    "skipped",
    "remaining",
    "median_s",
    "overlap",
    "agree_others",
    "kappa_gold",
    "gold_note",
    "attention",
]


def team_table(db: Database, task: str = SIDE_BY_SIDE_TASK) -> pd.DataFrame:
    """One row per team member (with labels, or with an active account) for ``task``; the
    imported raters are in :func:`imported_raters`; anonymous slots
    (``NAME#k``, not people) are left out.

    ``done`` labels, ``skipped``, ``remaining`` (their queue), ``median_s`` (median seconds
    between consecutive labels, breaks over 10 minutes left out), ``overlap`` (share of the items
    they labelled that reached ``k`` labels), ``agree_others`` (share of their labels that match
    the other people's labels on the same items), ``kappa_gold`` (against gold),
    ``gold_note`` (why there is no kappa against gold) and ``attention`` (attention-check
    accuracy, "correct/checks", :func:`core.annotation.attention.attention_accuracy`; "" when
    they had none).
    """
    labels = team_labels(db, human_labels(db, task))[0]
    k = required_annotations(db)
    per_item: dict[str, dict[str, str | None]] = {}
    for r in labels:
        if r["status"] == JudgmentStatus.OK:
            per_item.setdefault(r["item"], {})[r["annotator"]] = r["label"]
    names = {r["annotator"] for r in labels if not is_slot(f"human:{r['annotator']}")} | {
        a.name for a in list_accounts(db) if a.revoked_at is None
    }
    gold = gold_agreement(db, task, n_boot=200).set_index("rater")
    n_items = len(task_items(db, task))
    checks = attention_accuracy(labels, settled(db, task))
    out = []
    for name in sorted(names):
        mine = [r for r in labels if r["annotator"] == name]
        done_items = [r["item"] for r in mine if r["status"] == JudgmentStatus.OK]
        same = total = 0
        for item in done_items:
            for other, label in per_item.get(item, {}).items():
                if other != name:
                    total += 1
                    same += label == per_item[item][name]
        g = (
            gold.loc[name]
            if name in gold.index and gold.loc[name]["kind"] == RaterKind.HUMAN
            else None
        )
        out.append(
            {
                "annotator": name,
                "done": len(done_items),
                "skipped": sum(r["status"] == JudgmentStatus.SKIPPED for r in mine),
                "remaining": len(next_items(db, name, task, limit=n_items or 1)),
                "median_s": _seconds_per_item([r["created_at"] for r in mine]),
                "overlap": (
                    round(sum(len(per_item[i]) >= k for i in done_items) / len(done_items), 2)
                    if done_items
                    else None
                ),
                "agree_others": round(same / total, 2) if total else None,
                "kappa_gold": None if g is None or pd.isna(g["kappa"]) else float(g["kappa"]),
                "gold_note": "" if g is None else str(g["note"]),
                "attention": "{}/{}".format(*checks[name]) if name in checks else "",
            }
        )
    return pd.DataFrame(out, columns=TEAM_COLUMNS)


def imported_raters(db: Database, task: str = SIDE_BY_SIDE_TASK) -> pd.DataFrame:
    """One row per imported rater (labels read from a file: data, not team members), whatever
    their names: ``rater``, ``labels`` (effective labels on ``task``'s items),
    ``anonymous_slot`` (``NAME#k``: a position in a crowd, not a person) and ``gold_source``."""
    counts: dict[str, int] = {}
    for r in team_labels(db, human_labels(db, task))[1]:
        if r["status"] == JudgmentStatus.OK:
            counts[r["annotator"]] = counts.get(r["annotator"], 0) + 1
    sources = {r.rater for r in active_gold_sources(db)}
    return pd.DataFrame(
        [
            {
                "rater": name,
                "labels": n,
                "anonymous_slot": is_slot(f"human:{name}"),
                "gold_source": f"human:{name}" in sources,
            }
            for name, n in sorted(counts.items())
        ],
        columns=["rater", "labels", "anonymous_slot", "gold_source"],
    )


class Overlap(TypedDict):
    """How far the team got on a task (:func:`overlap_summary`)."""

    k: int  # team labels an item needs
    started: int  # items with a team label
    complete: int  # items with k team labels


class RevokedAccount(TypedDict):
    """A revoked account and whether an admin left its labels out."""

    name: str
    left_out: bool


class TeamView(TypedDict):
    """What the Team page shows for one task (:func:`team_view`)."""

    table: pd.DataFrame
    imported: pd.DataFrame
    overlap: Overlap
    revoked: list[RevokedAccount]
    settings: dict[str, int | str]
    descriptions: dict[str, str]
    kinds: dict[str, str]
    choices: dict[str, list[str]]


def overlap_summary(db: Database, task: str = SIDE_BY_SIDE_TASK) -> Overlap:
    """Items started, items with ``k`` team labels (complete), and ``k``."""
    k = required_annotations(db)
    counts: dict[str, set[str]] = {}
    for r in team_labels(db, human_labels(db, task))[0]:
        if r["status"] == JudgmentStatus.OK:
            counts.setdefault(r["item"], set()).add(r["annotator"])
    return {
        "k": k,
        "started": len(counts),
        "complete": sum(len(v) >= k for v in counts.values()),
    }


def team_view(db: Database, task: str = SIDE_BY_SIDE_TASK) -> TeamView:
    """Everything the Team page shows for ``task``; ``revoked``: the revoked accounts, each with
    whether an admin left its labels out (``left_out``)."""
    return {
        "table": team_table(db, task),
        "imported": imported_raters(db, task),
        "overlap": overlap_summary(db, task),
        "revoked": [
            {"name": a.name, "left_out": a.labels_excluded_at is not None}
            for a in list_accounts(db)
            if a.revoked_at is not None
        ],
        "settings": all_settings(db),
        "descriptions": {key: f"{s.meaning} ({s.value_range})" for key, s in SETTINGS.items()},
        "kinds": {key: s.kind for key, s in SETTINGS.items()},
        "choices": {key: list(s.choices) for key, s in SETTINGS.items()},
    }
