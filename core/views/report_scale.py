"""The report's agreement section for a task on its own scale (yes/no, categories, ordered
ratings, label sets): :func:`core.views.scale_agreement.scale_rows` as an HTML table, and the
prevalence, alpha and kappa-paradox sentences. Values are escaped with
:func:`core.views.report_base.esc`."""

from __future__ import annotations

from core.views.numbers import num
from core.views.rater_report.records import RaterSection
from core.views.report_base import esc, pct, table
from core.views.scale_agreement import scale_notes, scale_rows


def scale_agreement_html(sec: RaterSection) -> str:
    """Agreement on the task's scale, or "" for a side-by-side section."""
    sa = sec.get("scale_agreement")
    if not sa:
        return ""
    rows = scale_rows(sa)
    head = list(rows[0])
    cells = (
        [
            v if h in ("compared with", "items") else pct(v) if h == "agreement" else num(v)
            for h, v in r.items()  # every row has the same columns, in order
        ]
        for r in rows
    )
    notes = "".join(f"<p class='note'>{esc(n)}</p>" for n in scale_notes(sa))
    return (
        f"<h3>Agreement on the {esc(sa['scale'])} scale (alt-test metric {esc(sec['metric'])})</h3>"
        + table(head, cells, set(range(1, len(head))))
        + notes
    )
