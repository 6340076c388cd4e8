"""Rater validation: can this auto-rater replace the people? The task (side-by-side, yes/no, or
one imported on its own scale: categories, ordered ratings, label sets); who labelled (experts, skilled
annotators, crowd workers or a number: the alt-test's epsilon, remembered per task); the
alternative annotator test and the evidence around it, with the decision over epsilon 0 to 0.3, one tab per auto-rater (ranked by advantage probability; only the open
tab is drawn, which keeps the first load short), computed from the store as verdicts arrive;
the whole report as one HTML file to download (built when clicked); for admins, the button
that queues the items the simulation asks for.
"""

import streamlit as st

from app_support import caching, connection, frame, render, signin
from core.annotation.rater_epsilon import remember_epsilon
from core.annotation.validation_queue import queue_validation_items, queued_for_validation
from core.errors import WorkbenchError
from core.views.epsilon_figure import needed_figure, sensitivity_figure
from core.views.rater_epsilon import CHOICE_LABELS, NUMBER, stored_choice
from core.views.rater_report.assemble import first_task, report_for_choice, report_tasks
from core.views.rater_report.costs import cost_texts
from core.views.rater_report.needed import rater_needed_for_choice, with_needed
from core.views.rater_report.records import Needed, NeededError, RaterSection
from core.views.rater_report.tables import (
    agreement_frame,
    bias_frame,
    compare_frame,
    group_frame,
    humans_frame,
    needed_frame,
)
from core.views.report_html import report_html
from core.views.scale_agreement import scale_notes, scale_rows
from core.views.score_figures import bias_figure
from core.views.text import escape_markdown, md

frame.setup("Rater validation")
who = signin.sign_in_sidebar()

with connection.database() as db:
    tasks = caching.cached_judgments(db, report_tasks)
task = (
    st.selectbox("Task", tasks, index=tasks.index(first_task(tasks)), key="task")
    if len(tasks) > 1
    else tasks[0]
)
with connection.database() as db:
    stored = stored_choice(db, task)
may_choose = who is not None and who.may("admin")
kinds = list(CHOICE_LABELS)
picked = st.radio(
    "Who labelled these items? (sets epsilon, the allowance for the auto-rater being cheaper)",
    kinds,
    index=kinds.index(str(stored.annotators) if stored.annotators else NUMBER),
    format_func=CHOICE_LABELS.__getitem__,
    horizontal=True,
    key=f"annotators_{task}",
    disabled=not may_choose,
)
chosen = picked
if picked == NUMBER:
    value = st.number_input(
        "epsilon",
        0.0,
        0.99,
        stored.epsilon,
        0.01,
        "%.3f",
        key=f"epsilon_{task}",
        disabled=not may_choose,
    )
    chosen = f"{value:g}"
if not may_choose:
    st.caption("An admin chooses who labelled; it is remembered for the task.")
elif chosen != stored.text:
    with connection.database() as db:
        try:
            stored = remember_epsilon(db, who, task, chosen)
        except WorkbenchError as exc:
            st.error(md(exc))

with connection.database() as db:
    try:
        # every rater's figures but the items-needed simulation, computed for the open tab only
        data = caching.cached_view(db, report_for_choice, stored.text, task, False)
    except WorkbenchError as exc:
        st.info(md(exc))
        st.stop()

st.caption(
    "The alternative annotator test (Calderon, Reichart and Dror, 2025) on the labels of task "
    f"{md(data['task'])} ({md(data['scale'])}), epsilon = {md(data['epsilon_choice'])}, "
    f"q = {md(data['q'])}. " + escape_markdown(data["epsilon_text"])
)


def rater_needed(rater: str) -> Needed | NeededError:
    """``rater``'s items-needed simulation at the task's epsilon (cached until the data change)."""
    with connection.database() as db:
        needed = caching.cached_view(db, rater_needed_for_choice, stored.text, task, rater)
    return needed


def whole_report() -> str:
    """The report with every rater's simulation: built when the download is clicked."""
    return report_html(
        with_needed(data, {s["rater"]: rater_needed(s["rater"]) for s in data["raters"]})
    )


st.download_button(
    "Download the report (one HTML file, readable offline)",
    whole_report,  # built when clicked, not on every page load
    file_name="rater-report.html",
    mime="text/html",
)
st.subheader("Auto-raters compared (ranked by advantage probability)")
st.dataframe(compare_frame(data), hide_index=True, width="stretch")


def rater_section(sec: RaterSection) -> None:
    """One auto-rater's section: verdict, agreement, biases, cost, disagreements, items needed."""
    st.header(md(sec["rater"]))
    show = {"passes": st.success, "fails": st.error}.get(sec["verdict"]["status"], st.warning)
    show(md(sec["verdict"]["sentence"]))
    st.caption(md(sec["annotators_text"]))  # whom the rater is compared with: the one rule
    if sec["alt"]:
        st.dataframe(humans_frame(sec), hide_index=True, width="stretch")
    if sec["sensitivity"]:
        st.plotly_chart(
            sensitivity_figure(sec["rater"], sec["sensitivity"], data["epsilon"]),
            width="stretch",
            key=f"epsilon_curve_{sec['rater']}",
        )
        st.caption(md(sec["sensitivity_text"]))
    if sec.get("scale_agreement"):
        scale_section(sec)
    else:
        pairwise_section(sec)
    needed_section(sec)


def scale_section(sec: RaterSection) -> None:
    """Agreement on the task's own scale (yes/no, categories, ordered ratings, label sets)."""
    sa = sec["scale_agreement"]
    st.markdown(
        f"**Agreement on the {md(sa['scale'])} scale** (alt-test alignment {md(sec['metric'])}; "
        "leave-one-out gold: the label more than half of the other people gave)"
    )
    st.dataframe(scale_rows(sa), hide_index=True, width="stretch")
    for note in scale_notes(sa):
        st.caption(md(note))


def pairwise_section(sec: RaterSection) -> None:
    """Side-by-side: agreement with gold and people, biases, cost, disagreements."""
    ag, time, dis = sec["agreement"], sec["time"], sec["disagreements"]
    if ag is None or time is None or dis is None:  # a section of another task has none
        st.info("No side-by-side agreement, biases or disagreements for this rater.")
        return
    st.markdown("**Agreement** (Cohen's kappa, 95% large-sample interval; none under 20 items)")
    st.dataframe(agreement_frame(sec), hide_index=True, width="stretch")
    groups = group_frame(sec)
    if len(groups):
        st.dataframe(groups, hide_index=True, width="stretch")
    for s in ag["slot_ceiling"]:
        fk, ka = s["fleiss_kappa"], s["krippendorff_alpha"]
        st.caption(  # inline formats: tests/test_architecture.py sees them as numbers
            f"Ceiling among the slots {md(s['prefix'])}k: Fleiss' kappa "
            f"{'-' if fk is None else f'{fk:.3f}'}, Krippendorff's alpha "
            f"{'-' if ka is None else f'{ka:.3f}'} (as on Agreement)."
        )
    st.markdown("**Biases** (shares with 95% Wilson intervals)")
    st.plotly_chart(bias_figure(sec), width="stretch", key=f"biases_{sec['rater']}")
    st.dataframe(bias_frame(sec), hide_index=True, width="stretch")
    cost = sec["cost"]
    per_verdict, seconds = cost_texts(sec)
    st.caption(
        f"Cost per verdict: {md(per_verdict)} ({md(cost['note'])}). People: {md(seconds)} per "
        f"verdict ({md(time['rule'])})."
    )
    st.markdown("**What this judge is worth for ranking**")
    st.caption(md(sec["ranking"]["sentence"]))
    shown = (  # drawn only when asked for: a few dozen elements a first load need not wait on
        dis["shown"]
        if st.toggle(
            f"Show disagreements with the people's majority ({md(dis['total'])} in all, "
            f"{md(len(dis['shown']))} sampled)",
            key=f"disagreements_{sec['rater']}",
        )
        else []
    )
    for x in shown:
        st.markdown(f"**{md(x['question_id'])}**: {md(x['question'])}")
        render.untrusted(x["answer_first"], label=x["first"])
        render.untrusted(x["answer_second"], label=x["second"])
        st.caption(f"Rater: {md(x['rater_label'])}; people's majority: {md(x['majority_label'])}")
        if x["rationale"]:
            render.untrusted(x["rationale"], label="Rater's rationale")
        st.code(x["link"], language=None)


def needed_section(sec: RaterSection) -> None:
    """How many more doubly-labelled items, and (admins, side-by-side) the queue button."""
    st.markdown("**How many more doubly-labelled items**")
    with st.spinner(
        "Simulating how many more items would make the decision hold (the alt-test rerun on "
        "thousands of resampled item sets; a few seconds, once per rater until the labels change)"
    ):
        needed = rater_needed(sec["rater"])
    sec = {**sec, "needed": needed}
    if "error" in needed:
        st.caption(md(needed["error"]))
        return
    st.caption(md(needed["method"]))
    st.plotly_chart(
        needed_figure(sec["rater"], needed), width="stretch", key=f"needed_{sec['rater']}"
    )
    st.dataframe(needed_frame(sec), hide_index=True, width="stretch")
    to_queue = needed.get("to_queue")
    st.caption(md(needed["advice"][:1].upper() + needed["advice"][1:] + "."))
    if to_queue and who is not None and who.may("admin"):
        with connection.database() as db:
            already = queued_for_validation(db, sec["rater"])
        if already:  # queued: say so, not a button whose second press is refused
            st.button(
                f"{md(already)} items queued for the team (overlap 2)",
                key=f"queue_{sec['rater']}",
                disabled=True,
                help="They are in the annotators' Side by side queues; their labels enter "
                "this report as they arrive.",
            )
        elif st.button(
            f"Queue {md(to_queue)} items for the team (overlap 2)", key=f"queue_{sec['rater']}"
        ):
            with connection.database() as db:
                try:
                    queued = queue_validation_items(db, sec["rater"], int(to_queue), who)
                    st.success(f"Queued {md(len(queued))} items.")
                except WorkbenchError as exc:
                    st.error(md(exc))


names = [sec["rater"] for sec in data["raters"]]
if len(names) > 1:  # one tab per auto-rater; only the open one runs (its name is in the URL)
    tabs = st.tabs([md(n) for n in names], key="rater", bind="query-params")
    for tab, sec in zip(tabs, data["raters"], strict=True):
        with tab:
            if tab.open:
                rater_section(sec)
else:
    for sec in data["raters"]:
        rater_section(sec)
