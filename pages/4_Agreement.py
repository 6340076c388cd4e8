"""Agreement: human vs auto-raters and auto vs auto; kappa with intervals; consistency; and each
task imported on its own scale (categories, ordered ratings, label sets): kappa, weighted kappa,
Krippendorff's alpha, Gwet's AC1 and the labels' prevalence, against leave-one-out gold.

Four tabs; only the open one runs (``st.tabs`` with ``bind="query-params"``: the tab is in the
URL as ``?section=...``, so it survives a reload and can be linked).
"""

import streamlit as st

from app_support import caching, connection, frame, render, signin, warmup
from core.views.agreement_pairs import UNIT_RULE
from core.views.agreement_text import (
    COHEN_VS_FLEISS,
    default_pair,
    kappa_metric,
    readable_agreement,
)
from core.views.agreement_view import auto_vs_crowd, crowd_overview, slot_agreement
from core.views.blind import agreement_detail
from core.views.figures import (
    AgreementOverview,
    agreement_overview,
    confusion_figure,
    consistency_view,
)
from core.views.numbers import num
from core.views.scale_agreement import imported_tasks, task_agreement
from core.views.sections import PAGE_SECTIONS
from core.views.text import escape_markdown, md
from core.views.vocabulary import JudgmentKind

frame.setup("Agreement")
who = signin.sign_in_sidebar()
viewer, role = (who.name, who.role) if who else (None, None)

SECTIONS = PAGE_SECTIONS["Agreement"]
KINDS = ["pairwise", "absolute"]


# ------------------------------------------------------------------------------------------
# Imported evaluations: an auto-rater against a crowd (e.g. GPT-4 vs the PRD human majority)
# ------------------------------------------------------------------------------------------


def crowd_section() -> None:
    """Auto-rater vs a crowd rater (with and without ties) and the crowd slots' Fleiss' kappa."""
    with connection.database() as db:
        overview = caching.cached_judgments(db, crowd_overview)
    if overview is None:
        st.info(
            "No imported crowd evaluations (human verdicts from outside the app, e.g. PRD's "
            "crowd ratings): import them with `python -m core import-judgments ...`."
        )
        return
    opts = overview["options"]
    if overview["imported"]:
        st.markdown(
            f"**Imported human raters** ({md(len(overview['imported']))}): "
            + ", ".join(escape_markdown(r) for r in overview["imported"])
        )
    st.caption(
        f"{UNIT_RULE} Kappa: Cohen's, with a 95% large-sample interval (from 20 items on). Without ties: "
        "items where either side said Equal left out."
    )
    vs = overview["vs"]
    if vs is not None and opts["crowd"]:
        c = st.columns(2)
        auto = c[0].selectbox(
            "Auto-rater", opts["auto"], index=opts["auto"].index(vs["auto"]), key="crowd_auto"
        )
        crowd = c[1].selectbox(
            "Crowd verdict",
            opts["crowd"],
            index=opts["crowd"].index(vs["crowd"]),
            key="crowd_h",
        )
        if (auto, crowd) != (vs["auto"], vs["crowd"]):
            with connection.database() as db:
                vs = caching.cached_judgments(db, auto_vs_crowd, auto, crowd)
        for label, res in (
            ("With ties", vs["with_ties"]),
            ("Without ties", vs["without_ties"]),
        ):
            m = st.columns(3)
            m[0].metric(f"{md(label)}: items", res["n"])
            m[1].metric(
                "Percent agreement",
                num(res["agreement"], ".1%", "-"),
            )
            value, note = kappa_metric(res["kappa"], res["kappa_low"], res["kappa_high"], res["n"])
            m[2].metric(
                "Cohen's kappa", value, help="Agreement beyond chance (1 = full, 0 = chance)"
            )
            m[2].caption(md(note))
        st.markdown(f"**Confusion** (rows {md(auto)}, columns {md(crowd)})")
        st.dataframe(vs["confusion"], width="stretch")
    if opts["slots"]:
        prefix = st.selectbox("Anonymous human slots", opts["slots"], key="crowd_slots")
        with connection.database() as db:
            sl = caching.cached_judgments(db, slot_agreement, prefix)
        m = st.columns(3)
        m[0].metric("Items with 2+ ratings", f"{sl['items']:,}")
        fk, ka = sl["fleiss_kappa"], sl["krippendorff_alpha"]
        m[1].metric("Fleiss' kappa (slots)", num(fk, ".3f", "-"))
        m[2].metric("Krippendorff's alpha (slots)", num(ka, ".3f", "-"))
        st.caption(
            f"{md(sl['slots'])} slots ({md(prefix)}1, {md(prefix)}2, ...) hold anonymous "
            "ratings: a slot is not a person, so only identity-free statistics are shown for "
            "them (no per-slot Cohen's kappa, here or in the rater pairs tab)."
        )


def pairs_and_gold(data: AgreementOverview) -> None:
    """Every rater pair's Cohen's kappa, Fleiss' kappa and Krippendorff's alpha per group, and
    each person and auto-rater against gold."""
    st.caption(
        f"{UNIT_RULE} Cohen's kappa with its 95% large-sample interval in brackets (from 20 items on)."
    )
    if len(data["table"]):
        st.dataframe(readable_agreement(data["table"]), hide_index=True, width="stretch")
    else:
        names = ", ".join(escape_markdown(r) for r in data["raters"])
        if len(data["raters"]) == 1:
            why = f"Only one rater ({names}) has verdicts of this kind"
        else:
            why = (
                f"No two of the {len(data['raters'])} raters ({names}) have judged the same "
                "item (they judged different questions or systems)"
            )
        st.info(
            f"{why}, so there is no pair to compare yet. Give your own verdicts on the "
            "**Side by side** page: they are compared with the auto-raters' here, live. Or "
            "switch to the absolute judgments above."
        )
    c = st.columns(2)
    for col, (label, res) in zip(
        c, (("Between annotators", data["humans"]), ("Between auto-raters", data["autos"]))
    ):
        with col:
            st.markdown(
                f"**{md(label)}**: {md(res['raters'])} raters, {md(res['items'])} items with 2+ "
                "labels"
            )
            fk, ka = res["fleiss_kappa"], res["krippendorff_alpha"]
            m = st.columns(2)
            m[0].metric("Fleiss' kappa", num(fk, ".3f", "-"))
            m[1].metric("Krippendorff's alpha", num(ka, ".3f", "-"))
    with st.expander("Why Cohen's and Fleiss' kappa differ for the same people"):
        st.markdown(COHEN_VS_FLEISS)
    st.divider()
    with connection.database() as db:
        render.gold_block(db, warmup.GOLD_TASK)


def two_raters(data: AgreementOverview, kind: str) -> None:
    """Two raters' common items: agreement, confusion, by system pair, the disagreements."""
    raters = data["raters"]
    if len(raters) < 2:
        st.info("Only one rater has verdicts of this kind: there is no pair to look at.")
        return
    table = data["table"]
    shared = dict(zip(zip(table["rater_a"], table["rater_b"]), table["n"]))
    pick_a, pick_b = default_pair(raters, shared)
    c = st.columns(2)
    ra = c[0].selectbox("Rater A", raters, index=raters.index(pick_a))
    others = [r for r in raters if r != ra]
    rb = c[1].selectbox("Rater B", others, index=others.index(pick_b) if pick_b in others else 0)
    with connection.database() as db:
        pv = caching.cached_view(db, agreement_detail, kind, ra, rb, viewer, role)
    st.caption(UNIT_RULE)
    if pv["hidden"]:
        st.info(
            f"{md(pv['hidden'])} shared item(s) left out: their questions are still in your "
            "queue, so other people's labels on them stay hidden until you have done them "
            "(adjudicators and admins see everything)."
        )
    ov = pv["overall"]
    if ov["n"] == 0:
        st.info("These two raters share no item you may see.")
        return
    m = st.columns(3)
    m[0].metric("Items in common", ov["n"])
    m[1].metric("Percent agreement", f"{ov['agreement']:.1%}")
    value, note = kappa_metric(ov["kappa"], ov["kappa_low"], ov["kappa_high"], ov["n"])
    m[2].metric(
        "Cohen's kappa",
        value,
        help="Agreement beyond chance (1 = full, 0 = chance); 95% large-sample interval "
        "under it (from 20 common items on).",
    )
    m[2].caption(md(note))
    st.plotly_chart(confusion_figure(pv["both"], ra, rb), width="stretch")
    st.markdown("**By system pair**")
    st.dataframe(readable_agreement(pv["by_pair"]), hide_index=True, width="stretch")
    st.markdown(f"**Disagreements ({len(pv['disagreements'])})** - select a row to open it")
    event = st.dataframe(
        pv["disagreements"],
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="disagree_table",
    )
    picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if picked:
        qid = pv["disagreements"].iloc[picked[0]]["question_id"]
        if st.button(f"Open question {md(qid)} in Browse"):
            # Browse's own deep link (?q=): the query is replaced, not cleared, since clearing
            # it would drop the tab's bound ?section= (Streamlit refuses that)
            st.switch_page("pages/6_Browse.py", query_params={"q": qid})


def scale_block(task: str) -> None:
    """Each auto-rater of ``task`` on the task's own scale: against leave-one-out gold, each
    person and the people among themselves; prevalence, alpha and why kappa may be low."""
    with connection.database() as db:
        view = caching.cached_judgments(db, task_agreement, task)
    st.markdown(
        f"**Task {md(view['task'])}** ({md(view['scale'])} labels: "
        + ", ".join(escape_markdown(x) for x in view["labels"])
        + "). Cohen's kappa beside Gwet's AC1 (and weighted kappa for ordered labels); "
        "leave-one-out gold is the label more than half of the other people gave (at least two)."
    )
    if not view["raters"]:
        st.info("No auto-rater has labels in this task yet.")
    for r in view["raters"]:
        st.markdown(f"**{md(r['rater'])}**")
        st.caption(md(r["annotators_text"]))
        st.dataframe(r["rows"], hide_index=True, width="stretch")
        for note in r["notes"]:
            st.caption(md(note))


def self_consistency(kind: str) -> None:
    """Per rater: the same item judged again, and the same pair judged in both orders."""
    st.caption(
        "Self-consistency: an item the same rater judged again in the same order (first vs "
        "latest verdict). Position-swap inconsistency: share of items judged in both A/B "
        "orders whose verdicts name different winners."
    )
    with connection.database() as db:
        table = caching.cached_judgments(db, consistency_view, kind)
    st.dataframe(table, hide_index=True, width="stretch")


with connection.database() as db:
    tasks = caching.cached_judgments(db, imported_tasks)
    kind = st.radio(
        "Judgments",
        [*KINDS, *tasks],
        index=KINDS.index(warmup.AGREEMENT_KIND),
        horizontal=True,
        format_func=lambda k: {
            "pairwise": "Side by side (pairwise)",
            "absolute": "Absolute (AutoAIS and others)",
        }.get(k, f"Task {k}"),
    )
    if kind not in KINDS:  # a task imported on its own scale
        scale_block(kind)
        st.stop()
    data = caching.cached_judgments(db, agreement_overview, kind)
if data["n_verdicts"] == 0:
    st.info("No verdicts of this kind yet. " + connection.EMPTY_HINT)
    st.stop()

pairs_tab, detail_tab, consistency_tab, crowd_tab = st.tabs(
    SECTIONS, key="section", bind="query-params"
)
with pairs_tab:
    if pairs_tab.open:
        pairs_and_gold(data)
        if kind == JudgmentKind.ABSOLUTE:
            st.divider()
            scale_block("absolute")
with detail_tab:
    if detail_tab.open:
        two_raters(data, kind)
with consistency_tab:
    if consistency_tab.open:
        self_consistency(kind)
with crowd_tab:
    if crowd_tab.open:
        if kind == JudgmentKind.PAIRWISE:
            crowd_section()
        else:
            st.info("The crowd comparison is of side-by-side verdicts: switch to them above.")
