"""A round of ``benchmarks/team_load.py`` as one line while it runs, and a configuration's
rounds as a Markdown table at the end."""

from __future__ import annotations


def round_line(r: dict) -> str:
    pg = r["postgres"]
    return (
        f"N={r['annotators']:2d}: p50 {r['action_p50_s']} s, p95 {r['action_p95_s']} s, "
        f"{r['actions']} actions ({r['labels_per_s']} a second), {r['errors']} errors, "
        f"{r['lost_labels']} lost, {r['doubled_labels']} doubled; servers CPU "
        f"{r['servers']['cpu_pct']} % ({r['server_cpu_s_per_action']} s a label), "
        f"PSS {r['servers']['pss_mb']} MB; "
        + (
            f"postgres CPU {pg['cpu_pct']} % ({r['postgres_cpu_s_per_action']} s a label), "
            f"PSS {pg['pss_mb']} MB; "
            if pg
            else ""
        )
        + f"clients CPU {r['clients']['cpu_pct']} %, PSS {r['clients']['pss_mb']} MB; "
        f"load {r['load_avg_before'][0]} -> {r['load_avg_after'][0]}"
    )


def table(label: str, rounds: dict[int, dict]) -> str:
    """A configuration's rounds as a Markdown table."""
    lines = [
        f"{label}:",
        "| N | p50 / p95 (s) | labels (a second) | errors, lost, doubled "
        "| servers CPU % (s a label) | servers PSS MB | postgres CPU % (s a label) / PSS MB "
        "| clients CPU % / PSS MB | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, r in rounds.items():
        pg = r["postgres"]
        pg_cell = (
            f"{pg['cpu_pct']} ({r['postgres_cpu_s_per_action']}) / {pg['pss_mb']}" if pg else "-"
        )
        lines.append(
            f"| {n} | {r['action_p50_s']} / {r['action_p95_s']} "
            f"| {r['actions']} ({r['labels_per_s']}) "
            f"| {r['errors']}, {r['lost_labels']}, {r['doubled_labels']} "
            f"| {r['servers']['cpu_pct']} ({r['server_cpu_s_per_action']}) "
            f"| {r['servers']['pss_mb']} | {pg_cell} "
            f"| {r['clients']['cpu_pct']} / {r['clients']['pss_mb']} "
            f"| {r['load_avg_before'][0]} -> {r['load_avg_after'][0]} |"
        )
    return "\n".join(lines)
