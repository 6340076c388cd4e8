"""Leaderboard: Bradley-Terry per group of compared systems, from human/auto verdicts; live.

Three tabs; only the open one runs (``st.tabs`` with ``bind="query-params"``: the tab is in the
URL as ``?section=...``).
"""

from dataclasses import replace

import streamlit as st

from app_support import caching, connection, frame, people_judge, signin, warmup
from core.views.blind import pickable_raters
from core.views.leaderboard import PAGE_RANKING, SOURCES, pairwise_raters
from core.views.leaderboard_figures import (
    accuracy_figure,
    autoais_accuracy,
    compare_rankings,
    forest_figure,
    matrix_figure,
    ranking_sources,
    slope_figure,
)
from core.views.numbers import num
from core.views.sections import PAGE_SECTIONS
from core.views.text import md

frame.setup("Leaderboard")
who = signin.sign_in_sidebar()
viewer, role = (who.name, who.role) if who else (None, None)
st.caption(
    "Which system answers best, ranked from the side-by-side verdicts with intervals: pick "
    "whose verdicts count, then filter Browse by System to read the verdicts behind a rank."
)

c = st.columns([2, 3, 2, 1])
source = c[0].selectbox(
    "Verdicts",
    SOURCES,
    index=SOURCES.index(warmup.LEADERBOARD_SOURCE),
    format_func={
        "human": "Human verdicts",
        "auto": "Auto-rater verdicts",
        "both": "Both",
    }.__getitem__,
    key="lb_source",
)
with connection.database() as db:
    raters = caching.cached_judgments(db, pairwise_raters, source)
    raters = pickable_raters(db, raters, viewer, role)  # a blind viewer: no colleague alone
ALL = {"human": "All annotators", "auto": "All auto-raters", "both": "All raters"}[source]
rater: str | None = c[1].selectbox(
    "Rater",
    [ALL, *raters],
    key=f"lb_rater_{source}",
    help="One rater's verdicts only, or every rater of the chosen kind.",
)
rater = None if rater == ALL else rater
n_boot = c[2].select_slider(
    "Bootstrap resamples", [0, 100, 200, 500, 1000], value=PAGE_RANKING.n_boot, key="lb_boot"
)
seed = int(c[3].number_input("Seed", value=PAGE_RANKING.seed, step=1, key="lb_seed"))
settings = replace(PAGE_RANKING, n_boot=n_boot, seed=seed)
POLL_S = 2
SECTIONS = PAGE_SECTIONS["Leaderboard"]


@st.fragment(run_every=POLL_S)
def watch_judgments(drawn: object) -> None:
    """Every POLL_S seconds: rerun the page when a judgment arrived after the board was drawn
    (``drawn``: the judgments' version then). It draws nothing, so an idle page costs the
    browser nothing; redrawing the board's charts on every poll kept it busy about 1 s in 2."""
    with connection.database() as db:
        changed = caching.judgments_key(db) != drawn
    if changed:
        st.rerun()


@st.fragment
def live_board() -> None:
    """The leaderboard of the chosen group (a fragment: picking a group reruns only it); reads
    only the judgments stored since it was last drawn."""
    group_key = f"lb_group_{source}_{rater}"  # one box per verdict source and rater: never stale
    with connection.database() as db:
        r = caching.live_leaderboard(db, source, rater, settings, st.session_state.get(group_key))
    st.caption(
        f"Live: checks for new verdicts every {POLL_S} s (read up to judgment {md(r.last_id)})."
    )
    if len(r.groups) > 1:
        keys = [g.key for g in r.groups]
        if st.session_state.get(group_key) not in keys:
            st.session_state.pop(group_key, None)
        st.info(
            f"These verdicts form **{len(r.groups)} separate groups of systems**: no verdict "
            "compares a system of one group with a system of another (different experiments "
            "or raters), so a common ranking would be meaningless. Each group has its own "
            "leaderboard; pick one."
        )
        labels = {g.key: g.label for g in r.groups}
        st.selectbox(
            "System group",
            keys,
            index=keys.index(r.group.key) if r.group is not None else 0,
            key=group_key,
            format_func=labels.__getitem__,
        )
    elif r.groups:
        st.caption(
            "All these verdicts link their systems into one group (a connected comparison graph)."
        )
    if r.n_unlinked:
        st.caption(
            f"{md(r.n_unlinked)} system(s) have no counted comparison left (only 'None' or "
            "withdrawn verdicts) and are not ranked."
        )
    lb = r.leaderboard
    if lb is None:
        st.info(
            f"No leaderboard yet: {md(r.why)}. Give verdicts on the Side by side page, or run an "
            "experiment with a side-by-side judge (Run page)."
        )
        return
    if r.note:
        st.warning(md(r.note))
    if r.thin:
        st.warning(md(r.thin))
    st.markdown(
        f"**{len(lb.systems)} systems, {int(lb.count_matrix().sum() / 2)} comparisons "
        f"over {md(lb.n_questions)} questions** ({md(r.n_none)} 'None' verdicts excluded, counted "
        "over all groups; Equal counts half a win each)"
    )
    level = f"{lb.settings.level:.0%}"  # the bootstrap intervals' level
    columns = {
        "name": st.column_config.TextColumn("system", width="medium"),
        "beta": st.column_config.NumberColumn(
            "beta",
            help="Bradley-Terry log-strength, centred (0 = average system; +1 = e times the odds)",
            format="%.3f",
        ),
        "ci_low": st.column_config.NumberColumn(
            f"beta {level} low",
            help=f"{level} bootstrap interval of beta (resampled questions)",
            format="%.3f",
        ),
        "ci_high": st.column_config.NumberColumn(
            f"beta {level} high",
            help=f"{level} bootstrap interval of beta (resampled questions)",
            format="%.3f",
        ),
        "strength": st.column_config.NumberColumn(
            "strength",
            help="e^beta: the odds of beating an average system (1 = even)",
            format="%.3f",
        ),
        "rank": st.column_config.NumberColumn("rank", help="1 = the highest beta"),
        "rank_ub": st.column_config.NumberColumn(
            "Best possible rank",
            help="1 + the systems surely better (their whole interval lies above this one's)",
        ),
        "n_comparisons": st.column_config.NumberColumn(
            "comparisons", help="verdicts on pairs with this system (wins + losses + ties)"
        ),
        "wins": st.column_config.NumberColumn("wins", help="verdicts it won"),
        "losses": st.column_config.NumberColumn("losses", help="verdicts it lost"),
        "ties": st.column_config.NumberColumn("ties", help="Equal verdicts (half a win each)"),
    }
    st.dataframe(
        lb.table, hide_index=True, width="stretch", key=f"lb_table_{source}", column_config=columns
    )
    scale = st.radio(
        "Forest plot scale",
        ["beta", "strength"],
        horizontal=True,
        format_func={"beta": "beta (log-strength)", "strength": "e^beta"}.get,
        key="lb_scale",
    )
    st.plotly_chart(forest_figure(lb, scale), width="stretch")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(
            matrix_figure(
                lb.predicted_win, "Predicted win probability (Bradley-Terry)", "P(row beats column)"
            ),
            width="stretch",
        )
    with right:
        st.plotly_chart(
            matrix_figure(lb.win_rate, "Empirical win rate (Equal = 1/2)", "share won by row"),
            width="stretch",
        )
    st.plotly_chart(
        matrix_figure(lb.counts, "Comparison counts", "comparisons", fmt=".0f", zmin=0, zmax=None),
        width="stretch",
    )


# ------------------------------------------------------------------------------------------
# Human verdicts vs an auto-rater: two rankings of the same systems
# ------------------------------------------------------------------------------------------


def ranking_comparison() -> None:
    """The Bradley-Terry ranking from human verdicts next to the one from an auto-rater."""
    with connection.database() as db:
        sources = caching.cached_judgments(db, ranking_sources)
        sources = {**sources, "human": pickable_raters(db, sources["human"], viewer, role)}
    if not sources["human"] or not sources["auto"]:
        missing = " and ".join(k for k in ("human", "auto") if not sources[k])
        st.info(
            f"No {md(missing)} pairwise verdicts yet: the comparison needs a ranking from each. "
            "Give verdicts on the Side by side page, or run an experiment with a side-by-side "
            "judge (Run page)."
        )
        return
    st.subheader("Human verdicts vs auto-rater: two rankings")
    c = st.columns(2)
    human = c[0].selectbox(
        "Human verdicts",
        sources["human"],
        key="cmp_human",
        help="One human rater, or NAME#*: every anonymous rating (slots NAME#1, #2, ...).",
    )
    auto = c[1].selectbox("Auto-rater", sources["auto"], key="cmp_auto")
    with connection.database() as db:
        cmp = caching.cached_judgments(db, compare_rankings, human, auto, settings)
    if cmp["why"] or len(cmp["systems"]) < 2:
        st.info(
            f"No comparison: {md(cmp['why'] or 'the two sources share fewer than two systems')}."
        )
        return
    rho = num(cmp["spearman"], ".3f", "-")
    tau = num(cmp["kendall"], ".3f", "-")
    m = st.columns(4)
    m[0].metric("Systems in both", len(cmp["systems"]))
    m[1].metric("Verdicts (human / auto)", f"{cmp['n_human']:,} / {cmp['n_auto']:,}")
    m[2].metric("Spearman's rho", rho)
    m[3].metric("Kendall's tau", tau)
    st.caption(
        "Both fits use only the systems both sources compared; Equal counts half a win. "
        "Rank correlations are over the systems' beta estimates."
    )
    st.plotly_chart(slope_figure(cmp), width="stretch")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(forest_figure(cmp["leaderboards"]["human"]), width="stretch")
    with right:
        st.plotly_chart(forest_figure(cmp["leaderboards"]["auto"]), width="stretch")
    st.dataframe(cmp["table"], hide_index=True, width="stretch")


def autoais() -> None:
    """Share of answers each auto-rater judged supported, with 95% intervals."""
    with connection.database() as db:
        acc = caching.cached_judgments(db, autoais_accuracy)
    if len(acc):
        raters = list(dict.fromkeys(acc["rater"]))
        picked = st.multiselect(
            "Auto-raters",
            raters,
            default=raters[:1],
            key="lb_acc_raters",
            help="Share of answers each auto-rater judged supported by the "
            "context, with a 95% Bernoulli interval.",
        )
        shown = acc[acc["rater"].isin(picked)]
        if len(shown):
            st.plotly_chart(accuracy_figure(shown), width="stretch")
            st.dataframe(shown, hide_index=True, width="stretch")
        else:
            st.caption("Pick at least one auto-rater.")
    else:
        st.caption("No absolute (AutoAIS) verdicts yet.")


live_tab, compare_tab, ppi_tab, accuracy_tab = st.tabs(SECTIONS, key="section", bind="query-params")
with live_tab:
    if live_tab.open:
        with connection.database() as db:
            version = caching.judgments_key(db)
        live_board()
        watch_judgments(version)
with compare_tab:
    if compare_tab.open:
        ranking_comparison()
with ppi_tab:
    if ppi_tab.open:
        people_judge.people_and_judge(who)
with accuracy_tab:
    if accuracy_tab.open:
        autoais()
