"""Browse: every question as a list (filter, sort, page through) and the one opened in place,
with every answer, every rater's verdicts and the human labels.

Blind for annotators (core.views.blind): other people's labels and the systems' names of items
still in the viewer's queue are held back; adjudicators and admins see everything."""

from collections.abc import Callable

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_support import caching, connection, frame, links, render, signin
from core.views.blind import browse_view
from core.views.browse_grid import verdict_grid
from core.views.browse_list import (
    JUDGES,
    PAGE_SIZE,
    PEOPLE,
    PEOPLE_VS_JUDGE,
    PEOPLE_VS_PEOPLE,
    SORTS,
    BrowseFilters,
    browse_choices,
    browse_rows,
    page_of,
    table_rows,
)
from core.views.review import question_labels
from core.views.text import escape_markdown, md, option

frame.setup("Browse")
who = signin.sign_in_sidebar()
viewer, role = (who.name, who.role) if who else (None, None)
st.caption(
    "Find any question and see who answered and judged it: narrow the list with **Filters** "
    "and the search, then pick a question below the list to open it here."
)
ANY = "(all)"
#: The filters behind the *Filters* button besides *Document* (each keyed ``browse_<name>``).
FILTERS = ("Status", "Origin", "System", "Rater", "Verdict", "Disagreement", "Gold")


def _pick(
    col: DeltaGenerator, label: str, values: list[str], show: Callable[[str], str] = option
) -> str | None:
    """A filter's choice (None: any)."""
    got = col.selectbox(md(label), [ANY, *values], format_func=show, key=f"browse_{label}")
    return None if got == ANY else got


with connection.database() as db:
    opts = caching.cached_view(db, browse_choices)
    if not opts["origins"]:
        st.info(connection.EMPTY_HINT)
        st.stop()
    docs = dict(opts["documents"])
    # the eight filters behind one button (its label says which are set), beside the search, the
    # sort and the page number: on a phone the list starts on the first screen, not under them
    bar = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    keys = [f"browse_{n}" for n in FILTERS] + ["browse_doc"]
    set_now = sum(st.session_state.get(k, ANY) != ANY for k in keys)
    pop = bar.popover(
        md(f"Filters ({set_now} set)") if set_now else "Filters",
        width="content",
        key="browse_filters",
    )
    c = pop.columns(2)
    status = _pick(c[0], "Status", opts["statuses"])
    origin = _pick(c[1], "Origin", opts["origins"])
    doc = c[0].selectbox(
        "Document", [ANY, *docs], format_func=lambda d: option(docs.get(d, d)), key="browse_doc"
    )
    system = _pick(c[1], "System", opts["systems"])
    rater = _pick(c[0], "Rater", [PEOPLE, JUDGES, *opts["raters"]])
    winners = set(opts["systems"])
    verdict = _pick(
        c[1], "Verdict", opts["verdicts"], lambda v: option(f"{v} wins" if v in winners else v)
    )
    split = _pick(c[0], "Disagreement", [PEOPLE_VS_PEOPLE, PEOPLE_VS_JUDGE])
    gold = _pick(c[1], "Gold", ["with gold", "without gold"])
    search = bar.text_input("Search question text or id", key="browse_search", width=320)
    sort = bar.selectbox("Sort", SORTS, key="browse_sort", width=200)
    filters = BrowseFilters(
        status=status,
        origin=origin,
        document_id=None if doc == ANY else doc,
        system=system,
        rater=rater,
        verdict=verdict,
        disagreement=split,
        gold=None if gold is None else gold == "with gold",
        search=search,
        sort=sort,
    )
    rows = caching.cached_view(db, browse_rows, filters, viewer, role)
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    number = 1
    if pages > 1:
        number = int(
            bar.number_input(
                f"Page (of {md(pages)})",
                min_value=1,
                max_value=pages,
                value=1,
                key=f"browse_page_{hash(filters)}",  # other filters: back to the first page
                width=120,
            )
        )
    shown = page_of(rows, number)
    st.caption(
        f"{len(rows)} questions match"
        + (f", {md(PAGE_SIZE)} a page: page {md(number)} of {md(pages)}." if pages > 1 else ".")
    )
    if shown:
        st.dataframe(shown, hide_index=True, width="stretch")
    ids = [r["id"] for r in shown]
    wanted = links.deep_link_id()
    if wanted and wanted not in ids:
        ids = [wanted, *ids]
    if not ids:
        st.info("No question matches: clear a filter above.")
        st.stop()
    labels = caching.cached_view(db, question_labels, tuple(ids))
    qid = st.selectbox(
        "Open question",
        ids,
        index=ids.index(wanted) if wanted in ids else 0,
        format_func=lambda i: render.short(labels.get(i, str(i)), 100),
    )
    d = caching.cached_view(db, browse_view, qid, viewer, role)
    if d is None:
        st.warning("No such question.")
        st.stop()

q = d["question"]
hidden_pairs = d["hidden_pairs"]  # d is known here; a section function sees it as optional
render.untrusted(q["question"], f"Question {q['id']} · {q['origin']} · status {q['status']}")
if d["hidden_note"]:
    st.info(md(d["hidden_note"]))
links.share_link("Browse", q["id"])
if q.get("answers"):
    st.markdown("**Reference answers**")
    for ref in q["answers"]:
        render.untrusted(ref)

st.subheader(f"Answers ({len(d['answers'])})")
if not d["answers"]:
    st.caption(
        "No system has answered this question yet (answers come from a run: see the Run "
        "page). Pick another question above, e.g. Origin = narrativeqa."
    )
for a in d["answers"]:
    with st.expander(
        f"{escape_markdown(a['system'])} ({md(a['status'])}, {md(a['context_tokens'])} "
        "context tokens)",
        expanded=len(d["answers"]) <= 4,
    ):
        render.untrusted(a["text"])
        for j in [j for j in d["absolute"] if j["answer_id"] == a["id"]]:
            flag = " (superseded)" if j["superseded"] else ""
            st.markdown(
                f"{escape_markdown(j['rater'])} "
                f"{escape_markdown(j['criterion'] or '')}: "
                f"**{escape_markdown(j['verdict'] or j['status'])}**{flag}"
            )
            render.evidence(j["evidence"])
            if j["rationale"]:
                render.untrusted(j["rationale"])
            with st.expander("The rater's reply, as received"):
                st.text(j["raw"])

st.subheader(f"Side-by-side verdicts ({len(d['pairwise'])})")
if d["pairwise"]:
    st.dataframe(
        table_rows(
            d["pairwise"],
            (
                "rater",
                "system_a",
                "system_b",
                "verdict",
                "status",
                "order_shown",
                "rationale",
                "superseded",
                "created_at",
            ),
        ),
        hide_index=True,
        width="stretch",
    )
    pick = st.selectbox("Reply as received, of judgment no.", [j["id"] for j in d["pairwise"]])
    st.text(next(j["raw"] for j in d["pairwise"] if j["id"] == pick))

st.subheader("Human labels")
if d["reviews"]:
    st.markdown(f"**Reviews ({len(d['reviews'])})**")
    st.dataframe(
        table_rows(
            d["reviews"],
            (
                "annotator",
                "decision",
                "edited_question",
                "edited_answer",
                "note",
                "supersedes",
                "created_at",
            ),
        ),
        hide_index=True,
        width="stretch",
    )
if d["human_verdicts"]:
    st.markdown(f"**Verdicts of people ({len(d['human_verdicts'])}, current only)**")
    st.dataframe(table_rows(d["human_verdicts"]), hide_index=True, width="stretch")
if d["resolutions"]:
    st.markdown(f"**Dispute resolutions ({len(d['resolutions'])})**")
    st.dataframe(table_rows(d["resolutions"]), hide_index=True, width="stretch")
if not d["reviews"] and not d["human_verdicts"] and not d["resolutions"]:
    st.caption("No human labels on this question yet.")


# ------------------------------------------------------------------------------------------
# Every pairwise verdict of this question at a glance (imported evaluations have many raters)
# ------------------------------------------------------------------------------------------


def verdict_grid_section() -> None:
    """Pairs as shown (rows) x raters (columns), each cell the winner that rater chose."""
    with connection.database() as db:
        grid = caching.cached_judgments(db, verdict_grid, qid, hidden_pairs)
    if len(grid):
        st.subheader("Who won, by pair and rater")
        st.caption("Every effective pairwise verdict on this question; 'tie' = Equal.")
        st.dataframe(grid, hide_index=True, width="stretch")


verdict_grid_section()
