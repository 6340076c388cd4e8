"""What the cross-lingual page shows, as pandas DataFrames assembled from the store.

Accuracy counts only answers with a verdict (``verdict`` yes/no); answers without one (a panel
tie or unparsed replies) are counted in ``n_no_verdict`` and never silently scored. Intervals are
Wilson score intervals at ``level``; the controlled analysis pairs items, tests each step with
McNemar's test (exact binomial below 25 discordant pairs) and gives a seeded paired-bootstrap
interval of the accuracy difference.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from core.annotation.xrag_reviews import label_distribution
from core.stats.agreement import cohen_kappa
from core.stats.significance import mcnemar, paired_bootstrap, wilson_ci
from core.store.answers import AnswerStatus
from core.store.judge_runs import latest_verdicts
from core.store.judgments import AbsoluteVerdict
from core.store.questions import QuestionOrigin, origin_questions
from core.store.xrag_results import finished_results
from core.xrag.evaluate import CRITERION, PANEL_RATER, controlled_configs

if TYPE_CHECKING:
    from core.store.engine import Database

LEVEL = 0.95


def _interval(k: int, n: int, level: float) -> tuple[float | None, float | None, float | None]:
    if n == 0:
        return None, None, None
    ci = wilson_ci(k, n, level)
    return ci.estimate, ci.low, ci.high


def accuracy_table(db: Database, model: str | None = None, level: float = LEVEL) -> pd.DataFrame:
    """Accuracy by model x language x setting x question type (plus qtype 'all')."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in finished_results(db, model):
        for qtype in (r["qtype"], "all"):
            groups[(r["model"], r["language"], r["setting"], qtype)].append(r)
    out = []
    for (m, lang, setting, qtype), rs in sorted(groups.items()):
        decided = [r for r in rs if r["verdict"] in (AbsoluteVerdict.YES, AbsoluteVerdict.NO)]
        k = sum(r["verdict"] == AbsoluteVerdict.YES for r in decided)
        acc, lo, hi = _interval(k, len(decided), level)
        out.append(
            {
                "model": m,
                "language": lang,
                "setting": setting,
                "qtype": qtype,
                "n": len(decided),
                "n_correct": k,
                "accuracy": acc,
                "ci_low": lo,
                "ci_high": hi,
                "level": level,
                "n_no_verdict": len(rs) - len(decided),
                "content_correct": sum(r["content_verdict"] == AbsoluteVerdict.YES for r in rs),
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "model",
            "language",
            "setting",
            "qtype",
            "n",
            "n_correct",
            "accuracy",
            "ci_low",
            "ci_high",
            "level",
            "n_no_verdict",
            "content_correct",
        ],
    )


def response_language_table(
    db: Database, model: str | None = None, level: float = LEVEL
) -> pd.DataFrame:
    """Response-language correctness per model x question language x setting (and 'all').

    ``rate`` = answers detected in the question's language / answers whose language lingua could
    determine; ``n_undetermined`` answers (numbers, names, empty) are left out of the rate.
    """
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in finished_results(db, model):
        for setting in (r["setting"], "all"):
            groups[(r["model"], r["language"], setting)].append(r)
    out = []
    for (m, lang, setting), rs in sorted(groups.items()):
        det = [r for r in rs if r["language_ok"] is not None]
        k = sum(r["language_ok"] == 1 for r in det)
        rate, lo, hi = _interval(k, len(det), level)
        wrong = Counter(r["response_language"] for r in det if r["language_ok"] == 0)
        out.append(
            {
                "model": m,
                "language": lang,
                "setting": setting,
                "n_answers": len(rs),
                "n_detected": len(det),
                "n_in_language": k,
                "rate": rate,
                "ci_low": lo,
                "ci_high": hi,
                "level": level,
                "n_undetermined": len(rs) - len(det),
                "wrong_languages": ", ".join(f"{x}:{n}" for x, n in wrong.most_common()),
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "model",
            "language",
            "setting",
            "n_answers",
            "n_detected",
            "n_in_language",
            "rate",
            "ci_low",
            "ci_high",
            "level",
            "n_undetermined",
            "wrong_languages",
        ],
    )


def config_setting(q: str, s: str, d: str) -> str:
    """The stored setting name of a controlled configuration (en-en-en is ``english``)."""
    return "english" if (q, s, d) == ("en", "en", "en") else f"controlled:{q}-{s}-{d}"


def controlled_table(
    db: Database,
    model: str | None = None,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = LEVEL,
) -> pd.DataFrame:
    """Every step of the controlled analysis, both orders, every language, with tests.

    Forward: question, then supporting articles, then distractors replaced by English versions;
    reverse: distractors, supporting articles, question. Each step pairs the items with a verdict
    in both configurations (``x`` = correct after the step, ``y`` = before).
    """
    res = finished_results(db, model)
    by: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for r in res:
        if r["verdict"] in (AbsoluteVerdict.YES, AbsoluteVerdict.NO):
            by[(r["model"], r["setting"])][r["item_id"]] = int(r["verdict"] == AbsoluteVerdict.YES)
    langs = sorted({r["language"] for r in res if r["setting"].startswith("controlled:")} - {"en"})
    models = sorted({r["model"] for r in res})
    out = []
    for m in models:
        for lang in langs:
            c = controlled_configs(lang)
            orders = {"forward": [c[0], c[1], c[2], c[3]], "reverse": [c[0], c[4], c[5], c[3]]}
            for order, seq in orders.items():
                for step, (before, after) in enumerate(zip(seq[:-1], seq[1:]), 1):
                    out.append(_step(by, m, lang, order, step, before, after, n_boot, seed, level))
    return pd.DataFrame(out)


def _step(
    by: Mapping[tuple[str, str], Mapping[str, int]],
    model: str,
    lang: str,
    order: str,
    step: int,
    before: tuple[str, str, str],
    after: tuple[str, str, str],
    n_boot: int,
    seed: int,
    level: float,
) -> dict[str, Any]:
    a, b = by[(model, config_setting(*before))], by[(model, config_setting(*after))]
    items = sorted(set(a) & set(b))
    row: dict[str, Any] = {
        "model": model,
        "language": lang,
        "order": order,
        "step": step,
        "changed": next(
            n for n, x, y in zip(("question", "supporting", "distractors"), before, after) if x != y
        ),
        "from": "-".join(before),
        "to": "-".join(after),
        "n_paired": len(items),
        "acc_from": None,
        "acc_to": None,
        "difference": None,
        "ci_low": None,
        "ci_high": None,
        "level": level,
        "mcnemar_p": None,
        "b": None,
        "c": None,
        "mcnemar_method": "",
    }
    if not items:
        return row
    x, y = [b[i] for i in items], [a[i] for i in items]
    test, boot = mcnemar(x, y), paired_bootstrap(x, y, n_boot=n_boot, seed=seed, level=level)
    row.update(
        {
            "acc_from": sum(y) / len(y),
            "acc_to": sum(x) / len(x),
            "difference": boot["difference"],
            "ci_low": boot["ci_low"],
            "ci_high": boot["ci_high"],
            "mcnemar_p": test["pvalue"],
            "b": test["b"],
            "c": test["c"],
            "mcnemar_method": test["method"],
        }
    )
    return row


def label_distribution_table(db: Database) -> pd.DataFrame:
    """The review label distribution as rows ``field, value, count, share``."""
    dist = label_distribution(db)
    out = []
    for name, counts in dist["fields"].items():
        total = sum(counts.values())
        for value, n in sorted(counts.items()):
            out.append({"field": name, "value": value, "count": n, "share": n / total})
    return pd.DataFrame(out, columns=["field", "value", "count", "share"])


class PanelAgreement(TypedDict):
    """The panel's verdicts against people's (:func:`panel_human_agreement`)."""

    n: int  # answers both judged
    agreement: float | None  # share of equal verdicts (None: no common answer)
    cohen_kappa: float | None


def panel_human_agreement(db: Database) -> PanelAgreement:
    """Cohen's kappa between the panel's final verdict and human verdicts on the same answers.

    Human verdicts are judgments with ``rater='human:<name>'`` and criterion ``xrag-key-info``
    on the same question and system (``<model>@<setting>``); the latest per answer is used.
    """

    panel = latest_verdicts(db, CRITERION, rater=PANEL_RATER)
    human = latest_verdicts(db, CRITERION, rater_prefix="human:")
    keys = sorted(set(panel) & set(human))
    if not keys:
        return {"n": 0, "agreement": None, "cohen_kappa": None}
    a, b = [panel[k] for k in keys], [human[k] for k in keys]
    return {
        "n": len(keys),
        "agreement": sum(x == y for x, y in zip(a, b)) / len(keys),
        "cohen_kappa": cohen_kappa(a, b, labels=["yes", "no"]),
    }


def answers_to_verify(
    db: Database, model: str | None = None, *, limit: int | None = None, seed: int = 0
) -> pd.DataFrame:
    """Stored answers for a human to judge (the panel-vs-human check), in a seeded random order.

    Columns ``result_id, language, setting, question, reference, answer, verdict`` (``verdict``
    left empty for the annotator: ``yes`` / ``no``). The panel's verdict is not shown.
    """

    res = [r for r in finished_results(db, model) if r["answer_status"] == AnswerStatus.OK]
    random.Random(seed).shuffle(res)
    if limit is not None:
        res = res[:limit]
    qs = {q.id: q for q in origin_questions(db, QuestionOrigin.XRAG)}
    out = [
        {
            "result_id": r["id"],
            "language": r["language"],
            "setting": r["setting"],
            "question": qs[r["question_id"]].question,
            "reference": " | ".join(qs[r["question_id"]].answers),
            "answer": r["answer"],
            "verdict": "",
        }
        for r in res
    ]
    return pd.DataFrame(
        out,
        columns=["result_id", "language", "setting", "question", "reference", "answer", "verdict"],
    )
