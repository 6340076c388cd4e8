"""Agreement: human vs auto-raters and auto vs auto; kappa with intervals; consistency."""

import streamlit as st

import pages as ui
from core.views.figures import agreement_overview, confusion_figure, rater_pair_view
from core.views.text import escape_markdown, md

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
    "order first. Kappa interval: 95% bootstrap over items."
)
if len(data["table"]):
    st.dataframe(data["table"], hide_index=True, width="stretch")
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
        st.markdown(
            f"**{md(label)}**: {md(res['raters'])} raters, {md(res['items'])} items with 2+ labels"
        )
        fk, ka = res["fleiss_kappa"], res["krippendorff_alpha"]
        m = st.columns(2)
        m[0].metric("Fleiss' kappa", "-" if fk is None else f"{fk:.3f}")
        m[1].metric("Krippendorff's alpha", "-" if ka is None else f"{ka:.3f}")

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
humans = [r for r in raters if r.startswith("human:")]
c = st.columns(2)
ra = c[0].selectbox("Rater A", raters, index=raters.index(humans[0]) if humans else 0)
others = [r for r in raters if r != ra]
rb = c[1].selectbox("Rater B", others)
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
    "Cohen's kappa",
    "-" if ov["kappa"] is None else f"{ov['kappa']:.3f}",
    help=None
    if ov["kappa_low"] is None
    else f"95% bootstrap interval [{ov['kappa_low']:.3f}, {ov['kappa_high']:.3f}]",
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
    if st.button(f"Open question {md(qid)} in Browse"):
        st.session_state["browse_question"] = qid
        st.switch_page("pages/6_Browse.py")
