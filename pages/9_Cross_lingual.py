"""Cross-lingual (XRAG): accuracy, response-language correctness, the controlled analysis and the
review labels (DataFrames from core.views.xrag)."""

import streamlit as st

from app_support import connection, frame, signin
from core.views.numbers import num
from core.views.text import md
from core.views.xrag import (
    accuracy_table,
    controlled_table,
    label_distribution_table,
    panel_human_agreement,
    response_language_table,
)

frame.setup("Cross-lingual")
signin.sign_in_sidebar()

with connection.database() as db:
    acc = accuracy_table(db)
    if acc.empty:
        st.info(
            "No cross-lingual results yet: build the XRAG demo (`python -m core demo`) or "
            "run an XRAG evaluation."
        )
    for title, frame, empty in (
        ("Accuracy by model, language, setting and question type", acc, "Nothing yet."),
        ("Response-language correctness", response_language_table(db), "Nothing yet."),
        (
            "Review label distribution",
            label_distribution_table(db),
            "No XRAG question reviewed yet: review them on the **Review questions** page "
            "(Origin = xrag). A question that either article answers alone (Sufficient) is "
            "discarded.",
        ),
    ):
        st.subheader(md(title))
        if frame.empty:
            st.caption(md(empty))
        else:
            st.dataframe(frame, hide_index=True, width="stretch")
    st.subheader("Controlled analysis (paired, McNemar + paired bootstrap)")
    if st.toggle("Compute the controlled analysis", key="xrag_controlled"):
        ctl = controlled_table(db, n_boot=1000, seed=0)
        if len(ctl):
            st.dataframe(ctl, hide_index=True, width="stretch")
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
