"""The rater-validation report (:func:`core.views.rater_report.assemble.report_data`) as one
self-contained HTML file: inline CSS (with print rules) and inline SVG charts
(:mod:`core.views.report_svg`), no script, no remote font, image or style sheet, so it reads
offline and prints. Every string from data goes through :func:`html.escape`
(:func:`core.views.report_base.esc`).
"""

from __future__ import annotations

from core.views.numbers import num
from core.views.rater_report.records import RaterReport, RaterSection
from core.views.report_base import CSS, esc, pct, table
from core.views.report_scale import scale_agreement_html
from core.views.report_sections import (
    agreement_html,
    biases_html,
    cost_html,
    disagreements_html,
    needed_html,
    ranking_html,
)
from core.views.report_svg import line_chart


def _verdict(sec: RaterSection, data: RaterReport) -> str:
    status = sec["verdict"]["status"]
    cls = {"passes": "passes", "fails": "fails"}.get(status, "nodata")
    out = [
        f'<div class="verdict {cls}" data-verdict="{esc(status)}">{esc(sec["verdict"]["sentence"])}</div>'
    ]
    alt = sec["alt"]
    if alt:
        out.append(
            '<div class="metrics">'
            f"<span>Winning rate<b>{pct(alt['winning_rate'])}</b></span>"
            f"<span>Advantage probability<b>{num(alt['advantage_prob'])}</b></span>"
            f"<span>epsilon<b>{num(alt['epsilon'], 'g')}</b></span>"
            f"<span>Items<b>{esc(alt['items'])}</b></span></div>"
        )
    out.append(f'<p class="note">{esc(data["epsilon_text"])}</p>')
    out.append(sensitivity_html(sec, data))
    cls = "caveat" if sec["annotators"] == "anonymous slots" else "note"
    out.append(f'<p class="{cls}">{esc(sec["annotators_text"])}</p>')
    if alt:
        out.append("<h3>Per human</h3>")
        out.append(
            table(
                [
                    "human",
                    "items",
                    "rater's advantage (aligns at least as well)",
                    "person's own advantage",
                    "p-value",
                    "beaten",
                ],
                (
                    [
                        h["name"],
                        h["items"],
                        num(h["advantage"]),
                        num(h["human_advantage"]),
                        num(h["p_value"], ".3g"),
                        "yes" if h["rejected"] else "no",
                    ]
                    for h in alt["humans"]
                ),
                {1, 2, 3, 4},
            )
        )
        if alt["skipped"]:
            out.append(
                "<p class='note'>Not tested: "
                + esc("; ".join(f"{s['name']} ({s['reason']})" for s in alt["skipped"]))
                + "</p>"
            )
    elif sec["short"]:
        short = sec["short"]
        rows = sorted(short.get("items_needed", {}).items())
        out.append(f"<p>More humans needed: {esc(short.get('humans_needed', 0))}.</p>")
        if rows:
            out.append(table(["human", "more shared items needed"], rows, {1}))
    return "".join(out)


def sensitivity_html(sec: RaterSection, data: RaterReport) -> str:
    """The decision over epsilon 0 to 0.3 (inline SVG), the chosen epsilon marked."""
    curve = sec.get("sensitivity") or []
    if not curve:
        return ""
    chosen = data["epsilon"]
    chart = line_chart(
        [
            ("winning rate", [(p["epsilon"], p["winning_rate"]) for p in curve], True),
            ("advantage probability", [(p["epsilon"], p["advantage_prob"]) for p in curve], False),
        ],
        x_hi=max(0.3, chosen),
        marker=chosen,
        marker_label=f"chosen epsilon {chosen:g}",
        reference=0.5,
        reference_label="passes at a winning rate of 50%",
        x_label="epsilon",
        title=f"{sec['rater']}: winning rate and advantage probability over epsilon",
    )
    return (
        "<h3>The decision over epsilon</h3>"
        f"<p class='note'>{esc(sec['sensitivity_text'])}</p>" + chart
    )


def compare_table(data: RaterReport) -> str:
    """The auto-raters ranked by advantage probability."""
    return table(
        [
            "rank",
            "auto-rater",
            "verdict",
            "advantage probability",
            "winning rate",
            "items",
            "humans",
            "rater's kappa vs gold",
            "people's kappa vs gold",
            "USD per verdict",
        ],
        (
            [
                i + 1,
                r["rater"],
                r["status"],
                num(r["advantage_prob"]),
                pct(r["winning_rate"]),
                r["items"] if r["items"] is not None else "–",
                r["annotators"],
                num(r["gold_kappa"]),
                num(r.get("people_gold_kappa")),
                num(r["usd_per_verdict"], ".5f"),
            ]
            for i, r in enumerate(data["compare"])
        ),
        {0, 3, 4, 5, 7, 8, 9},
    )


def rater_html(sec: RaterSection, data: RaterReport) -> str:
    """One auto-rater's section (also used alone by the app page)."""
    if sec.get("scale_agreement"):  # a task on its own scale: no side-by-side sections
        middle = scale_agreement_html(sec)
    else:
        middle = (
            agreement_html(sec)
            + biases_html(sec)
            + cost_html(sec)
            + ranking_html(sec)
            + disagreements_html(sec, data["base_url"])
        )
    return (
        f"<section class='rater'><h2>{esc(sec['rater'])}</h2>"
        + _verdict(sec, data)
        + middle
        + needed_html(sec)
        + "</section>"
    )


def report_html(data: RaterReport) -> str:
    """The whole report as one HTML document."""
    head = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{esc(data['title'])}</title><style>{CSS}</style></head><body>"
        f"<h1>{esc(data['title'])}</h1><p class='note'>Can these auto-raters replace the people? "
        f"Task {esc(data['task'])} ({esc(data.get('scale', 'pairwise'))} labels); epsilon = "
        f"{esc(data['epsilon_choice'])}, q = "
        f"{esc(num(data['q'], 'g'))}; generated {esc(data['generated_at'])}.</p>"
    )
    first = "".join(
        f"<p class='verdict-line'>{esc(s['verdict']['sentence'])}</p>" for s in data["raters"]
    )
    ranked = "<h2>Auto-raters compared (ranked by advantage probability)</h2>" + compare_table(data)
    body = "".join(rater_html(s, data) for s in data["raters"])
    return head + first + ranked + body + "</body></html>"
