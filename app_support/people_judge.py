"""The Leaderboard's People + judge tab: a few people's verdicts and many of one judge's,
combined by prediction-powered inference (core.views.ppi_ranking), and the admin's button that
queues the random human sample the guarantee needs."""

import streamlit as st

from app_support import caching, connection
from core.annotation.identity import Annotator
from core.annotation.validation_queue import queue_validation_items
from core.errors import InputError, WorkbenchError
from core.views.blind import pickable_raters
from core.views.numbers import num
from core.views.ppi_ranking import people_judge_ranking, ppi_figure, ppi_sources, ppi_table
from core.views.ppi_strengths import strengths_table
from core.views.text import md


def people_and_judge(who: Annotator | None) -> None:
    """People + judge: a few people's verdicts and many of one judge's, combined so that the
    intervals cover the people's win probabilities whatever the judge's bias (PPI++)."""
    with connection.database() as db:
        sources = caching.cached_judgments(db, ppi_sources)
        viewer, role = (who.name, who.role) if who else (None, None)
        humans = pickable_raters(db, sources["human"], viewer, role)
    if not humans or not sources["auto"]:
        missing = " and ".join(
            k for k, v in (("human", humans), ("auto", sources["auto"])) if not v
        )
        st.info(
            f"No {md(missing)} pairwise verdicts yet: the combined ranking needs people's "
            "verdicts and a judge's on some of the same battles."
        )
        return
    st.subheader("People + judge: prediction-powered ranking")
    c = st.columns([3, 2, 1, 1])
    people = c[0].multiselect(
        "People's verdicts",
        humans,
        default=humans,
        key="ppi_people",
        help="The truth: the people's verdicts. Draw the battles they judge at random from "
        "the judged ones, or the guarantee does not hold (docs/statistics.md).",
    )
    judge = c[1].selectbox("Judge", sources["auto"], key="ppi_judge")
    alpha = c[2].select_slider(
        "Error level alpha", [0.01, 0.05, 0.1, 0.2], value=0.05, key="ppi_alpha"
    )
    ties = "half" if c[3].toggle("Tie = half a win", key="ppi_half") else "none"
    cluster = (
        "question"
        if c[3].toggle(
            "Cluster by question",
            key="ppi_cluster",
            help="Intervals from a bootstrap that resamples questions: for questions with "
            "several battles, which are not independent (docs/statistics.md).",
        )
        else None
    )
    if not people:
        st.caption("Pick at least one person's verdicts.")
        return
    with connection.database() as db:
        try:
            r = caching.cached_judgments(
                db, people_judge_ranking, tuple(people), judge, alpha, ties, None, cluster
            )
        except InputError as exc:
            st.info(f"No combined ranking: {md(str(exc))}.")
            return
    m = st.columns(4)
    m[0].metric("Battles: people and judge", f"{r['n_both']:,}")
    m[1].metric("Battles: judge alone", f"{r['n_judge_only']:,}")
    m[2].metric("lambda (judge's weight)", num(r["lambda"], ".2f", "-"))
    m[3].metric("Worth in people's verdicts", num(r["effective_people"], ",.0f", "-"))
    for w in r["warnings"]:
        st.warning(md(f"Warning: {w}."))
    if r["judge_outside"]:
        st.warning(
            f"The judge alone ranks **{md(', '.join(r['judge_outside']))}** outside the "
            "combined rank-set: that is the judge's bias, made visible."
        )
    st.caption(
        f"{md(r['estimand'])}; {md(r['interval'])}. Combined = the judge on the battles it "
        "judged alone, corrected by how it differs from people on the battles both judged "
        f"({md(r['n_people_unpaired'])} battles only people judged are not used)."
    )
    st.plotly_chart(ppi_figure(r), width="stretch")
    st.dataframe(ppi_table(r), hide_index=True, width="stretch", key="ppi_table")
    st.markdown("**Bradley-Terry strengths** (how far apart, on the scale of the other tabs)")
    if "why" in r["bt"]:
        st.caption(f"None: {md(r['bt']['why'])}.")
    else:
        st.dataframe(strengths_table(r), hide_index=True, width="stretch", key="ppi_bt_table")
        note = f" No strengths from the {md(r['bt']['judge_why'])}." if r["bt"]["judge_why"] else ""
        st.caption(
            f"{md(r['bt']['scale'])}; {md(r['bt']['interval'])}; lambda = "
            f"{md(num(r['bt']['lambda'], '.2f', '-'))}.{note}"
        )
    sizes = list(range(1, len(r["systems"]) + 1))
    target = st.selectbox(
        "How many more people's verdicts for a widest rank-set of at most",
        sizes,
        index=0,
        key="ppi_target",
        format_func=lambda n: f"{n} rank(s) (now {r['widest_rank_set']})",
    )
    with connection.database() as db:
        plan = caching.cached_judgments(
            db, people_judge_ranking, tuple(people), judge, alpha, ties, target, cluster
        )
    st.caption(
        f"{md(plan['people_needed']['sentence'])} (a simulation; the people's battles must be "
        "a random sample, as the validation queue draws them)."
    )
    more = plan["people_needed"]["more"]
    if more and who is not None and who.may("admin"):
        queue_random_battles(judge, int(more), who)


def queue_random_battles(judge: str, more: int, actor: Annotator) -> None:
    """Admins: queue ``more`` of the judge's battles no person labelled, drawn at random (the
    sample the combined ranking's guarantee needs), for the team (overlap 1)."""
    if st.button(
        f"Queue {md(more)} of {md(judge)}'s battles, drawn at random, for the team",
        key="ppi_queue_random",
        help="Drawn uniformly from the battles the judge judged and no person labelled "
        "(validation-queue --random); they appear in the annotators' Side by side queues.",
    ):
        with connection.database() as db:
            try:
                queued = queue_validation_items(db, judge, more, actor, random_draw=True)
                st.success(f"Queued {md(len(queued))} battles drawn at random.")
            except WorkbenchError as exc:
                st.error(md(exc))
