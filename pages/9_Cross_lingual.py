"""Cross-lingual (XRAG): accuracy, response-language correctness, the controlled analysis and the
review labels (DataFrames from core.views.xrag)."""

from typing import Any

import pandas as pd
import streamlit as st

from app_support import connection, frame, signin
from core.views.numbers import num
from core.views.score_figures import xrag_accuracy_figure
from core.views.text import md
from core.views.xrag import (
    accuracy_table,
    controlled_table,
    label_distribution_table,
    panel_human_agreement,
    response_language_table,
)

frame.setup("Cross-lingual")


def ci_columns(
    table: pd.DataFrame, interval: str = "Wilson interval of the rate"
) -> dict[str, Any]:
    """The interval's level in its columns' names instead of a ``level`` column on every row."""
    if "level" not in table or table.empty:
        return {}
    level = f"{float(table['level'].iloc[0]):.0%}"
    what = f"{level} {interval}"
    return {
        "level": None,
        "ci_low": st.column_config.NumberColumn(f"{level} CI low", help=what, format="%.3f"),
        "ci_high": st.column_config.NumberColumn(f"{level} CI high", help=what, format="%.3f"),
    }


#: Column names people read instead of the tables' field names.
NAMES: dict[str, Any] = {
    "qtype": st.column_config.TextColumn(
        "question type",
        help="XRAG's question types: aggregation, comparison, multihop, set (all items of a "
        "kind across both articles); 'all': every type together",
    ),
    "n": st.column_config.NumberColumn("answers", help="answers with a verdict"),
    "n_correct": "correct",
    "n_no_verdict": st.column_config.NumberColumn(
        "no verdict", help="answers the judge panel left undecided (a tie or unparsed)"
    ),
    "content_correct": st.column_config.NumberColumn(
        "content correct", help="answers whose content the panel judged correct"
    ),
    "accuracy": st.column_config.NumberColumn(
        "accuracy", help="correct / answers with a verdict (0 to 1)", format="%.3f"
    ),
    # the response-language table
    "n_answers": st.column_config.NumberColumn("answers", help="answers in this group"),
    "n_detected": st.column_config.NumberColumn(
        "language detected", help="answers whose language the detector (lingua) could tell"
    ),
    "n_in_language": st.column_config.NumberColumn(
        "in the question's language", help="detected answers written in the question's language"
    ),
    "rate": st.column_config.NumberColumn(
        "share in language",
        help="in the question's language / language detected (0 to 1)",
        format="%.3f",
    ),
    "n_undetermined": st.column_config.NumberColumn(
        "language undetermined",
        help="answers too short to tell (numbers, names, empty): left out of the share",
    ),
    "wrong_languages": st.column_config.TextColumn(
        "other languages (answers)", help="the languages of the answers in another language"
    ),
}

signin.sign_in_sidebar()
st.caption(
    "How well each model answers a question over two articles in different languages, and in "
    "which language it replies: read the accuracy table first, then compute the controlled "
    "analysis to compare settings."
)

with connection.database() as db:
    acc = accuracy_table(db)
    if acc.empty:
        st.info(
            "No cross-lingual results yet: build the XRAG demo (`python -m core demo`) or "
            "run an XRAG evaluation."
        )
    for title, table, empty in (
        ("Accuracy by model, language, setting and question type", acc, "Nothing yet."),
        ("Response-language correctness", response_language_table(db), "Nothing yet."),
        (
            "Review label distribution",
            label_distribution_table(db),
            "No XRAG question reviewed yet: review them on the Review questions page "
            "(Origin = xrag). A question that either article answers alone (Sufficient) is "
            "discarded.",
        ),
    ):
        st.subheader(md(title))
        if table is acc and not acc.empty:
            st.plotly_chart(xrag_accuracy_figure(acc), width="stretch")
        if table.empty:
            st.caption(md(empty))
        else:
            st.dataframe(
                table,
                hide_index=True,
                width="stretch",
                column_config=ci_columns(table) | NAMES,
            )
    st.subheader("Controlled analysis (paired, McNemar + paired bootstrap)")
    if st.toggle("Compute the controlled analysis", key="xrag_controlled"):
        ctl = controlled_table(db, n_boot=1000, seed=0)
        if len(ctl):
            st.dataframe(
                ctl,
                hide_index=True,
                width="stretch",
                column_config=ci_columns(
                    ctl, "paired bootstrap interval of the difference in accuracy"
                ),
            )
        else:
            st.caption("Nothing yet.")
    st.subheader("Panel vs human verdicts")
    agree = panel_human_agreement(db)
    if not agree.get("n"):
        st.caption(
            "No human verdicts on XRAG answers yet, so nothing to compare the judge panel with."
        )
    else:
        m = st.columns(3)
        m[0].metric("Answers both judged", agree["n"])
        m[1].metric(
            "Percent agreement",
            num(agree.get("agreement"), ".1%", "-"),
        )
        m[2].metric(
            "Cohen's kappa",
            num(agree.get("cohen_kappa"), ".3f", "-"),
        )
