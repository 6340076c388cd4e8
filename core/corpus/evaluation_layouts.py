"""Layout adapters: evaluations in the formats people already have, read into an Evaluation.

- ``prd-vicuna80``: the Vicuna80 folder of PRD (github.com/bcdnlp/PRD): ``prompts/
  vicuna_questions.jsonl`` (questions), ``generations/answer_<model>.jsonl`` (answers),
  ``ratings-gpt4/answer_<m1>-vs-answer_<m2>-gpt4-reviewer*.jsonl`` (GPT-4 reviews, stored as
  ``auto:gpt-4 (PRD)``) and ``ratings-human/answer_<m1>-vs-answer_<m2>-human-reviewer*.jsonl``
  (anonymous human ratings, stored as slots ``human:prd-crowd#1..k`` per question and shown pair,
  plus their strict majority as ``human:crowd-majority``). Scores: 1 = the first answer (m1) is
  better, 2 = the second, 3 = tie. Question ids become ``vicuna80-<n>``.
- ``mt-bench``: FastChat MT-Bench pair judgments, JSON list or JSONL; human judgments
  (``question_id, model_a, model_b, winner, judge, turn``, winner ``model_a|model_b|tie``) or the
  GPT-4 pair file (``model_1, model_2, g1_winner, g2_winner``: both presentation orders).
  Question ids are ``<question_id>`` for turn 1 and ``<question_id>-turn<k>`` for later turns.
- ``arena``: a Chatbot Arena battle dump, JSON list or JSONL of ``model_a, model_b, winner``,
  optional ``question_id`` (else ``arena-<record number>``) and ``judge``; ``tie (bothbad)`` is None,
  ``tie`` Equal; a named rater's repeated battle (same question and pair) is ``<question_id>~k``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.corpus.evaluations import Evaluation, pairwise, parse_rater, read_plain_judgments
from core.corpus.json_input import loads_bounded
from core.corpus.tabular import check_path, check_values, json_type, jsonl_records, read_input_text
from core.errors import InputError

#: The highest MT-Bench turn number accepted (the benchmark has two).
MAX_TURN = 100
PRD_GPT4 = "auto:gpt-4 (PRD)"
PRD_CROWD = "human:prd-crowd#"
PRD_MAJORITY = "human:crowd-majority"
PRD_SCORES = {1: "A", 2: "B", 3: "Equal"}
_PRD_FILE = re.compile(r"answer_(.+?)-vs-answer_(.+?)-(gpt4|human)-reviewer")
WINNERS = {
    "model_a": "A",
    "model_b": "B",
    "model_1": "A",
    "model_2": "B",
    "tie": "Equal",
    "tie (bothbad)": "None",
}


def json_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(number, object)`` of a JSON list (number = record, from 1) or a JSONL file (line), read
    by the one reader (encodings, control characters) within the JSON bounds of
    :mod:`core.corpus.json_input`."""
    path = check_path(path)
    text = read_input_text(path)
    if not text.lstrip().startswith("["):
        yield from jsonl_records(path)
        return
    items = loads_bounded(text, path)
    if not isinstance(items, list):
        raise InputError("expected a JSON list of objects", path=str(path))
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise InputError(f"record {number}: expected a JSON object", path=str(path))
        for key, value in item.items():
            check_values(value, path, number, key)
        yield number, item


def _field(rec: dict[str, Any], name: str, path: Path, line: int, *, ids: bool = False) -> str:
    """The text of ``name``; a whole JSON number only where ``ids`` (question ids), never a
    list, object or true/false."""
    value = rec.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError("missing value", path=str(path), line=line, column=name)
    if isinstance(value, bool) or not isinstance(value, (str, int) if ids else str):
        raise InputError(
            f"expected text, found {json_type(value)}", path=str(path), line=line, column=name
        )
    return str(value).strip()


def _text(rec: dict[str, Any], name: str, path: Path, line: int) -> str:
    """Optional free text (rationale, question text): a string or nothing."""
    value = rec.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(
            f"expected text, found {json_type(value)}", path=str(path), line=line, column=name
        )
    return value


def _turn(rec: dict[str, Any], path: Path, line: int) -> int:
    """The MT-Bench turn: a whole number from 1 to :data:`MAX_TURN` (JSON number or ASCII
    digits), default 1."""
    value = rec.get("turn", 1)
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TURN:
        raise InputError(
            f"turn {value!r} is not a whole number from 1 to {MAX_TURN}",
            path=str(path),
            line=line,
            column="turn",
        )
    return value


def _winner(rec: dict[str, Any], name: str, path: Path, line: int) -> str:
    value = _field(rec, name, path, line)
    if value.lower() not in WINNERS:
        raise InputError(
            f"unknown winner {value!r} (expected {', '.join(sorted(set(WINNERS)))})",
            path=str(path),
            line=line,
            column=name,
        )
    return WINNERS[value.lower()]


def _judge(
    rec: dict[str, Any], default: str | None, path: Path, line: int, auto: bool
) -> tuple[str, str]:
    judge = rec.get("judge")
    if isinstance(judge, list) and all(isinstance(j, str) for j in judge):
        judge = "/".join(judge)
    judge = _field(rec | {"judge": judge}, "judge", path, line) if judge not in (None, "") else ""
    if not judge:
        return parse_rater(default or ("human" if not auto else "auto:unknown"), path, line)
    if judge.startswith(("auto:", "human:")):
        return parse_rater(judge, path, line)
    kind = "auto" if auto or judge.lower().startswith(("gpt", "claude")) else "human"
    return parse_rater(f"{kind}:{judge}", path, line)


def _common(
    qid: str, rater: tuple[str, str], label: object, line: int, rationale: str = ""
) -> dict[str, Any]:
    return {
        "question_id": qid,
        "rater": rater[0],
        "rater_kind": rater[1],
        "rationale": rationale,
        "label": str(label),
        "line": line,
    }


def read_mt_bench(path: str | Path, rater: str | None = None) -> Evaluation:
    """FastChat MT-Bench human or GPT-4 pair judgments."""
    path = Path(path)
    ev = Evaluation(source=path.name)
    for line, rec in json_records(path):
        base = _field(rec, "question_id", path, line, ids=True)
        turn = _turn(rec, path, line)
        qid = base if turn == 1 else f"{base}-turn{turn}"
        ev.question(qid, None, turn=turn)
        if "g1_winner" in rec:
            a, b = _field(rec, "model_1", path, line), _field(rec, "model_2", path, line)
            who = _judge(rec, rater, path, line, auto=True)
            ev.ratings.append(
                pairwise(
                    _common(qid, who, rec["g1_winner"], line),
                    a,
                    b,
                    _winner(rec, "g1_winner", path, line),
                )
            )
            g2 = {"A": "B", "B": "A"}.get(v := _winner(rec, "g2_winner", path, line), v)
            ev.ratings.append(pairwise(_common(qid, who, rec["g2_winner"], line), b, a, g2))
            continue
        a, b = _field(rec, "model_a", path, line), _field(rec, "model_b", path, line)
        who = _judge(rec, rater, path, line, auto=False)
        ev.ratings.append(
            pairwise(
                _common(qid, who, rec["winner"], line), a, b, _winner(rec, "winner", path, line)
            )
        )
    if not ev.ratings:
        raise InputError("no judgments", path=str(path))
    return ev


def read_arena(path: str | Path, rater: str | None = None) -> Evaluation:
    """A Chatbot Arena battle dump. One line is one vote: when a named rater (not the default
    anonymous slots ``human:arena#k``, which already keep each vote) meets the same question and
    pair of systems again, the k-th such battle gets question id ``<question_id>~k`` (k >= 2),
    so two files listing the same battles in the same order (people's and a judge's verdicts)
    still pair battle by battle."""
    path = Path(path)
    ev = Evaluation(source=path.name)
    seen: Counter[tuple[str, str, str, str]] = Counter()
    for line, rec in json_records(path):
        qid = _field(rec, "question_id", path, line, ids=True) if "question_id" in rec else ""
        qid = qid or f"arena-{line}"
        a, b = _field(rec, "model_a", path, line), _field(rec, "model_b", path, line)
        who = _judge(rec, rater or "human:arena#", path, line, auto=False)
        if not who[0].endswith("#"):
            key = (qid, min(a, b), max(a, b), who[0])
            seen[key] += 1
            qid = qid if seen[key] == 1 else f"{qid}~{seen[key]}"
        ev.question(qid, None)
        verdict = _winner(rec, "winner", path, line)
        ev.ratings.append(pairwise(_common(qid, who, rec["winner"], line), a, b, verdict))
    if not ev.ratings:
        raise InputError("no battles", path=str(path))
    return ev


def read_prd_vicuna80(folder: str | Path) -> Evaluation:
    """PRD's Vicuna80 folder: questions, answers, GPT-4 reviews, human ratings and majority."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("the prd-vicuna80 layout needs a folder", path=str(folder))
    ev = Evaluation(source=folder.name)
    questions = folder / "prompts" / "vicuna_questions.jsonl"
    if questions.is_file():
        for line, rec in jsonl_records(questions):
            qid = f"vicuna80-{_field(rec, 'question_id', questions, line, ids=True)}"
            ev.question(
                qid,
                _field(rec, "text", questions, line),
                category=_text(rec, "category", questions, line),
            )
    answer_ids: dict[str, tuple[str, str]] = {}
    for path in sorted((folder / "generations").glob("answer_*.jsonl")):
        system = path.stem.removeprefix("answer_")
        for line, rec in jsonl_records(path):
            qid = f"vicuna80-{_field(rec, 'question_id', path, line, ids=True)}"
            answer_ids[str(rec.get("answer_id"))] = (qid, system)
            ev.question(qid, None)
            ev.answers.append(
                {
                    "question_id": qid,
                    "system": system,
                    "text": _field(rec, "text", path, line),
                    "model": f"prd:{_text(rec, 'model_id', path, line) or system}",
                    "context": "none",
                    "line": line,
                }
            )
    for path in sorted((folder / "ratings-gpt4").glob("*.jsonl")):
        a, b = _pair(path)
        for line, rec in jsonl_records(path):
            qid = f"vicuna80-{_field(rec, 'question_id', path, line, ids=True)}"
            for col, system in (("answer1_id", a), ("answer2_id", b)):
                known = answer_ids.get(str(rec.get(col)))
                if known is not None and known != (qid, system):
                    raise InputError(
                        f"{col} is the answer of {known[1]} to {known[0]}, not of {system} to {qid}",
                        path=str(path),
                        line=line,
                        column=col,
                    )
            ev.question(qid, None)
            common = _common(
                qid, (PRD_GPT4, "auto"), rec.get("score"), line, _text(rec, "text", path, line)
            )
            ev.ratings.append(pairwise(common, a, b, _score(rec, path, line)))
    crowd: dict[tuple[str, str, str], list[str]] = {}
    for path in sorted((folder / "ratings-human").glob("*.jsonl")):
        a, b = _pair(path)
        for line, rec in jsonl_records(path):
            qid = f"vicuna80-{_field(rec, 'question_id', path, line, ids=True)}"
            ev.question(qid, _text(rec, "text", path, line).strip() or None)
            verdict = _score(rec, path, line)
            crowd.setdefault((qid, a, b), []).append(verdict)
            ev.ratings.append(
                pairwise(_common(qid, (PRD_CROWD, "human"), rec.get("score"), line), a, b, verdict)
            )
    for (qid, a, b), verdicts in crowd.items():
        top = majority(verdicts)
        if top is not None:
            note = f"strict majority of {len(verdicts)} anonymous ratings: " + ", ".join(
                f"{v} x{n}" for v, n in sorted(Counter(verdicts).items())
            )
            common = _common(qid, (PRD_MAJORITY, "human"), top, 0, note)
            ev.ratings.append(pairwise(common, a, b, top))
    if not ev.answers and not ev.ratings:
        raise InputError("no generations/, ratings-gpt4/ or ratings-human/ files", path=str(folder))
    return ev


def majority(verdicts: list[str]) -> str | None:
    """The verdict more than half of at least two ratings give, else None."""
    if len(verdicts) < 2:
        return None
    top, n = Counter(verdicts).most_common(1)[0]
    return top if n * 2 > len(verdicts) else None


def _pair(path: Path) -> tuple[str, str]:
    m = _PRD_FILE.match(path.name)
    if not m:
        raise InputError(
            "file name is not answer_<m1>-vs-answer_<m2>-<gpt4|human>-reviewer...", path=str(path)
        )
    return m.group(1), m.group(2)


def _score(rec: dict[str, Any], path: Path, line: int) -> str:
    try:
        return PRD_SCORES[int(str(rec.get("score")))]
    except (TypeError, ValueError, KeyError):
        raise InputError(
            f"score {rec.get('score')!r} is not 1, 2 or 3",
            path=str(path),
            line=line,
            column="score",
        ) from None


READERS = {"mt-bench": read_mt_bench, "arena": read_arena}
LAYOUTS = ("plain", "prd-vicuna80", "mt-bench", "arena")


def read_judgments(path: str | Path, layout: str = "plain", rater: str | None = None) -> Evaluation:
    """Read verdicts (and for ``prd-vicuna80`` also questions and answers) in ``layout``."""
    if layout == "plain":
        return read_plain_judgments(path, rater)
    if layout == "prd-vicuna80":
        return read_prd_vicuna80(path)
    if layout in READERS:
        return READERS[layout](path, rater)
    raise InputError(f"unknown layout {layout!r} (expected {', '.join(LAYOUTS)})")
