"""Gold labels, gold sources, and gold formed without the person being scored (leave-one-out).

Each person's label of an item is their effective label on the task's scale (side by side: the
canonical system order). A person who judged both orders of a pair with conflicting canonical
labels has *no* label on that item (neither counts), so labels never depend on the order rows
were stored in.

*Gold sources* are human raters an admin marked (:func:`mark_gold_source`; table
``gold_sources``, append-only, who and when kept), e.g. an imported expert panel.

The gold of an item, for a rater ``r`` being scored (``r = None``: nobody left out), is the first
of:

1. the item's adjudicated label (an adjudication wins over everything else), unless ``r`` is the
   adjudicator who decided it;
2. the label of the gold sources other than ``r`` that labelled the item, when they all agree
   (gold sources that disagree give no gold);
3. the majority label of the people other than ``r``: given by more than half of them and by
   **at least two** (one other person would make "gold" just that person's label: pairwise
   agreement, shown on its own). With two others that is their unanimous label.

So a person is never scored against a gold their own label helped form; for the same reason a
named rater that is the majority of a group of anonymous slots (:func:`derived_raters`) and those
slots are left out of each other's gold (:func:`leave_out_sets`), and such a derived rater never
votes in anyone's gold (:func:`derived_voters`: the slots' votes would count twice). The labels
of a revoked account an admin left out are not read (:func:`person_labels`). An auto-rater is scored
against the same leave-one-out golds as the people, on the same (person, item) pairs
(:func:`core.views.gold.gold_agreement`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from core.annotation.adjudication import settled
from core.annotation.identity import authorise, shell_admin
from core.annotation.task_registry import all_tasks
from core.annotation.tasks import human_labels
from core.corpus.evaluation_layouts import PRD_MAJORITY
from core.corpus.evaluation_layouts import majority as vote_majority
from core.corpus.evaluation_ratings import slot_group
from core.errors import InputError
from core.store.accounts import excluded_names
from core.store.connection import transaction
from core.store.gold_sources import (
    GoldAction,
    GoldSource,
    NewGoldSource,
    active_gold_sources,
    insert_gold_source_change,
)
from core.store.judgments import JudgmentStatus, human_raters
from core.store.row_locks import hold_name

if TYPE_CHECKING:
    from core.store.engine import Database

#: Fewest people other than the scored one whose (majority) label is gold.
MIN_OTHERS = 2
#: Fewest items with a slot majority on which a named rater must match it to count as derived.
MIN_ITEMS_DERIVED = 5
#: Raters derived from other humans' labels by their name (without ``human:``).
DERIVED_NAMES = frozenset({PRD_MAJORITY.removeprefix("human:")})


def person_labels(db: Database, task: str) -> dict[str, dict[str, str]]:
    """Person -> item -> label (``ok`` labels; conflicting labels of one person on one item:
    none). The labels of a revoked account an admin left out
    (:func:`core.store.accounts.excluded_names`) are not read."""
    found: dict[str, dict[str, set[str]]] = {}
    left_out = excluded_names(db)
    for r in human_labels(db, task):
        if not r["imported"] and r["annotator"] in left_out:
            continue
        # an ok label always has one
        if r["status"] == JudgmentStatus.OK and r["label"] is not None:
            found.setdefault(r["annotator"], {}).setdefault(r["item"], set()).add(r["label"])
    return {
        p: {item: next(iter(v)) for item, v in items.items() if len(v) == 1}
        for p, items in found.items()
    }


def gold_source_names(db: Database) -> set[str]:
    """Names (without ``human:``) of the current gold sources."""
    return {r.rater.removeprefix("human:") for r in active_gold_sources(db)}


def gold_for(
    labels: Mapping[str, Mapping[str, str]],
    adjudicated: Mapping[str, tuple[str, str]],
    sources: set[str],
    leave_out: str | frozenset[str] | None = None,
) -> dict[str, str]:
    """Item -> gold label for scoring ``leave_out`` (the module's three rules).

    ``labels``: person -> item -> label; ``adjudicated``: item -> (label, adjudicator);
    ``sources``: gold-source names; ``leave_out``: the person scored, or a set of names left out
    together (:func:`leave_out_sets`). A derived rater (:func:`derived_voters`) never votes: its
    label is the slots' own, counted once through them.
    """
    out = (
        frozenset()
        if leave_out is None
        else frozenset({leave_out})
        if isinstance(leave_out, str)
        else leave_out
    ) | derived_voters(labels)
    by_item: dict[str, dict[str, str]] = {}
    for person, items in labels.items():
        if person in out:
            continue
        for item, label in items.items():
            by_item.setdefault(item, {})[person] = label
    gold: dict[str, str] = {}
    for item, given in by_item.items():
        from_sources = {label for p, label in given.items() if p in sources}
        if from_sources:
            if len(from_sources) == 1:
                gold[item] = next(iter(from_sources))
            continue  # gold sources disagree: no gold from them, nor from the people
        top, votes = Counter(given.values()).most_common(1)[0]
        if votes >= MIN_OTHERS and 2 * votes > len(given):
            gold[item] = top
    for item, (label, adjudicator) in adjudicated.items():
        if adjudicator not in out:
            gold[item] = label
    return gold


def derived_raters(labels: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Named raters that are the majority of a slot group (e.g. PRD's ``crowd-majority`` of
    ``prd-crowd#1..3``): rater -> group. Taken as derived when, on every item where the group's
    slots have a strict majority (at least :data:`MIN_ITEMS_DERIVED` such items), the rater gave
    that label. Found from the labels, not from names."""
    groups: dict[str, dict[str, list[str]]] = {}
    for person, items in labels.items():
        group = slot_group(person)
        if group is not None:
            for item, label in items.items():
                groups.setdefault(group, {}).setdefault(item, []).append(label)
    out = {}
    for group, slot_labels in sorted(groups.items()):
        majority: dict[str, str] = {}
        for item, given in slot_labels.items():
            if (top := vote_majority(given)) is not None:
                majority[item] = top
        for person, mine in labels.items():
            if slot_group(person) is not None:
                continue
            shared = [i for i in majority if i in mine]
            if len(shared) >= MIN_ITEMS_DERIVED and all(mine[i] == majority[i] for i in shared):
                out[person] = group
    return out


def derived_voters(labels: Mapping[str, Mapping[str, str]]) -> frozenset[str]:
    """The raters of ``labels`` that are not annotators: the majority of a slot group found from
    the labels (:func:`derived_raters`), and PRD's ``crowd-majority`` by name
    (:data:`DERIVED_NAMES`). They never count as people: not in gold, overlap or the
    between-annotators kappa and alpha (their labels are the slots' labels again)."""
    return frozenset(derived_raters(labels)) | (DERIVED_NAMES & set(labels))


def leave_out_sets(labels: Mapping[str, Mapping[str, str]]) -> dict[str, frozenset[str]]:
    """Person -> the names left out of the gold they are scored against: themselves; for a slot,
    also the raters derived from its group; for a derived rater, also that group's slots (a
    majority that holds a person's own vote is not independent of it)."""
    derived = derived_raters(labels)
    out = {}
    for person in labels:
        group = slot_group(person)
        if group is not None:
            out[person] = frozenset({person, *(d for d, g in derived.items() if g == group)})
        elif person in derived:
            out[person] = frozenset(
                {person, *(p for p in labels if slot_group(p) == derived[person])}
            )
        else:
            out[person] = frozenset({person})
    return out


def gold_inputs(
    db: Database, task: str
) -> tuple[dict[str, dict[str, str]], dict[str, tuple[str, str]], set[str]]:
    """What :func:`gold_for` needs, read once: people's labels, adjudications, gold sources."""
    adjudicated = {i: (r.label, r.adjudicator) for i, r in settled(db, task).items()}
    return person_labels(db, task), adjudicated, gold_source_names(db)


def gold_labels(db: Database, task: str) -> dict[str, str]:
    """Item -> gold label with nobody left out."""
    return gold_for(*gold_inputs(db, task))


def _known_human(db: Database, rater: str) -> str:
    if not rater.startswith("human:") or not rater.removeprefix("human:").strip():
        raise InputError(f"a gold source is a human rater, human:NAME (not {rater!r})")
    name = rater.removeprefix("human:")
    if rater in human_raters(db) or any(
        r["annotator"] == name for task in all_tasks(db) for r in task.human_labels(db)
    ):
        return rater
    raise InputError(f"no labels from {rater!r}; nothing was stored")


def _record(db: Database, rater: str, add: bool, by: str) -> GoldSource:
    rater = _known_human(db, rater)
    current = rater.removeprefix("human:") in gold_source_names(db)
    if add and current:
        raise InputError(f"{rater} is already a gold source; nothing was stored")
    if not add and not current:
        raise InputError(f"{rater} is not a gold source; nothing was stored")
    action = GoldAction.ADD if add else GoldAction.REMOVE
    return insert_gold_source_change(db, NewGoldSource(rater=rater, action=action, marked_by=by))


def mark_gold_source(db: Database, who: object, rater: str, add: bool = True) -> GoldSource:
    """Make ``rater`` (``human:NAME``) a gold source (``add``) or stop it being one, as the
    signed-in ``who`` (admin once accounts exist). Returns the stored row; writes nothing on
    refusal."""
    with transaction(db):
        name = authorise(db, who, "admin").name
        hold_name(db, "gold_sources", rater)  # "already a gold source" holds until commit
        return _record(db, rater, add, name)


def mark_gold_source_as(db: Database, admin: str, rater: str, add: bool = True) -> GoldSource:
    """:func:`mark_gold_source` from the shell, recorded as ``admin``
    (:func:`core.annotation.identity.shell_admin`)."""
    return mark_gold_source(db, shell_admin(db, admin), rater, add)
