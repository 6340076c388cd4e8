"""Agreement: human vs auto-raters and auto vs auto; kappa with intervals; consistency."""

import streamlit as st

import pages as ui
from core.views.agreement_text import (
    COHEN_VS_FLEISS,
    default_pair,
    kappa_text,
    readable_agreement,
)
from core.views.figures import agreement_overview, confusion_figure, rater_pair_view
from core.views.text import escape_markdown

ui.setup("Agreement")
ui.sign_in_sidebar()

with ui.database() as db:
    kind = st.radio(
        "Judgments",
        ["pairwise", "absolute"],
        horizontal=True,
        format_func={
            "pairwise": "Side by side (pairwise)",
            "absolute": "Absolute (AutoAIS and others)",
        }.get,
    )
    data = ui.cached_judgments(db, agreement_overview, kind)
if data["n_verdicts"] == 0:
    st.info("No verdicts of this kind yet. " + ui.EMPTY_HINT)
    st.stop()

st.subheader("Every pair of raters")
st.caption(
    "Items both raters labelled; pairwise verdicts are mapped to one canonical system "
    "order first. Cohen's kappa with its 95% bootstrap interval over items in brackets."
)
if len(data["table"]):
    st.dataframe(readable_agreement(data["table"]), hide_index=True, width="stretch")
else:
    names = ", ".join(escape_markdown(r) for r in data["raters"])
    if len(data["raters"]) == 1:
        why = f"Only one rater ({names}) has verdicts of this kind"
    else:
        why = (
            f"No two of the {len(data['raters'])} raters ({names}) have judged the same item "
            "(they judged different questions or systems)"
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
        st.markdown(f"**{label}**: {res['raters']} raters, {res['items']} items with 2+ labels")
        fk, ka = res["fleiss_kappa"], res["krippendorff_alpha"]
        m = st.columns(2)
        m[0].metric("Fleiss' kappa", "-" if fk is None else f"{fk:.3f}")
        m[1].metric("Krippendorff's alpha", "-" if ka is None else f"{ka:.3f}")

with st.expander("Why Cohen's and Fleiss' kappa differ for the same people"):
    st.markdown(COHEN_VS_FLEISS)

st.subheader("Self-consistency and position-swap inconsistency")
st.caption(
    "Self-consistency: an item the same rater judged again in the same order (first vs "
    "latest verdict). Position-swap inconsistency: share of items judged in both A/B "
    "orders whose verdicts name different winners."
)
st.dataframe(data["consistency"], hide_index=True, width="stretch")

raters = data["raters"]
if len(raters) < 2:
    st.stop()
st.subheader("Two raters in detail")
pick_a, pick_b = default_pair(raters)
c = st.columns(2)
ra = c[0].selectbox("Rater A", raters, index=raters.index(pick_a))
others = [r for r in raters if r != ra]
rb = c[1].selectbox("Rater B", others, index=others.index(pick_b) if pick_b in others else 0)
with ui.database() as db:
    pv = ui.cached_judgments(db, rater_pair_view, kind, ra, rb)
ov = pv["overall"]
if ov["n"] == 0:
    st.info("These two raters share no item.")
    st.stop()
m = st.columns(3)
m[0].metric("Items in common", ov["n"])
m[1].metric("Percent agreement", f"{ov['agreement']:.1%}")
m[2].metric(
    "Cohen's kappa [95% CI]",
    kappa_text(ov["kappa"], ov["kappa_low"], ov["kappa_high"], ov["n"]),
    help="95% bootstrap interval over the common items in brackets.",
)
st.plotly_chart(confusion_figure(pv["both"], ra, rb), width="stretch")
st.markdown("**By system pair**")
st.dataframe(pv["by_pair"], hide_index=True, width="stretch")
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
    if st.button(f"Open question {qid} in Browse"):
        st.session_state["browse_question"] = qid
        st.switch_page("pages/6_Browse.py")
