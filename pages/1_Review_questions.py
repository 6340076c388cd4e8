"""Review questions: the XRAG checklist, then Accept / Reject / Save edit; agreement between
reviewers. Keys: ``a`` accept, ``x`` reject, ``e`` save edit, ``s`` skip (to the end of my queue,
not done), ``u`` undo (withdraw my latest review or skip)."""

from typing import Any, TypeVar

import streamlit as st

from app_support import (
    caching,
    checklist,
    connection,
    frame,
    links,
    render,
    shortcuts,
    signin,
    workspace,
)
from core.annotation.base import StaleLabelError
from core.annotation.reviews import (
    own_review_id,
    record_review,
    review_progress,
    review_queue,
    skip_review,
    withdraw_last_review,
)
from core.errors import WorkbenchError
from core.views.blind import review_view, sees_all
from core.views.queue_head import queue_headline
from core.views.review import question_filters, question_ids, question_labels, review_rules
from core.views.text import InertMarkdown, escape_markdown, md
from core.views.vocabulary import QuestionOrigin, QuestionStatus, ReviewDecision

_V = TypeVar("_V")  # a filter's value type

frame.setup("Review questions")
workspace.compact()
shortcuts.keys_after_choices()
KEYS_HINT = (
    "Keys: **1**-**6** the checklist's Yes / No (shown on its buttons) · **A** accept · "
    "**X** reject · **E** save edit · **S** skip · **U** undo · **G** guidelines"
)
#: decision -> its button (keys A, X, E: a key clicks its button, so it takes the same path)
BUTTONS = {"accept": "Accept", "reject": "Reject", "edit": "Save edit"}
user = signin.require_annotator()  # the signed-in Annotator: every write takes it
#: The label table this page's presses store in (:func:`workspace.stored_here`).
TABLE = "reviews"
who = user.name


def _refused(exc: WorkbenchError, what: str, qid: str, question: str) -> tuple[bool, InertMarkdown]:
    """Why nothing was stored, as :func:`workspace.refusal` says it (calm: this tab's own press
    a moment ago; another tab's change names the question: the page moves on)."""
    if isinstance(exc, StaleLabelError):
        checklist.release(qid)  # shown again with the label now stored: the next is knowing
        calm, text = workspace.refusal(TABLE, exc)
        if calm:
            return True, md(text)
        return False, InertMarkdown(f"{md(what)} on '{md(render.short(question))}': {md(exc)}")
    return False, InertMarkdown(f"{md(what)}: nothing was stored. {md(exc)}")


@frame.action
def _decide(
    qid: str, decision: str, seen: int | None, fields: list[dict[str, Any]], question: str
) -> None:
    """Form-button callback: store my review of ``qid`` as the form holds it; ``seen``: my own
    row on the question when the page showed it (changed since in another tab: refused)."""
    state = st.session_state
    values = {f["name"]: state.get(checklist.state_key(f["name"], qid)) for f in fields}
    for f in fields:  # a required Yes / No item is chosen by its "Yes" or "No" button
        if f["type"] == "bool" and f["required"] and values[f["name"]] is not None:
            values[f["name"]] = values[f["name"]] == "Yes"
    must = [f for f in fields if f["required"] and f["type"] != "text"]
    missing = [md(f["label"]) for f in must if values[f["name"]] is None]
    if missing and decision != ReviewDecision.REJECT:  # Reject needs nothing more
        why = "Answer every required checklist item first (nothing was stored): "
        state["review_error"] = qid, (False, InertMarkdown(why + "; ".join(missing) + "."))
        return
    with connection.database() as db:
        try:
            res = record_review(
                db,
                qid,
                user,
                {k: v for k, v in values.items() if v not in (None, "")},
                decision=decision,
                edited_question=state.get(f"edited_{qid}", ""),
                note=state.get(f"note_{qid}", ""),
                expected_last_id=seen,
            )
        except WorkbenchError as exc:
            state["review_error"] = qid, _refused(exc, BUTTONS[decision], qid, question)
            return
    workspace.stored_here(TABLE, res.review_id)
    checklist.forget(fields, qid)
    state["review_scroll"] = True
    st.query_params.pop("q", None)
    state["last_review"] = dict(
        question=question, status=res.status, reason=res.reason, decision=res.decision,
        button=md(BUTTONS[decision]),
    )  # fmt: skip


@frame.action
def _skip(qid: str, question: str, seen: int | None, fields: list[dict[str, Any]]) -> None:
    """Store a skip: the question goes to the end of my queue (not counted as done)."""
    with connection.database() as db:
        try:
            rid = skip_review(db, qid, user, expected_last_id=seen)
        except WorkbenchError as exc:
            st.session_state["review_error"] = qid, _refused(exc, "Skip", qid, question)
            return
    workspace.stored_here(TABLE, rid)
    checklist.forget(fields, qid)
    st.session_state["review_notice"] = InertMarkdown(
        f"Skipped '{escape_markdown(render.short(question))}': it goes to the end of your queue "
        "(not counted as done; **Undo** takes the skip back)."
    )
    st.session_state["review_scroll"] = True
    st.query_params.pop("q", None)


@frame.action
def _undo() -> None:
    """Withdraw my latest review or skip (a superseding row; nothing is deleted)."""
    with connection.database() as db:
        try:
            undone = withdraw_last_review(db, user)
        except WorkbenchError as exc:  # e.g. the database stayed busy
            st.session_state["review_notice"] = InertMarkdown(f"Undo: {md(exc)}")
            return
        text = question_labels(db, (undone.item,)).get(undone.item, "") if undone else ""
    if undone is not None:
        checklist.release(undone.item)
        workspace.stored_here(TABLE, undone.row_id)
    if undone is None:
        st.session_state["review_notice"] = "Nothing to undo: you have no review or skip left."
    elif undone.was_skip:
        st.session_state["review_notice"] = InertMarkdown(
            f"Withdrawn your skip of '{escape_markdown(render.short(text))}': it is back in its "
            "place in your queue."
        )
    else:
        st.session_state["review_notice"] = InertMarkdown(
            f"Withdrawn your review (**{md(undone.label)}**) of "
            f"'{escape_markdown(render.short(text))}': the question is now "
            f"**{md(undone.status)}** and back in your queue."
        )
    st.session_state["review_scroll"] = True


with connection.database() as db:
    opts = caching.cached_view(db, question_filters)
    if not opts["origins"]:
        st.info(connection.EMPTY_HINT)
        st.stop()
    # the filters and the picker behind one button: the question starts near the top
    c = [st.popover("Filters and question picker", width="stretch")] * 6
    docs = dict(opts["documents"])
    ents = dict(opts["entities"])
    origins = opts["origins"]
    origin = c[0].selectbox(
        "Origin",
        ["(all)", *origins],
        index=1 + origins.index("generated") if "generated" in origins else 0,
    )
    doc = c[1].selectbox("Document", ["(all)", *docs], format_func=lambda d: docs.get(d, d))
    ent = c[2].selectbox("Entity", ["(all)", *ents], format_func=lambda e: ents.get(e, e))
    qtype = c[3].selectbox("Question type", ["(all)", *opts["qtypes"]])
    statuses = opts["statuses"] if sees_all(user.role) else []  # others' reviews decide it
    status = c[4].selectbox("Status", ["(all)", *statuses], disabled=not statuses)

    def pick(v: _V) -> _V | None:
        return None if v == "(all)" else v

    ids = question_ids(
        db,
        document_id=pick(doc),
        entity_id=ent if isinstance(ent, int) else None,
        qtype=pick(qtype),
        status=pick(status),
        origin=pick(origin),
    )
    queue = review_queue(db, who, ids)  # the questions I skipped come last
    progress = review_progress(db, who, ids, queue)  # done of done + my queue
    head = st.empty()  # the progress line, once the question shown is known
    st.caption(KEYS_HINT)
    mode = c[5].radio("Show", ["Next in my queue", "Pick a question"])
    wanted = links.deep_link_id()
    if mode == "Pick a question":
        labels = caching.cached_view(db, question_labels, tuple(ids))
        qid = (
            st.selectbox(
                "Question", ids, format_func=lambda i: render.short(labels.get(i, str(i)), 100)
            )
            if ids
            else None
        )
    elif wanted and caching.cached_view(db, question_labels, (wanted,)):
        qid = wanted
    else:
        qid = queue[0] if queue else None
    if notice := st.session_state.pop("review_notice", None):
        st.info(md(notice))
    refusal = st.session_state.pop("review_error", None)  # (question id, why)
    if refusal and refusal[0] != qid:  # the page moved on: say it here
        workspace.show_refusal(refusal[1])
    last = st.session_state.pop("last_review", None)
    if last:
        said = f"Stored: **{md(last['button'])}** on '{escape_markdown(render.short(last['question']))}'"
        why = escape_markdown(last["reason"]) if last["reason"] else ""
        if last["status"] == QuestionStatus.DISCARDED:
            st.warning(
                f"{said}, but the question is **discarded** whatever the decision: {why}. "
                "Its translations are discarded too."
            )
        else:
            own = {"accept": "accepted", "reject": "rejected", "edit": "edited"}[last["decision"]]
            st.success(
                f"{said}: the question is now **{md(last['status'])}**"
                + (
                    " (the majority of the current reviews decides)"
                    if last["status"] != own
                    else ""
                )
                + (f" ({why})." if why else ".")
            )
    if qid is None:
        st.success(
            "Nothing left for you to review with these filters: you have reviewed every "
            "matching question, or each already has its reviews. Change the filters above "
            "(for example Origin = xrag for the cross-lingual questions), or choose "
            "**Pick a question** to look at one again."
        )
        st.button("Undo", key="review_undo", shortcut="U", on_click=_undo)
        st.stop()
    detail = caching.cached_view(db, review_view, qid, who, user.role)
    if detail is None:  # deleted (or the data replaced) since the queue was read
        st.warning("This question is no longer in the database: pick another.")
        st.stop()
    seen = checklist.held_label_id(qid, own_review_id(db, qid, who))  # what a submit expects
    q = detail["question"]
    if st.session_state.pop("review_scroll", False):
        shortcuts.scroll_to_top(qid)
    head.progress(
        progress.done / progress.total if progress.total else 0.0,
        text=queue_headline(progress, queue, qid, "a decision stores and opens the next question"),
    )
    sources = detail["passages"] or detail["articles"]
    main, side = st.columns([3, 2], gap="medium") if sources else (st.container(), None)
    with main:
        st.caption("Question")
        render.untrusted(q["question"])
        st.caption(
            f"id {md(q['id'])} · origin {md(q['origin'])} · type {md(q['qtype'] or '-')} · "
            f"language {md(q.get('language') or '-')} · status {md(q['status'])}"
            + (f" · {md(detail['span']['text'])}" if detail["span"] else "")
        )
        if detail["span"] and detail["span"]["flag"]:
            st.warning(f"Span: {md(detail['span']['text'])}")
        if flag := (q.get("metadata") or {}).get("needs_review"):  # an entity edit took its entity
            st.warning(f"Needs review: {md(flag.get('reason'))}")
        st.caption("Reference answer" if q["origin"] == QuestionOrigin.XRAG else "Generated answer")
        render.untrusted(detail["answer"])
        if detail["parent"]:
            par = detail["parent"]
            st.markdown(f"**The English original** ({md(par['id'])})")
            render.untrusted(par["question"])
            render.untrusted((par["answers"] or [""])[0], "its answer")
        fields = detail["checklist_fields"]
        translation = bool(q.get("parent_id"))
        meta = q.get("metadata") or {}
        if meta.get("original_question") or meta.get("original_answers"):
            with st.expander("The original, before the edit"):
                if meta.get("original_question"):
                    render.untrusted(meta["original_question"], "question")
                if meta.get("original_answers"):
                    render.untrusted((meta["original_answers"] or [""])[0], "answer")
        mine = next((r for r in detail["reviews"] if r["annotator"] == who), None)
        titles = [d.get("title") or d["id"] for d in detail["documents"]]
        with st.form(f"review_{qid}", border=False):
            checklist.checklist(fields, qid, mine["checklist"] if mine else {}, titles)
            with workspace.decision_bar():  # stays in view (sticky) below the checklist
                for (decision, title), key in zip(BUTTONS.items(), "AXE"):
                    st.form_submit_button(
                        md(title),
                        type="secondary",  # filled means a chosen checklist answer
                        shortcut=key,
                        help=md(f"{title} (key {key})"),
                        on_click=_decide,
                        args=(qid, decision, seen, fields, q["question"]),
                    )
            if refusal and refusal[0] == qid:  # a refusal shows here, beside the buttons
                workspace.show_refusal(refusal[1])
            boxes = st.columns(2)
            if not translation:
                boxes[0].text_area(
                    "Edited question (for Save edit; the original is kept)",
                    key=f"edited_{qid}",
                    height=68,
                )
            boxes[1].text_input("Note (optional)", key=f"note_{qid}")
            st.caption(shortcuts.TYPING_HINT)
        with st.container(horizontal=True):
            st.button(
                "Skip",
                key=workspace.item_bound("review_skip", qid),
                shortcut="S",
                on_click=_skip,
                args=(qid, q["question"], seen, fields),
            )
            st.button("Undo", key="review_undo", shortcut="U", on_click=_undo)
            workspace.guideline_button("review", "review_guidelines")
        st.caption(md(review_rules(translation, any(f["name"] == "support_a" for f in fields))))
        links.share_link("Review_questions", qid)
    if side is not None:
        with side, workspace.pane(f"review_sources_{qid}", workspace.EVIDENCE_PX, False):
            if detail["passages"]:
                n_built = sum(p["role"] == "evidence" for p in detail["passages"])
                st.caption(
                    f"Passages: {len(detail['passages'])} of the document's "
                    f"{md(detail['n_passages'])}, entity names in bold; {n_built:d} the question "
                    f"was built from, then mentions of its entities from first to last "
                    f"({md(detail['n_mention_passages'])} passages mention them). Far-apart "
                    "passage numbers mean a long span."
                )
                for p in detail["passages"]:
                    st.caption(
                        f"Passage {md(p['idx'])} · "
                        + (
                            "the question was built from it"
                            if p["role"] == "evidence"
                            else "mentions the entity"
                        )
                    )
                    render.highlighted(p["markdown"])
            for i, a in enumerate(detail["articles"]):
                st.markdown(
                    f"**Article {md('AB'[i] if i < 2 else i + 1)}: "
                    f"{escape_markdown(a.get('title') or a['id'])}**"
                )
                render.untrusted(a["text"])
    if detail["entity"]:
        e = detail["entity"]
        others = [x["name"] for x in detail["entities"] if x["id"] != e["id"]]
        st.markdown(
            f"**Entity:** {escape_markdown(e['name'])} "
            f"({md(e['n_mentions'])} mentions, rank {md(e['rank'])})"
            + (" · also about: " + ", ".join(escape_markdown(o) for o in others) if others else "")
        )
    with st.expander("Provenance"):
        st.json(detail["provenance"])

    if detail["hidden_note"]:
        st.info(md(detail["hidden_note"]))
    if detail["reviews"]:
        st.subheader("Reviews of this question")
        st.dataframe(
            [
                {
                    k: r[k]
                    for k in (
                        "annotator",
                        "decision",
                        "edited_question",
                        "edited_answer",
                        "note",
                        "created_at",
                    )
                }
                for r in detail["reviews"]
            ],
            hide_index=True,
        )
        agree = detail["review_agreement"]
        if agree:
            st.markdown(
                f"**Agreement between the {md(agree['n_reviewers'])} reviewers** (share of "
                "agreeing reviewer pairs per item)"
            )
            st.dataframe(
                [{"item": k, "agreement": v} for k, v in agree["pairwise_agreement"].items()],
                hide_index=True,
            )
