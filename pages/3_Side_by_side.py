"""Side by side: blind pairwise verdicts (system names hidden until the verdict is stored).

Keys: ``1`` A better, ``2`` B better, ``3`` Equal, ``4`` None, ``s`` skip, ``u`` undo. A key stores
at once (the rationale is optional); the next item then opens at the top of the page.
"""

from typing import Any

import streamlit as st

from app_support import caching, connection, frame, links, render, shortcuts, signin, workspace
from core.annotation.identity import authorise
from core.annotation.pairwise import (
    blind_item,
    identical_items,
    pairwise_items,
    queue_reads_later,
    skip_item,
    split_pair_key,
    submit_verdict,
    undo_last,
    verdict_progress,
    verdict_queue,
)
from core.errors import WorkbenchError
from core.views.judgments import auto_verdicts_shown
from core.views.queue_head import queue_headline
from core.views.review import question_and_documents_later, search_context
from core.views.text import escape_markdown, md
from core.views.vocabulary import TaskName

#: (verdict, button label, what it means, keyboard shortcut): labels short enough to fit a
#: 1280 px screen and a phone; the meaning is in the confirmation and the button's tooltip.
VERDICT_BUTTONS = (
    ("A", "A", "A better", "1"),
    ("B", "B", "B better", "2"),
    ("Equal", "Equal", "Equal", "3"),
    ("None", "None", "None (both wrong)", "4"),
)
LABELS = {v: meaning for v, _, meaning, _ in VERDICT_BUTTONS}
KEYS_HINT = (
    "Keys: **1** A better · **2** B better · **3** Equal · **4** None (both wrong) · "
    "**S** skip · **U** undo · **G** guidelines"
)

#: Session key: this run's button action stored, skipped or undid a label, so it checked the
#: sign-in against the database moments ago (in its transaction): the decision area does not
#: read it again (two statements a label, issue 37).
CHECKED = "sbs_signed_in_checked"

frame.setup("Side by side")
workspace.compact()
shortcuts.keys_after_choices()
user = signin.require_annotator()  # the signed-in Annotator: every write takes it
who = user.name


@frame.action
def _store(item: dict[str, Any], verdict: str, question: str) -> None:
    """Button callback: store the verdict (runs before the page, so the next item renders)."""
    rationale = st.session_state.get(f"sbs_rationale_{item['key']}", "")
    with connection.database() as db:
        try:
            jid = submit_verdict(
                db, item, user, verdict, rationale, expected_last_id=item["label_id"]
            )
        except WorkbenchError as exc:
            st.session_state["sbs_error"] = workspace.refusal("judgments", exc)
            return
    workspace.stored_here("judgments", jid)
    st.session_state["sbs_last"] = {"id": jid, "verdict": verdict, "item": item, "q": question}
    st.session_state[CHECKED] = True
    st.session_state["sbs_scroll"] = True
    st.query_params.pop("q", None)


@frame.action
def _skip(item: dict[str, Any], question: str) -> None:
    with connection.database() as db:
        try:
            jid = skip_item(db, item, user, expected_last_id=item["label_id"])
        except WorkbenchError as exc:  # another tab changed the label, or the database stayed
            st.session_state["sbs_error"] = workspace.refusal("judgments", exc, "Skip: ")  # busy
            return
    workspace.stored_here("judgments", jid)
    st.session_state["sbs_last"] = {"verdict": "skip", "item": item, "q": question}
    st.session_state[CHECKED] = True
    st.session_state["sbs_scroll"] = True
    st.query_params.pop("q", None)


@frame.action
def _undo() -> None:
    with connection.database() as db:
        try:
            undone = undo_last(db, user)
        except WorkbenchError as exc:
            st.session_state["sbs_error"] = workspace.refusal("judgments", exc, "Undo: ")
            return
    if undone:
        workspace.stored_here("judgments", undone)
    st.session_state.pop("sbs_last", None)
    st.session_state[CHECKED] = True
    st.session_state["sbs_notice"] = (
        "Withdrawn your last verdict or skip (a superseding row was added); the item is back "
        "in your queue."
        if undone
        else "Nothing to undo."
    )
    st.session_state["sbs_scroll"] = True


@frame.fragment
def decision_area() -> None:
    """Everything a verdict changes: progress, the last verdict's line, the item and its
    buttons. A key reruns this fragment alone, not the page (issue 37: the sign-in, the
    navigation and the page's frame are not run again for each label)."""
    checked = st.session_state.pop(CHECKED, False)  # this run's action checked the sign-in
    with connection.database() as db:
        if not checked:
            try:  # a fragment run skips the page's sign-in check: one ended or revoked since
                authorise(db, user)  # reruns the whole page, whose sign-in says so
            except WorkbenchError:
                st.rerun()
        caching.answers_key_later(db)  # sent with the team marks' read: one round trip,
        asked = queue_reads_later(db)  # the queue's names, requests and settings too (issue 33)
        marks = caching.team_marks(db)  # kept up to date, not read in full (issue 37)
        items, same = caching.cached_answers_each(db, pairwise_items, identical_items)
        if not items:
            st.info(
                "No pairs to compare yet: at least two systems must have answered a question. "
                + connection.EMPTY_HINT
            )
            st.stop()
        queue = verdict_queue(db, who, items, identical=same, marks=marks, asked=asked)
        progress = verdict_progress(db, who, items, queue, marks)  # done of done + my queue
        wanted, unlinked = links.deep_link_id(), False
        if wanted:
            mine = [k for k in queue if split_pair_key(k)[0] == wanted]
            anyone = [k for k in items if split_pair_key(k)[0] == wanted]
            current: str | None = next(iter(mine or anyone), None)
            if current is None:
                unlinked, current = True, queue[0] if queue else None
        else:
            current = queue[0] if queue else None
        headline = (  # the progress line is drawn once the item shown is known: one element
            str(progress)
            if current is None
            else queue_headline(
                progress, queue, current, "a verdict stores and opens the next pair"
            )
        )
        st.progress(progress.done / progress.total if progress.total else 0.0, text=headline)
        st.caption(KEYS_HINT)

        last = st.session_state.get("sbs_last")
        if last:  # icon="": no search of the text for a leading emoji (1.5 ms a label, issue 37)
            q_short = escape_markdown(render.short(last["q"]))
            names = (
                f"A was **{escape_markdown(last['item']['system_a'])}**, B was "
                f"**{escape_markdown(last['item']['system_b'])}**."
            )
            if last["verdict"] == "skip":
                st.info(f"Skipped '{q_short}' (not counted as done).", icon="")
            else:
                st.success(
                    f"Stored: **{md(LABELS[last['verdict']])}** on '{q_short}'. {names}", icon=""
                )
                if st.session_state.get("sbs_reveal"):
                    st.dataframe(auto_verdicts_shown(db, last["item"]), hide_index=True)
        if notice := st.session_state.pop("sbs_notice", None):
            st.toast(md(notice))
        workspace.show_refusal(st.session_state.pop("sbs_error", None))
        if unlinked:
            st.warning("The linked question has no side-by-side pair; showing your queue.")

        if current is None:
            st.success("Your side-by-side queue is empty.")
            st.button("Undo", key="sbs_undo", shortcut="U", on_click=_undo)
            st.stop()

        # the question goes in the round trip of the item's own row and answers (issue 33)
        asked_question = question_and_documents_later(db, split_pair_key(current)[0])
        item = blind_item(db, current, who)
        q, documents = asked_question()
        question = q.get("question", "")
        if st.session_state.pop("sbs_scroll", False):
            shortcuts.scroll_to_top(item["key"])

        docs = dict(documents)  # none: answers take the width
        main, side = workspace.item_columns(question, bool(docs))
        with main:
            if item["identical"]:
                st.info(
                    "The two answers are identical (up to spacing). If neither is better, choose "
                    "**Equal**, or **None** if both are wrong."
                )
            left, right = st.columns(2)
            for col, side_name, text in (
                (left, "A", item["answer_a"]),
                (right, "B", item["answer_b"]),
            ):
                with col:
                    st.markdown(f"#### Answer {md(side_name)}")
                    with workspace.pane(f"sbs_{side_name}"):
                        render.untrusted(text)
            with workspace.decision_bar():
                for verdict, label, meaning, key in VERDICT_BUTTONS:
                    st.button(
                        md(label),
                        key=workspace.item_bound(f"sbs_{verdict}", item["key"]),
                        help=md(f"{meaning} (key {key})"),
                        shortcut=key,
                        on_click=_store,
                        args=(item, verdict, question),
                    )
                st.button(
                    "Skip",
                    key=workspace.item_bound("sbs_skip", item["key"]),
                    shortcut="S",
                    on_click=_skip,
                    args=(item, question),
                )
                st.button("Undo", key="sbs_undo", shortcut="U", on_click=_undo)
                workspace.guideline_button(TaskName.SIDE_BY_SIDE, "sbs_guidelines")
            st.text_input("Short rationale (optional)", key=f"sbs_rationale_{item['key']}")
            st.caption(shortcuts.TYPING_HINT)
            st.toggle("Reveal the auto-raters' verdicts after I submit", key="sbs_reveal")
            links.share_link("Side_by_side", item["question_id"], db)
        if side is not None:
            with side, workspace.pane("sbs_evidence", workspace.EVIDENCE_PX, border=False):
                render.evidence_beside(
                    db, documents, question, [item["answer_a"], item["answer_b"]], "sbs"
                )
                with st.expander("Search the context (BM25)"):
                    doc = st.selectbox(
                        "Search in", list(docs), format_func=docs.__getitem__, key="sbs_doc"
                    )
                    query = st.text_input("Search words", key="sbs_query")
                    for hit in search_context(db, doc, query, k=5):
                        st.caption(f"Passage {md(hit['idx'])} · BM25 {md(hit['score'])}")
                        render.highlighted(hit["markdown"])


decision_area()
