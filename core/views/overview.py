"""What the pages show: tables and records assembled from the store (pages call this, never SQL).

Nothing here imports Streamlit. Untrusted text (books, model answers) is returned as plain text;
:func:`escape_markdown` / :func:`highlight_markdown` (:mod:`core.views.text`) make it safe for
``st.markdown``. This module holds the Overview and the exports and re-exports each page's
views: :mod:`core.views.review`, :mod:`core.views.disputes`, :mod:`core.views.judgments`
(Side by side, Browse), :mod:`core.views.run`, :mod:`core.views.exam_book`. The Agreement and
Leaderboard pages' tables and plotly figures live in :mod:`core.views.figures`.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pandas as pd
import sqlite_utils

from core.annotation.base import required_annotations
from core.annotation.pairwise import pairwise_items
from core.store.connection import rows, table_counts
from core.views.disputes import dispute_ids

#: Model-id prefixes of the key-free baselines (algorithms, not language models).
OFFLINE_PREFIXES = ("offline", "baseline", "rule")


def data_version(db: sqlite_utils.Database) -> tuple:
    """A cheap fingerprint of everything the pages show (cache key): grows on any new row."""
    return tuple(
        db.execute(
            "select (select coalesce(max(id), 0) from judgments), "
            "(select coalesce(max(id), 0) from reviews), "
            "(select coalesce(max(id), 0) from dispute_resolutions), "
            "(select coalesce(max(id), 0) from disputes), (select coalesce(max(id), 0) from answers), "
            "(select count(*) from questions), (select count(*) from documents), "
            "(select count(*) || group_concat(status) from runs)"
        ).fetchone()
    )


def overview(db: sqlite_utils.Database) -> dict[str, Any]:
    """Counts, datasets, runs and what needs human attention."""
    counts = table_counts(db)
    empty = counts.get("documents", 0) == 0 and counts.get("questions", 0) == 0
    datasets = pd.DataFrame(
        rows(
            db,
            "select source, kind, count(*) documents, sum(n_tokens) tokens from documents "
            "group by source, kind order by source, kind",
        )
    )
    by_origin = pd.DataFrame(
        rows(
            db,
            "select origin, count(*) questions, sum(status = 'pending') pending, "
            "sum(status in ('accepted', 'edited')) accepted, sum(status = 'rejected') rejected "
            "from questions group by origin order by origin",
        )
    )
    judgments = pd.DataFrame(
        rows(
            db,
            "select rater_kind, kind, rater, count(*) judgments, sum(status = 'unparsed') unparsed "
            "from judgments where status != 'withdrawn' group by 1, 2, 3 order by 1, 2, 3",
        )
    )
    runs = pd.DataFrame(
        rows(
            db,
            "select id, kind, name, status, started_at, finished_at, n_calls, input_tokens, "
            "output_tokens, round(cost_usd, 4) cost_usd from runs order by started_at desc limit 50",
        )
    )
    k = required_annotations(db)
    shown = dispute_ids(db) if counts.get("disputes", 0) else []  # one per answer text
    n_disputes = len(shown)
    resolved = db.execute(
        "select count(distinct dispute_id) from dispute_resolutions r where r.resolution != "
        "'withdrawn' and not exists (select 1 from dispute_resolutions s where s.supersedes = r.id) "
        f"and dispute_id in ({','.join(str(int(d)) for d in shown) or 'null'})"
    ).fetchone()[0]
    attention = {
        "questions pending review": int(
            db.execute(
                "select count(*) from questions where status = 'pending' and origin != 'narrativeqa'"
            ).fetchone()[0]
        ),
        "disputes without a resolution": int(n_disputes - resolved),
        "unparsed judge replies": int(
            db.execute("select count(*) from judgments where status = 'unparsed'").fetchone()[0]
        ),
        "runs still running or failed": int(
            db.execute(
                "select count(*) from runs where status in ('running', 'failed', 'interrupted')"
            ).fetchone()[0]
        ),
    }
    models = sorted(
        {
            r[0]
            for r in db.execute(
                "select model from systems union select model from judges union "
                "select distinct model from llm_calls union "
                "select distinct json_extract(provenance, '$.model') from questions union "
                "select distinct substr(rater, 6) from judgments where rater like 'auto:%:%'"
            )
            if r[0]
        }
    )
    return {
        "empty": empty,
        "counts": counts,
        "datasets": datasets,
        "by_origin": by_origin,
        "judgments": judgments,
        "runs": runs,
        "attention": attention,
        "k": k,
        "models": models,
        "offline_only": bool(models)
        and all(m.split(":", 1)[0] in OFFLINE_PREFIXES for m in models),
        "side_by_side_items": len(pairwise_items(db)),
        "total_cost_usd": float(runs["cost_usd"].sum()) if len(runs) else 0.0,
    }


def export_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """A table as CSV or JSON Lines bytes (for ``st.download_button``)."""
    if fmt == "csv":
        buf = io.StringIO()
        frame.assign(
            **{
                c: frame[c].map(json.dumps)
                for c in frame.columns
                if frame[c].map(lambda v: isinstance(v, (list, dict))).any()
            }
        ).to_csv(buf, index=False)
        return buf.getvalue().encode("utf-8")
    return "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in frame.to_dict("records")
    ).encode("utf-8")
