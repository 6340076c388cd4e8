"""Safe rendering: untrusted text (its prose escaped, its code blocks verbatim), a judgment's
evidence quotes, the evidence passages beside the answers, a task's guideline, and the
agreement-with-gold block the Team and Agreement pages share."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from app_support.caching import cached_answers, cached_view
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.stats.agreement import KAPPA_CI_MIN_ITEMS
from core.store.engine import Database
from core.views.evidence_panel import evidence_passages, evidence_query, passage_window
from core.views.gold import LEAVE_ONE_OUT, gold_agreement, gold_size, people_agreement
from core.views.gold import MIN_ITEMS as GOLD_MIN_ITEMS
from core.views.guidelines import task_guideline
from core.views.judgments import evidence_table
from core.views.text import escape_markdown, inert_table, md, split_code_blocks

#: The line an item without a source document shows where its evidence would be.
NO_SOURCE = "This item has no source document."


def untrusted(text: str, label: str | None = None) -> None:
    """Render untrusted text (a book passage, a model answer): its prose as escaped Markdown,
    its fenced code blocks verbatim as code (``st.code``, long lines wrapped), in order."""
    if label:
        st.caption(escape_markdown(label))
    segments = split_code_blocks(text) if text else []
    if not segments:
        st.markdown("*(empty)*")
    for seg in segments:
        if seg.kind == "code":
            st.code(seg.text, language=seg.language, wrap_lines=True)
        else:
            st.markdown(escape_markdown(seg.text))


def evidence(items: object) -> None:
    """A judgment's evidence quotes (a stored list; anything else shows none), each marked verified (found in the source text) or not."""
    table = evidence_table(items)
    if not len(table):
        st.caption("No evidence quotes.")
        return
    n_ok = int(table["verified"].sum())
    st.caption(f"Evidence: {len(table)} quote(s), {n_ok} verified against the source text")
    for q in table.to_dict("records"):
        try:
            score = f" (match {float(q['score']):.0f}/100)" if q["score"] == q["score"] else ""
        except (TypeError, ValueError):
            score = ""
        mark = (":green[**✓ verified**]" if q["verified"] else ":red[**✗ NOT verified**]") + score
        st.markdown(f"{mark}: {escape_markdown(q['quote'])}")


def highlighted(markdown_safe: str) -> None:
    """Render Markdown built by ``highlight_markdown`` (already escaped)."""
    st.markdown(md(markdown_safe))


def gold_block(db: Database, task: str = SIDE_BY_SIDE_TASK) -> None:
    """Agreement between people (pairwise kappa) and of every rater with gold, with intervals."""
    st.subheader("Agreement between people and with gold")
    pairs = cached_view(db, people_agreement, task)
    st.markdown("**Between people**: Cohen's kappa over the items both labelled.")
    if len(pairs):
        st.table(inert_table(pairs))
    else:
        st.caption("No two people have labelled the same items yet.")
    n_gold = cached_view(db, gold_size, task)
    st.markdown(
        f"**With gold**: {md(n_gold)} {md(task)} item(s) have a gold label (the adjudicated label, "
        "else the gold sources' label, else the label of more than half, and at least two, of the "
        "people). " + LEAVE_ONE_OUT
    )
    table = cached_view(db, gold_agreement, task)
    if len(table):
        st.table(inert_table(table))
    st.caption(
        f"Cohen's kappa with a 95% large-sample interval (from {KAPPA_CI_MIN_ITEMS} items on); "
        f"fewer than {GOLD_MIN_ITEMS} shared items: too few items."
    )


def guideline(task: str, expanded: bool = False) -> None:
    """The task's guideline (``guidelines/<task>.md``, the project's own Markdown)."""
    with st.expander("Guidelines", expanded=expanded):
        st.markdown(md(task_guideline(task)))  # project Markdown: md() keeps it as written


def short(text: str, n: int = 80) -> str:
    """``text`` cut to ``n`` characters (with an ellipsis), for confirmations and pickers."""
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def evidence_beside(
    db: Database,
    documents: Sequence[tuple[str, str]],
    question: str,
    answers: list[str],
    key: str,
) -> bool:
    """The passages most relevant to the question and the answers (BM25), matched words in
    bold, each with a *Read further* expander that pages through the neighbouring passages.
    An item without a source document gets one line saying so; False then (nothing to search)."""
    hits = cached_answers(db, evidence_passages, tuple(documents), question, tuple(answers))
    if not hits and not documents:  # e.g. imported PRD answers
        st.caption(NO_SOURCE)
        return False
    st.markdown("**Evidence** (best BM25 passages for the question and the answers)")
    if not hits:
        st.caption("No passage of the source shares a word with the question or the answers.")
        return True
    query = evidence_query(question, answers)
    for n, hit in enumerate(hits):
        st.caption(
            f"{escape_markdown(hit['document'])} · passage {md(hit['idx'])} of "
            f"{md(hit['n_passages'])} · BM25 {md(hit['score'])}"
        )
        highlighted(hit["markdown"])
        key_base = f"{key}_further_{n}_{hit['document_id']}_{hit['position']}"
        # a toggle, not an expander: the neighbours are read and rendered only when asked for
        if st.toggle(f"Read further around passage {md(hit['idx'])}", key=f"{key_base}_on"):
            pos = st.number_input(
                "Passage (previous / next with - / +)",
                min_value=0,
                max_value=hit["n_passages"] - 1,
                value=hit["position"],
                step=1,
                key=key_base,
            )
            window = passage_window(db, hit["document_id"], int(pos), query, radius=1)
            with st.container(border=True):
                for p in window["passages"]:
                    st.caption(
                        f"Full text, passage {md(p['idx'])}"
                        + (" (this one)" if p["centre"] else "")
                    )
                    highlighted(p["markdown"])
    return True
