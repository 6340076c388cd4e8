"""Browse, Agreement and Review stay blind: what a viewer may not see yet of one question.

An annotator sees other people's labels and the systems' names of an item only once they have
finished it, or when it will never reach them (it is complete without them). So for every item
of the question still in the viewer's queue (:func:`hidden_items`; once accounts exist, a viewer
who is not signed in has an empty history, so every open item is theirs), :func:`blind_detail`
removes the other
people's labels, every verdict on that side-by-side pair (auto-raters' too: they name the
winner), and replaces the systems' names of the question's answers by ``Answer 1``, ``Answer 2``,
... . Adjudicators and admins see everything. In open mode (no accounts) anyone may sign in
under any name, so only a viewer signed in by name is kept blind (to their own queue), and a
viewer not signed in sees everything (browsing imported evaluations needs no sign-in).

The same rule holds on every page an annotator reaches: Agreement's "Two raters in detail"
(:func:`agreement_detail`) leaves out the pairs still in the viewer's queue and hides the systems'
names of their questions (absolute verdicts: every question with an item of any task in the
queue, :func:`open_questions`), and the Review page (:func:`review_view`, also through a
``?q=`` link) shows only the viewer's own review of a question still in their review queue.
The Leaderboard offers a blind viewer no colleague's verdicts alone (:func:`pickable_raters`): a
ranking of one person's few verdicts would show their labels on items in the viewer's queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from core.annotation.base import team_names
from core.annotation.disputes import dispute_items, dispute_queue
from core.annotation.pairwise import pair_key, split_pair_key, verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.task_registry import all_tasks
from core.store.accounts import account_names
from core.store.disputes import question_disputes
from core.store.judgments import JudgmentKind
from core.store.questions import all_question_ids
from core.views.agreement_pairs import unit_key
from core.views.figures import RaterPairView, rater_pair_view
from core.views.judgments import BrowseDetail, browse_detail
from core.views.review import question_detail
from core.views.review_records import QuestionDetail

if TYPE_CHECKING:
    from core.store.engine import Database

#: What a question's status (the majority of the reviews' decisions) reads while hidden.
HIDDEN_STATUS = "hidden until you have reviewed it"
#: Roles that see every label and name (they settle disagreements).
SEE_ALL = ("adjudicator", "admin")


def sees_all(role: str | None) -> bool:
    """Whether a viewer of ``role`` sees every label and name (adjudicators and admins)."""
    return role in SEE_ALL


def _blind(db: Database, viewer: str | None, role: str | None) -> bool:
    """Whether ``viewer`` of ``role`` is kept blind (the module's rule): not an adjudicator or
    admin, and signed in or accounts exist."""
    return not (sees_all(role) or (viewer is None and team_names(db) is None))


def pickable_raters(
    db: Database, raters: list[str], viewer: str | None, role: str | None
) -> list[str]:
    """``raters`` that ``viewer`` of ``role`` may pick one by one: a blind viewer (the module's
    rule) not another account's ``human:NAME``; their own, auto-raters and imported raters stay."""
    if not _blind(db, viewer, role):
        return raters
    peers = {f"human:{n}" for n in account_names(db)} - {f"human:{viewer}"}
    return [r for r in raters if r not in peers]


def _review_open(db: Database, question_id: str, name: str) -> bool:
    """Whether the review of ``question_id`` is still in ``name``'s review queue."""
    return question_id in set(review_queue(db, name, all_question_ids(db)))


class HiddenItems(TypedDict):
    """What of one question is still in a viewer's queues (:func:`hidden_items`)."""

    pairs: set[str]  # side-by-side keys
    review: bool  # the question's review
    disputes: set[int]  # dispute ids


class AgreementDetail(RaterPairView):
    """:class:`core.views.figures.RaterPairView` as a viewer may see it (:func:`agreement_detail`)."""

    hidden: int  # the two raters' shared units left out


class ReviewView(QuestionDetail):
    """:class:`core.views.review.QuestionDetail` as a viewer may see it (:func:`review_view`)."""

    hidden_note: str  # what was held back ("" when nothing)


class BlindDetail(BrowseDetail):
    """:class:`core.views.judgments.BrowseDetail` as a viewer may see it (:func:`blind_detail`)."""

    hidden_note: str  # what was held back ("" when nothing)


class BrowseView(BlindDetail):
    """Browse's question (:func:`browse_view`)."""

    hidden_pairs: tuple[str, ...]  # the side-by-side keys held back (for the verdict grid)


def hidden_items(
    db: Database, question_id: str, viewer: str | None, role: str | None
) -> HiddenItems:
    """The items of ``question_id`` still in ``viewer``'s queues: ``pairs`` (side-by-side
    keys), ``review`` (the question itself), ``disputes`` (dispute ids). Nothing for
    adjudicators and admins, nor for a viewer not signed in while no account exists."""
    if not _blind(db, viewer, role):
        return {"pairs": set(), "review": False, "disputes": set()}
    name = viewer or ""
    pairs = {k for k in verdict_queue(db, name) if split_pair_key(k)[0] == question_id}
    mine = {d.id for d in question_disputes(db, question_id)}
    disputes = set(dispute_queue(db, name, dispute_items(db))) & mine if mine else set()
    return {"pairs": pairs, "review": _review_open(db, question_id, name), "disputes": disputes}


def open_questions(db: Database, viewer: str | None, role: str | None) -> frozenset[str]:
    """The questions with an item of any task still in ``viewer``'s queue (empty for whoever
    sees everything): where another person's label, or a verdict naming systems, would show
    ``viewer`` what they have yet to decide."""
    if not _blind(db, viewer, role):
        return frozenset()
    name = viewer or ""
    found: set[str] = set()
    for task in all_tasks(db):
        keys = task.queue(db, name, task.items(db))
        found |= {str(f["question_id"]) for f in task.item_fields(db, keys)}
    return frozenset(found)


def agreement_detail(
    db: Database, kind: str, rater_a: str, rater_b: str, viewer: str | None, role: str | None
) -> AgreementDetail:
    """Agreement's "Two raters in detail" (:func:`core.views.figures.rater_pair_view`) as
    ``viewer`` may see it, by the Browse rule: the side-by-side pairs still in their queue left
    out of every figure and table, and the systems' names of a question with such a pair
    hidden; absolute verdicts of a question with an item of any task in their queue
    (:func:`open_questions`) left out. ``hidden``: how many of the two raters' shared units were
    left out."""
    if not _blind(db, viewer, role):
        return {**rater_pair_view(db, kind, rater_a, rater_b), "hidden": 0}
    if kind == JudgmentKind.PAIRWISE:
        pairs = [split_pair_key(k) for k in verdict_queue(db, viewer or "")]
        shown = rater_pair_view(
            db,
            kind,
            rater_a,
            rater_b,
            hide_items={unit_key(*p) for p in pairs},
            hide_names={p[0] for p in pairs},
        )
    else:
        hide = open_questions(db, viewer, role)
        shown = rater_pair_view(db, kind, rater_a, rater_b, hide_questions=hide)
    everything = rater_pair_view(db, kind, rater_a, rater_b)
    return {**shown, "hidden": everything["overall"]["n"] - shown["overall"]["n"]}


def review_view(
    db: Database, question_id: str, viewer: str | None, role: str | None
) -> ReviewView | None:
    """:func:`core.views.review.question_detail` as ``viewer`` may see it on the Review page: while
    the question's review is in their queue, only their own review, no agreement between
    reviewers and no status (the majority of the others' decisions); ``hidden_note`` says so."""
    detail = question_detail(db, question_id)
    if detail is None:
        return None
    if not _blind(db, viewer, role):
        return {**detail, "hidden_note": ""}
    if not _review_open(db, question_id, viewer or ""):
        return {**detail, "hidden_note": ""}
    mine = [r for r in detail["reviews"] if r["annotator"] == viewer]
    return {
        **detail,
        "question": {**detail["question"], "status": HIDDEN_STATUS},
        "reviews": mine,
        "review_agreement": None,
        "hidden_note": (
            "Still in your queue: other people's reviews of this question and its status stay "
            "hidden until you have reviewed it (adjudicators and admins see everything)."
        )
        if len(mine) < len(detail["reviews"])
        else "",
    }


def blind_detail(detail: BrowseDetail, hidden: HiddenItems, viewer: str | None) -> BlindDetail:
    """``detail`` (:func:`core.views.judgments.browse_detail`) as ``viewer`` may see it, with
    ``hidden_note`` (what was held back, "" when nothing)."""
    pairs, me = hidden["pairs"], viewer or ""
    out: BlindDetail = {**detail, "hidden_note": ""}
    qid = detail["question"]["id"]

    def keep(kind: str, system_a: str | None, system_b: str | None) -> bool:
        """Not a verdict on a pair still in the viewer's queue (a person's or an auto-rater's:
        the viewer has none there, or the pair would be done)."""
        return (
            kind != JudgmentKind.PAIRWISE
            or pair_key(qid, system_a or "", system_b or "") not in pairs  # pairwise: both named
        )

    out["pairwise"] = [
        j for j in detail["pairwise"] if keep(j["kind"], j["system_a"], j["system_b"])
    ]
    out["human_verdicts"] = [
        j for j in detail["human_verdicts"] if keep(j["kind"], j["system_a"], j["system_b"])
    ]
    if hidden["review"]:
        out["reviews"] = [r for r in detail["reviews"] if r["annotator"] == me]
        out["question"] = {**detail["question"], "status": HIDDEN_STATUS}
    out["resolutions"] = [
        r
        for r in detail["resolutions"]
        if r["dispute_id"] not in hidden["disputes"] or r["annotator"] == me
    ]
    if pairs:
        names = {a["system"]: f"Answer {n}" for n, a in enumerate(detail["answers"], start=1)}
        out["answers"] = [{**a, "system": names[a["system"]]} for a in detail["answers"]]
        out["disputes"] = [{**d, "system": names.get(d["system"], "")} for d in detail["disputes"]]
        out["resolutions"] = [
            {**r, "system": names.get(r["system"], "")} for r in out["resolutions"]
        ]
    held = []
    if pairs:
        held.append(f"{len(pairs)} side-by-side pair(s)")
    if hidden["review"]:
        held.append("the review")
    if hidden["disputes"]:
        held.append(f"{len(hidden['disputes'])} dispute(s)")
    out["hidden_note"] = (
        "Still in your queue: "
        + ", ".join(held)
        + ". Other people's labels on them, the verdicts on those pairs and the systems' names "
        "stay hidden until you have done them (adjudicators and admins see everything)."
        if held
        else ""
    )
    return out


def browse_view(
    db: Database, question_id: str, viewer: str | None, role: str | None
) -> BrowseView | None:
    """:func:`core.views.judgments.browse_detail` of ``question_id`` as ``viewer`` (a name, or
    None when not signed in) of ``role`` may see it (:func:`blind_detail`); None when there is
    no such question. ``hidden_pairs``: the side-by-side keys held back (for the verdict grid)."""
    detail = browse_detail(db, question_id)
    if detail is None:
        return None
    hidden = hidden_items(db, question_id, viewer, role)
    return {**blind_detail(detail, hidden, viewer), "hidden_pairs": tuple(sorted(hidden["pairs"]))}
