"""The sections of one auto-rater in the rater-validation report's HTML: agreement, biases,
cost, disagreements with their evidence, and the items-needed simulation. Values are escaped with
:func:`core.views.report_base.esc`; charts are inline SVG (:mod:`core.views.report_svg`).
"""

from __future__ import annotations

from typing import Any

from core.views.numbers import interval, num
from core.views.rater_report.costs import cost_texts
from core.views.rater_report.records import AgreementSection, RaterSection
from core.views.report_base import esc, pct, share_cells, table
from core.views.report_svg import bar_chart, interval_chart


def _kappa_rows(ag: AgreementSection) -> list[tuple[str, Any, Any, Any]]:
    rows = [("rater vs gold", ag["gold"]["kappa"], *_bounds(ag["gold"]["interval"]))]
    rows += [(f"rater vs {p['name']}", p["kappa"], *_bounds(p["interval"])) for p in ag["people"]]
    rows += [
        (f"{c['a']} vs {c['b']} (ceiling)", c["kappa"], *_bounds(c["interval"]))
        for c in ag["ceiling"]
    ]
    rows += [
        (
            f"rater vs {c['name']}",
            c["with_ties"]["kappa"],
            c["with_ties"]["kappa_low"],
            c["with_ties"]["kappa_high"],
        )
        for c in ag["crowd"]
    ]
    rows += [
        (f"{s['prefix'].removeprefix('human:')}k Fleiss (ceiling)", s["fleiss_kappa"], None, None)
        for s in ag["slot_ceiling"]
    ]
    return rows


def _bounds(text: str) -> tuple[float | None, float | None]:
    """``[low, high]`` text of :func:`core.views.gold.kappa_row` back to numbers."""
    try:
        low, high = text.strip("[]").split(",")
        return float(low), float(high)
    except ValueError:
        return None, None


def agreement_html(sec: RaterSection) -> str:
    """The side-by-side agreement section ("" for a section without one: another task)."""
    ag = sec["agreement"]
    if ag is None:
        return ""
    out = ["<h3>Agreement (Cohen's kappa, 95% large-sample interval; none under 20 items)</h3>"]
    out.append(interval_chart(_kappa_rows(ag), lo=-0.2, hi=1.0, title="Cohen's kappa"))
    head = ["compared with", "items", "kappa", "95% interval", "agreement", "95% Wilson", "note"]
    g = ag["gold"]
    rows = [
        [
            "gold",
            g["items"],
            num(g["kappa"]),
            g["interval"],
            pct(g["agreement"]),
            interval(g["agreement_low"], g["agreement_high"], ".0%"),
            g["note"],
        ],
        [
            "people vs gold (same pairs)",
            g["items"],
            num(g.get("people_kappa")),
            "",
            "",
            "",
            "the people's kappa on the pairs the rater is scored on",
        ],
    ]
    rows += [
        [
            p["name"],
            p["items"],
            num(p["kappa"]),
            p["interval"],
            pct(p["agreement"]),
            interval(p["agreement_low"], p["agreement_high"], ".0%"),
            p["note"],
        ]
        for p in ag["people"]
    ]
    out.append(table(head, rows, {1, 2}))
    out.append(
        f"<p class='note'>{esc(g['gold_items'])} items have a gold label. Gold is leave-one-out: "
        "each person is scored against gold formed without their own label (the adjudication, "
        "else a gold source, else the majority of the other people), and the auto-rater is scored "
        "on the same (person, item) pairs against the same gold.</p>"
    )
    if ag["ceiling"]:
        out.append("<h3>The ceiling: people with each other</h3>")
        out.append(
            table(
                ["a", "b", "items", "kappa", "95% interval", "agreement", "note"],
                (
                    [
                        c["a"],
                        c["b"],
                        c["items"],
                        num(c["kappa"]),
                        c["interval"],
                        pct(c["agreement"]),
                        c["note"],
                    ]
                    for c in ag["ceiling"]
                ),
                {2, 3},
            )
        )
    for c in ag["crowd"]:
        out.append(f"<h3>Against the crowd verdict {esc(c['name'])} (in the order shown)</h3>")
        out.append(
            table(
                ["", "items", "agreement", "kappa", "95% interval"],
                (
                    [
                        label,
                        r["n"],
                        pct(r["agreement"]),
                        num(r["kappa"]),
                        interval(r["kappa_low"], r["kappa_high"]),
                    ]
                    for label, r in (
                        ("with ties", c["with_ties"]),
                        ("without ties", c["without_ties"]),
                    )
                ),
                {1, 3},
            )
        )
    for s in ag["slot_ceiling"]:
        out.append(
            f"<p>The ceiling among the anonymous slots {esc(s['prefix'])}k: Fleiss' kappa "
            f"{esc(num(s['fleiss_kappa'], '.3f'))}, Krippendorff's alpha "
            f"{esc(num(s['krippendorff_alpha'], '.3f'))} over {esc(s['items'])} items with two or "
            "more ratings (no per-slot Cohen's kappa: slots are not people).</p>"
        )
    grp = ag["by_group"]
    if grp["rows"]:
        out.append(f"<h3>By {esc(grp['grouping'])} (rater vs the people's majority label)</h3>")
        out.append(
            table(
                [grp["grouping"], "items", "agreement", "95% Wilson", "kappa", "95% interval"],
                (
                    [
                        r["group"],
                        r["items"],
                        pct(r["agreement"]),
                        interval(r["agreement_low"], r["agreement_high"], ".0%"),
                        num(r["kappa"]),
                        r["interval"],
                    ]
                    for r in grp["rows"]
                ),
                {1, 4},
            )
        )
    return "".join(out)


def biases_html(sec: RaterSection) -> str:
    """The side-by-side biases ("" for a section without them: another task)."""
    b = sec["biases"]
    if b is None:
        return ""
    pos, ln, ties, sp = b["position"], b["length"], b["ties"], b["self_preference"]
    rows = [
        ("position: both orders disagree", pos["both_orders"], None),
        ("position: first-shown answer wins", pos["first_shown"], pos["people_first_shown"]),
        ("length: longer answer wins", ln["rater"], ln["people"]),
        ("ties: Equal", ties["rater"]["Equal"], ties["people"]["Equal"]),
        ("ties: None (both wrong)", ties["rater"]["None"], ties["people"]["None"]),
    ]
    if sp["applies"]:
        rows.append(
            (f"self-preference: own family ({sp['family']}) wins", sp["rater"], sp["people"])
        )
    out = [
        "<h3>Biases (shares with 95% Wilson intervals; 50% = no preference where it applies)</h3>"
    ]
    out.append(
        interval_chart(
            [(f"rater: {r[0]}", r[1]["share"], r[1]["low"], r[1]["high"]) for r in rows],
            reference=0.5,
            title="Bias shares",
        )
    )
    out.append(
        table(
            ["measure", "rater", "95% interval", "n", "people", "95% interval", "n"],
            (
                [name, *share_cells(mine), *(share_cells(theirs) if theirs else ["", "", ""])]
                for name, mine, theirs in rows
            ),
            {3, 6},
        )
    )
    if not sp["applies"]:
        out.append(
            f"<p class='note'>Self-preference: no system here is of the rater's model "
            f"family ({esc(sp['family'])}), so it does not apply.</p>"
        )
    return "".join(out)


def cost_html(sec: RaterSection) -> str:
    """The rater's cost beside the people's time ("" without the people's time: another task)."""
    c, t = sec["cost"], sec["time"]
    if t is None:
        return ""
    per, human = cost_texts(sec)
    rows = [
        [p, v["labels"], v["gaps"], num(v["median_s"], ".0f")] for p, v in t["per_person"].items()
    ]
    return (
        "<h3>Cost per verdict</h3>"
        f"<p>Auto-rater: <b>{esc(per)}</b> per verdict over {esc(c['verdicts'])} verdicts "
        f"({esc(c['note'])}). People: <b>{esc(human)}</b> per verdict (median over "
        f"{esc(t['gaps'])} gaps; {esc(t['rule'])}).</p>"
        + table(["person", "labels", "gaps used", "median seconds"], rows, {1, 2, 3})
    )


def ranking_html(sec: RaterSection) -> str:
    """What the judge is worth for ranking (:func:`core.views.ppi_ranking.judge_worth`)."""
    ranking = sec.get("ranking")
    if ranking is None:  # measured on side-by-side battles only
        return ""
    return f"<h3>What this judge is worth for ranking</h3><p>{esc(ranking['sentence'])}</p>"


def disagreements_html(sec: RaterSection, base_url: str) -> str:
    """A sample of the side-by-side disagreements ("" without one: another task)."""
    d = sec["disagreements"]
    if d is None:
        return ""
    out = [
        f"<h3>Disagreements with the people's majority: {esc(len(d['shown']))} of {esc(d['total'])}</h3>"
    ]
    if not base_url:
        out.append(
            "<p class='note'>Links are relative to the app's address (open the app, then "
            "the link's <code>Browse?q=...</code> part); set the <code>base_url</code> setting "
            "or give <code>--base-url</code> for absolute links.</p>"
        )
    for x in d["shown"]:
        people = "".join(
            f"<li><b>{esc(p['name'])}</b>: {esc(p['label'])}"
            + (f" — {esc(p['rationale'])}" if p["rationale"] else "")
            + "</li>"
            for p in x["people"]
        )
        quotes = "".join(f"<li>{esc(q)}</li>" for q in x["quotes"])
        out.append(
            f"<div class='card'><p><a href=\"{esc(x['link'])}\">{esc(x['question_id'])}</a>: "
            f"{esc(x['question'])}</p>"
            f"<p><b>{esc(x['first'])}</b></p><div class='answer'>{esc(x['answer_first'])}</div>"
            f"<p><b>{esc(x['second'])}</b></p><div class='answer'>{esc(x['answer_second'])}</div>"
            f"<p>Rater: <b>{esc(x['rater_label'])}</b>; people's majority: "
            f"<b>{esc(x['majority_label'])}</b></p>"
            + (
                f"<p class='note'>Rater's rationale: {esc(x['rationale'])}</p>"
                if x["rationale"]
                else ""
            )
            + (f"<ul class='note'>Evidence quoted: {quotes}</ul>" if quotes else "")
            + f"<ul>{people}</ul></div>"
        )
    return "".join(out)


def needed_html(sec: RaterSection) -> str:
    """The items-needed simulation: its method, the chance the decision holds at each size, and
    the command that queues the missing items."""
    n = sec["needed"]
    out = ["<h3>How many more doubly-labelled items</h3>"]
    if n is None:  # left out of this report (computed one rater at a time)
        return ""
    if "error" in n:
        return out[0] + f"<p>{esc(n['error'])}</p>"
    sizes = sorted(int(k) for k in n["stability"])
    out.append(f"<p class='note'>Method: {esc(n['method'])}.</p>")
    out.append(
        bar_chart(
            [(f"{k} items", float(n["stability"][k])) for k in sizes],
            target=0.9,
            title="Share of plausible populations in which the majority decision holds",
        )
    )
    out.append(
        table(
            ["items", "decision", "holds in", "share passing"],
            (
                [k, n["decision"][k], pct(n["stability"][k]), pct(n["pass_probability"][k])]
                for k in sizes
            ),
            {0, 2, 3},
        )
    )
    out.append(f"<p><b>{esc(n['advice'][:1].upper() + n['advice'][1:])}.</b></p>")
    if n["to_queue"]:
        out.append(
            "<p>Queue exactly those for the team with overlap 2: <code>python -m core "
            f"validation-queue --rater {esc(quoted(sec['rater']))} --items "
            f"{esc(n['to_queue'])}</code> (or the button on the app's Rater validation page, "
            "for admins).</p>"
        )
    return "".join(out)


def quoted(text: str) -> str:
    return f'"{text}"' if any(c in text for c in " ()'&;|<>") else text
