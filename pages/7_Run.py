"""Run: pick data, systems, judges and c; see the dry-run estimate; run with a progress bar."""

import threading
import time
from collections.abc import Sequence
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_support import caching, connection, frame, signin
from core.answering.systems import system_kinds
from core.errors import WorkbenchError
from core.judging.specs import JudgeKind, judge_names
from core.pipeline.experiment import run_experiment
from core.views.review import question_filters
from core.views.run import (
    DEFAULT_ANSWER_MODEL,
    DEFAULT_JUDGE_MODEL,
    dry_run_estimate,
    experiment_config,
    model_choices,
    run_counter,
    run_progress,
    unused_system_prefix,
)
from core.views.text import md

frame.setup("Run an experiment")
signin.require_annotator("admin")  # runs spend money: signed in, and admin once accounts exist

models = model_choices()
with st.expander("Models (offline baselines need no key)", expanded=False):
    st.dataframe(models, hide_index=True, width="stretch")
usable = models[models["available"]]["model"].tolist()
label = {
    m: m if ok else f"{m} (unavailable)" for m, ok in zip(models["model"], models["available"])
}
all_models = models["model"].tolist()

with connection.database() as db:
    opts = caching.cached_view(db, question_filters)
if not opts["origins"]:
    st.info(connection.EMPTY_HINT)
    st.stop()

c: Sequence[DeltaGenerator] = st.columns(4)
name = c[0].text_input("Experiment name", value="app_offline")
origins = opts["origins"]
origin = c[1].selectbox(
    "Questions (origin)",
    origins,
    index=origins.index("narrativeqa") if "narrativeqa" in origins else 0,
)
n = int(
    c[2].number_input(
        "Questions to sample",
        min_value=1,
        value=20,
        step=10,
        help="How many questions the run draws with the seed (`c` in an experiment's TOML).",
    )
)
seed = int(c[3].number_input("Seed", value=0, step=1))
kinds = system_kinds()
c = st.columns(2)
answer_model = c[0].selectbox(
    "Answering model",
    all_models,
    format_func=label.__getitem__,
    index=all_models.index(DEFAULT_ANSWER_MODEL) if DEFAULT_ANSWER_MODEL in all_models else 0,
)
contexts = c[0].multiselect(
    "Systems (context strategies)",
    list(kinds),
    default=["none", "rag"],
    help="; ".join(f"{md(k)}: {md(v)}" for k, v in kinds.items()),
)
judge_model = c[1].selectbox(
    "Judge model",
    all_models,
    format_func=label.__getitem__,
    index=all_models.index(DEFAULT_JUDGE_MODEL) if DEFAULT_JUDGE_MODEL in all_models else 0,
)
judge_kinds = c[1].multiselect(
    "Judges",
    judge_names(),
    default=[
        k
        for k in (JudgeKind.AUTOAIS, JudgeKind.REFERENCE_ABSOLUTE, JudgeKind.SIDE_BY_SIDE)
        if k in judge_names()
    ],
)
with connection.database() as db:
    free_prefix = unused_system_prefix(db, answer_model, contexts)
system_prefix = st.text_input(
    "System name (prefix)",
    value=free_prefix,
    key=f"run_system_prefix_{answer_model}",
    help="The systems are stored as PREFIX/context (e.g. app-extractive/rag). The default is a "
    "name not stored yet; reuse a stored name only to add to that system with the same settings.",
)
unavailable = [m for m in {answer_model, judge_model} if m not in usable]
for m in unavailable:
    st.warning(
        f"{md(m)} is unavailable: {md(label[m])} - "
        f"{md(models.set_index('model').loc[m, 'reason'])}. The dry run still works."
    )

config = experiment_config(
    name=name,
    origin=origin,
    c=n,
    seed=seed,
    answer_model=answer_model,
    contexts=contexts,
    judge_kinds=judge_kinds,
    judge_model=judge_model,
    system_prefix=system_prefix,
)
with st.expander("Experiment config"):
    st.json(config)

if not contexts:
    st.stop()
with connection.database() as db:
    try:
        estimate = caching.cached_view(db, dry_run_estimate, config)
    except WorkbenchError as exc:
        st.error(f"This experiment cannot run: {md(exc)}")
        st.stop()
st.subheader("Dry-run estimate")
m = st.columns(4)
m[0].metric("Questions", estimate["questions"])
m[1].metric("Calls", f"{estimate['calls']:,}")
m[2].metric("Input tokens", f"{estimate['input_tokens']:,}")
m[3].metric("Cost (USD)", f"{estimate['cost_usd']:.4f}")
st.caption(md(estimate.get("note", "")))

if st.button("Run", type="primary", disabled=bool(unavailable)):
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            with connection.worker_database() as wdb:
                result["summary"] = run_experiment(wdb, config, dry_run=False, progress=False)
        except Exception as exc:  # shown to the user below
            result["error"] = str(exc)

    with connection.database() as db:
        baseline = run_counter(db)
        bar = st.progress(0.0, text="starting")
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        total = max(1, estimate["calls"])
        while worker.is_alive():
            done = run_progress(db, baseline)
            bar.progress(min(1.0, done / total), text=f"{done:,} of about {total:,} results stored")
            time.sleep(0.3)
        worker.join()
        bar.progress(1.0, text="finished")
    if "error" in result:
        st.error(
            f"The run stopped: {md(result['error'])}. Everything stored so far is kept; "
            "run again to resume."
        )
    else:
        st.success("Done.")
        st.json(result["summary"])
