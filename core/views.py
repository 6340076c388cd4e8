"""What the pages show: tables and records assembled from the store (pages call this, never SQL).

Nothing here imports Streamlit. Untrusted text (books, model answers) is returned as plain text;
:func:`escape_markdown` / :func:`highlight_markdown` make it safe for ``st.markdown`` (every ASCII
punctuation character backslash-escaped, so no link, image, HTML or directive can form).
The Agreement and Leaderboard pages' tables and plotly figures live in :mod:`core.figures`.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pandas as pd
import sqlite_utils

from core import annotation as ann
from core import xrag_review as guideline
from core.store import rows, table_counts

_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=%^@,;?/])")
RESOLUTION_LABELS = {
    "reference_wrong": "Reference answer wrong", "model_wrong": "Model answer wrong",
    "both_acceptable": "Both acceptable", "ambiguous": "Question ambiguous",
}


# ------------------------------------------------------------------------------------------
# Safe text
# ------------------------------------------------------------------------------------------

def escape_markdown(text: str) -> str:
    """``text`` as inert Markdown: punctuation escaped, line breaks kept (hard breaks)."""
    escaped = _PUNCT.sub(r"\\\1", str(text or ""))
    return escaped.replace("\r\n", "\n").replace("\n", "  \n")


def highlight_markdown(text: str, terms: list[str]) -> str:
    """Escaped ``text`` with every case-insensitive occurrence of ``terms`` in **bold**."""
    terms = sorted({t for t in terms if t and t.strip()}, key=len, reverse=True)
    if not terms:
        return escape_markdown(text)
    pattern = re.compile("|".join(re.escape(t) for t in terms), re.I)
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(escape_markdown(text[pos:m.start()]))
        out.append("**" + escape_markdown(m.group(0)) + "**")
        pos = m.end()
    out.append(escape_markdown(text[pos:]))
    return "".join(out)


# ------------------------------------------------------------------------------------------
# Overview
# ------------------------------------------------------------------------------------------

def data_version(db: sqlite_utils.Database) -> tuple:
    """A cheap fingerprint of everything the pages show (cache key): grows on any new row."""
    return tuple(db.execute(
        "select (select coalesce(max(id), 0) from judgments), "
        "(select coalesce(max(id), 0) from reviews), "
        "(select coalesce(max(id), 0) from dispute_resolutions), "
        "(select coalesce(max(id), 0) from disputes), (select coalesce(max(id), 0) from answers), "
        "(select count(*) from questions), (select count(*) from documents), "
        "(select count(*) || group_concat(status) from runs)").fetchone())


#: Model-id prefixes of the key-free baselines (algorithms, not language models).
OFFLINE_PREFIXES = ("offline", "baseline", "rule")


def overview(db: sqlite_utils.Database) -> dict[str, Any]:
    """Counts, datasets, runs and what needs human attention."""
    counts = table_counts(db)
    empty = counts.get("documents", 0) == 0 and counts.get("questions", 0) == 0
    datasets = pd.DataFrame(rows(db,
        "select source, kind, count(*) documents, sum(n_tokens) tokens from documents "
        "group by source, kind order by source, kind"))
    by_origin = pd.DataFrame(rows(db,
        "select origin, count(*) questions, sum(status = 'pending') pending, "
        "sum(status in ('accepted', 'edited')) accepted, sum(status = 'rejected') rejected "
        "from questions group by origin order by origin"))
    judgments = pd.DataFrame(rows(db,
        "select rater_kind, kind, rater, count(*) judgments, sum(status = 'unparsed') unparsed "
        "from judgments where status != 'withdrawn' group by 1, 2, 3 order by 1, 2, 3"))
    runs = pd.DataFrame(rows(db,
        "select id, kind, name, status, started_at, finished_at, n_calls, input_tokens, "
        "output_tokens, round(cost_usd, 4) cost_usd from runs order by started_at desc limit 50"))
    k = ann.required_annotations(db)
    n_disputes = counts.get("disputes", 0)
    resolved = db.execute(
        "select count(distinct dispute_id) from dispute_resolutions").fetchone()[0]
    attention = {
        "questions pending review": int(db.execute(
            "select count(*) from questions where status = 'pending' and origin != 'narrativeqa'"
        ).fetchone()[0]),
        "disputes without a resolution": int(n_disputes - resolved),
        "unparsed judge replies": int(db.execute(
            "select count(*) from judgments where status = 'unparsed'").fetchone()[0]),
        "runs still running or failed": int(db.execute(
            "select count(*) from runs where status in ('running', 'failed', 'interrupted')"
        ).fetchone()[0]),
    }
    models = sorted({r[0] for r in db.execute(
        "select model from systems union select model from judges union "
        "select distinct model from llm_calls union "
        "select distinct json_extract(provenance, '$.model') from questions union "
        "select distinct substr(rater, 6) from judgments where rater like 'auto:%:%'") if r[0]})
    return {"empty": empty, "counts": counts, "datasets": datasets, "by_origin": by_origin,
            "judgments": judgments, "runs": runs, "attention": attention, "k": k,
            "models": models, "offline_only": bool(models) and all(
                m.split(":", 1)[0] in OFFLINE_PREFIXES for m in models),
            "side_by_side_items": len(ann.pairwise_items(db)),
            "total_cost_usd": float(runs["cost_usd"].sum()) if len(runs) else 0.0}


# ------------------------------------------------------------------------------------------
# Review questions
# ------------------------------------------------------------------------------------------

def question_filters(db: sqlite_utils.Database) -> dict[str, list]:
    """Options of the question filters: documents, entities, types, statuses, origins."""
    return {
        "documents": [(r["id"], r["title"] or r["id"]) for r in rows(db,
            "select distinct d.id, d.title from documents d join questions q "
            "on q.document_id = d.id order by d.title, d.id")],
        "entities": [(r["id"], r["name"]) for r in rows(db,
            "select distinct e.id, e.name from entities e join questions q on q.entity_id = e.id "
            "order by e.name")],
        "qtypes": [r[0] for r in db.execute(
            "select distinct qtype from questions where qtype != '' order by 1")],
        "statuses": [r[0] for r in db.execute("select distinct status from questions order by 1")],
        "origins": [r[0] for r in db.execute("select distinct origin from questions order by 1")],
    }


def question_ids(db: sqlite_utils.Database, *, document_id: str | None = None,
                 entity_id: int | None = None, qtype: str | None = None,
                 status: str | None = None, origin: str | None = None,
                 search: str = "") -> list[str]:
    """Ids of the questions matching every given filter (``search``: substring of the text)."""
    where, params = ["1 = 1"], []
    for col, value in (("document_id", document_id), ("entity_id", entity_id),
                       ("qtype", qtype), ("status", status), ("origin", origin)):
        if value not in (None, ""):
            where.append(f"{col} = ?")
            params.append(value)
    if search.strip():
        where.append("(question like ? or id = ?)")
        params += [f"%{search.strip()}%", search.strip()]
    return [r[0] for r in db.execute(
        f"select id from questions where {' and '.join(where)} order by id", params)]


def supporting_documents(db: sqlite_utils.Database, question: dict) -> list[dict]:
    """The documents a question draws on: an XRAG question's two articles (``metadata``), the
    provenance ``documents``, or its context document."""
    prov = question.get("provenance") or {}
    meta = question.get("metadata") or {}
    ids = meta.get("articles") or prov.get("documents") or prov.get("document_ids") or [
        question.get("context_document_id") or question.get("document_id")]
    ids = [d if isinstance(d, str) else d.get("id") for d in ids if d]
    found = {r["id"]: r for r in rows(
        db, f"select id, title, kind, language from documents where id in "
            f"({','.join('?' * len(ids))})", ids)} if ids else {}
    return [found.get(d, {"id": d, "title": d, "kind": "", "language": ""}) for d in ids]


def _int_list(values: Any) -> list[int]:
    return [int(i) for i in (values or []) if str(i).lstrip("-").isdigit()]


def _spread(values: list[int], n: int) -> list[int]:
    """``n`` of the sorted ``values`` evenly spaced from first to last (all when fewer)."""
    if len(values) <= n:
        return list(values)
    if n <= 1:
        return values[:n]
    return [values[round(i * (len(values) - 1) / (n - 1))] for i in range(n)]


def question_detail(db: sqlite_utils.Database, question_id: str, max_passages: int = 6
                    ) -> dict[str, Any] | None:
    """A question with its entity, highlighted mention passages, provenance and reviews.

    Passages: first the ones the question was built from (``metadata.evidence[].passage_idx``,
    provenance ``passages``, ``metadata.context_passages``), each marked ``evidence``, then
    mention passages of its entities spread evenly over the book (first to last mention) up to
    ``max_passages`` in all, so a reviewer can judge whether it needs distant passages. Every
    entity of the question (``metadata.entity_ids``, e.g. a pair) is highlighted.
    """
    found = rows(db, "select * from questions where id = ?", [question_id])
    if not found:
        return None
    q = found[0]
    entity, passages = None, []
    if q.get("entity_id") is not None:
        ent = rows(db, "select * from entities where id = ?", [q["entity_id"]])
        entity = ent[0] if ent else None
    prov = q.get("provenance") or {}
    meta = q.get("metadata") or {}
    evidence = meta.get("evidence") if isinstance(meta.get("evidence"), list) else []
    built_from = list(dict.fromkeys(
        _int_list(e.get("passage_idx") for e in evidence if isinstance(e, dict))
        + _int_list(prov.get("passages") or prov.get("passage_idx"))
        + _int_list(meta.get("context_passages"))))[:max_passages]
    doc = q.get("document_id")
    entity_ids = list(dict.fromkeys(
        ([entity["id"]] if entity else []) + _int_list(meta.get("entity_ids"))))
    entities = rows(db, f"select id, name, aliases, document_id from entities where id in "
                        f"({','.join('?' * len(entity_ids))})", entity_ids) if entity_ids else []
    if entity:
        doc = entity["document_id"]
    mention_idxs: list[int] = []
    if entities:
        mention_idxs = [r[0] for r in db.execute(
            f"select distinct passage_idx from mentions where entity_id in "
            f"({','.join('?' * len(entities))}) and passage_idx is not null order by passage_idx",
            [e["id"] for e in entities])]
    room = max(0, max_passages - len(built_from))
    extra = _spread([i for i in mention_idxs if i not in built_from], room)
    idxs = sorted(set(built_from) | set(extra))
    terms = [t for e in entities for t in [e["name"], *(e.get("aliases") or [])]]
    if idxs and doc:
        for r in rows(db, f"select idx, text from passages where document_id = ? and idx in "
                          f"({','.join('?' * len(idxs))}) order by idx", [doc, *idxs]):
            passages.append({"idx": r["idx"], "text": r["text"],
                             "role": "evidence" if r["idx"] in built_from else "mention",
                             "markdown": highlight_markdown(r["text"], terms)})
    n_passages = db.execute("select count(*) from passages where document_id = ?",
                            [doc]).fetchone()[0] if doc else 0
    answers = q.get("answers") or []
    reviews = ann.effective_reviews(db, question_id)
    documents = supporting_documents(db, q)
    articles = []                     # a cross-document question is judged against each article
    if guideline.is_cross_document(q) or q.get("parent_id"):
        for d in documents:
            text = "\n\n".join(r[0] for r in db.execute(
                "select text from passages where document_id = ? order by idx limit 40", [d["id"]]))
            articles.append({**d, "text": text})
    parent = rows(db, "select id, question, answers from questions where id = ?",
                  [q["parent_id"]]) if q.get("parent_id") else []
    return {"question": q, "answer": answers[0] if answers else "", "answers": answers,
            "parent": parent[0] if parent else None, "entities": entities,
            "n_mention_passages": len(mention_idxs), "n_passages": int(n_passages),
            "entity": entity, "passages": passages, "provenance": prov, "articles": articles,
            "documents": documents, "reviews": reviews,
            "checklist_fields": guideline.checklist_fields(q),
            "review_agreement": review_agreement(reviews)}


def review_agreement(reviews: list[dict]) -> dict[str, Any] | None:
    """Per checklist item and for the decision: share of reviewer pairs that agree."""
    if len(reviews) < 2:
        return None
    fields = {"decision": [r["decision"] for r in reviews]}
    spec = [f for fs in (guideline.CHECKLIST_FIELDS, guideline.SINGLE_DOCUMENT_FIELDS,
                         guideline.TRANSLATION_FIELDS) for f in fs if f["type"] != "text"]
    for key in dict.fromkeys(f["name"] for f in spec):
        values = [(r.get("checklist") or {}).get(key) for r in reviews]
        if any(v is not None for v in values):
            fields[key] = values
    out = {}
    for key, values in fields.items():
        values = [v for v in values if v is not None]
        pairs = [(a, b) for i, a in enumerate(values) for b in values[i + 1:]]
        out[key] = round(sum(a == b for a, b in pairs) / len(pairs), 3) if pairs else None
    return {"n_reviewers": len(reviews), "pairwise_agreement": out}


# ------------------------------------------------------------------------------------------
# Context search (BM25)
# ------------------------------------------------------------------------------------------

def searchable_documents(db: sqlite_utils.Database, question_id: str) -> list[tuple[str, str]]:
    """(doc id, label) of the documents a human can search for this question: the story / book,
    its summary and any other context document."""
    q = db.execute("select document_id, context_document_id from questions where id = ?",
                   [question_id]).fetchone()
    if not q:
        return []
    ids = [d for d in q if d]
    out = rows(db, f"select id, kind, title from documents where (id in "
                   f"({','.join('?' * len(ids))}) or parent_id in ({','.join('?' * len(ids))})) "
                   "and exists (select 1 from passages p where p.document_id = documents.id) "
                   "order by kind, id", [*ids, *ids]) if ids else []
    return [(r["id"], f"{r['kind']}: {r['title'] or r['id']}") for r in out]


def search_context(db: sqlite_utils.Database, doc_id: str, query: str, k: int = 5) -> list[dict]:
    """BM25 hits ``{idx, score, text, markdown}`` with the query terms highlighted."""
    from core.retrieval import search

    if not query.strip():
        return []
    terms = [w for w in re.findall(r"\w+", query) if len(w) > 2]
    return [{"idx": p.idx, "score": round(s, 2), "text": p.text,
             "markdown": highlight_markdown(p.text, terms)}
            for p, s in search(db, doc_id, query, k)]


# ------------------------------------------------------------------------------------------
# NarrativeQA disputes
# ------------------------------------------------------------------------------------------

def dispute_ids(db: sqlite_utils.Database) -> list[int]:
    """Every dispute id (ground-truth rater and context rater disagree), from
    :func:`core.grounding.list_disputes`."""
    from core.grounding import list_disputes

    return [int(d["id"]) for d in list_disputes(db)]


def _judgment(db: sqlite_utils.Database, jid: int) -> dict | None:
    found = rows(db, "select id, rater, verdict, status, evidence, rationale, raw, context_kind "
                     "from judgments where id = ?", [jid])
    return found[0] if found else None


def dispute_detail(db: sqlite_utils.Database, dispute_id: int) -> dict[str, Any] | None:
    """Question, reference answers, model answer, both raters' verdicts with evidence, and the
    effective resolutions."""
    found = rows(db, "select * from disputes where id = ?", [dispute_id])
    if not found:
        return None
    d = found[0]
    q = rows(db, "select * from questions where id = ?", [d["question_id"]])[0]
    answer = rows(db, "select id, system, text from answers where id = ?", [d["answer_id"]])
    resolutions = rows(db, "select * from dispute_resolutions t where dispute_id = ? and not "
                           "exists (select 1 from dispute_resolutions s where s.supersedes = t.id) "
                           "order by id", [dispute_id])
    return {"dispute": d, "question": q, "references": q.get("answers") or [],
            "answer": answer[0] if answer else {"text": "", "system": d["system"]},
            "gt": _judgment(db, d["gt_judgment_id"]), "ctx": _judgment(db, d["ctx_judgment_id"]),
            "resolutions": resolutions}


def _effective_resolutions(db: sqlite_utils.Database) -> list[dict]:
    return rows(db,
        "select r.*, d.question_id, d.system, q.question, q.answers from dispute_resolutions r "
        "join disputes d on d.id = r.dispute_id join questions q on q.id = d.question_id "
        "where not exists (select 1 from dispute_resolutions s where s.supersedes = r.id) "
        "order by r.id")


def dispute_tally(db: sqlite_utils.Database) -> dict[str, Any]:
    """How often each resolution was chosen (per resolved dispute, latest effective label per
    annotator), and the share where the reference answer was wrong with a 95% Wilson interval."""
    res = _effective_resolutions(db)
    counts = {k: 0 for k in ann.RESOLUTIONS}
    for r in res:
        counts[r["resolution"]] += 1
    n = len(res)
    out: dict[str, Any] = {"n_disputes": len(dispute_ids(db)), "n_resolutions": n,
                           "counts": counts, "reference_wrong_share": None, "ci": None}
    if n:
        out["reference_wrong_share"] = counts["reference_wrong"] / n
        try:
            from core.stats import wilson_ci

            ci = wilson_ci(counts["reference_wrong"], n)
            out["ci"] = (float(ci.low), float(ci.high), float(ci.level))
        except ImportError:
            pass
    return out


def corrected_references(db: sqlite_utils.Database) -> pd.DataFrame:
    """The corrected reference answers (resolutions ``reference_wrong`` with a correction)."""
    out = [{"question_id": r["question_id"], "question": r["question"],
            "original_answers": r["answers"], "corrected_answer": r["corrected_answer"],
            "annotator": r["annotator"], "note": r["note"], "created_at": r["created_at"]}
           for r in _effective_resolutions(db)
           if r["resolution"] == "reference_wrong" and r["corrected_answer"]]
    return pd.DataFrame(out, columns=["question_id", "question", "original_answers",
                                      "corrected_answer", "annotator", "note", "created_at"])


def export_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """A table as CSV or JSON Lines bytes (for ``st.download_button``)."""
    if fmt == "csv":
        buf = io.StringIO()
        frame.assign(**{c: frame[c].map(json.dumps) for c in frame.columns
                        if frame[c].map(lambda v: isinstance(v, (list, dict))).any()}
                     ).to_csv(buf, index=False)
        return buf.getvalue().encode("utf-8")
    return "".join(json.dumps(r, ensure_ascii=False) + "\n"
                   for r in frame.to_dict("records")).encode("utf-8")


# ------------------------------------------------------------------------------------------
# Side by side
# ------------------------------------------------------------------------------------------

def question_text(db: sqlite_utils.Database, question_id: str) -> dict[str, Any]:
    """The question's text and ids (no system names, no answers)."""
    found = rows(db, "select id, question, document_id, context_document_id, origin "
                     "from questions where id = ?", [question_id])
    return found[0] if found else {}


def auto_verdicts_shown(db: sqlite_utils.Database, item: dict[str, Any]) -> pd.DataFrame:
    """The auto-raters' effective pairwise verdicts on ``item``, translated to the shown order."""
    out = []
    for r in rows(db,
            "select rater, system_a, verdict, status, rationale from judgments t where "
            "kind = 'pairwise' and rater_kind = 'auto' and question_id = ? and "
            "((system_a = ? and system_b = ?) or (system_a = ? and system_b = ?)) and "
            "not exists (select 1 from judgments s where s.supersedes = t.id) order by id",
            [item["question_id"], item["system_a"], item["system_b"], item["system_b"],
             item["system_a"]]):
        verdict = r["verdict"]
        if verdict in ("A", "B") and r["system_a"] != item["system_a"]:
            verdict = "B" if verdict == "A" else "A"
        out.append({"rater": r["rater"], "verdict (as shown)": verdict or f"({r['status']})",
                    "rationale": r["rationale"]})
    return pd.DataFrame(out, columns=["rater", "verdict (as shown)", "rationale"])


# ------------------------------------------------------------------------------------------
# Browse
# ------------------------------------------------------------------------------------------

def browse_detail(db: sqlite_utils.Database, question_id: str) -> dict[str, Any] | None:
    """One question: every system's answer, every rater's verdicts (evidence, raw reply) and the
    human labels."""
    q = rows(db, "select * from questions where id = ?", [question_id])
    if not q:
        return None
    answers = rows(db, "select id, system, text, status, error, context_tokens, cost_usd "
                       "from answers where question_id = ? order by system", [question_id])
    judgments = rows(db,
        "select t.*, exists (select 1 from judgments s where s.supersedes = t.id) superseded "
        "from judgments t where question_id = ? order by kind, rater, id", [question_id])
    return {"question": q[0], "answers": answers,
            "absolute": [j for j in judgments if j["kind"] == "absolute"],
            "pairwise": [j for j in judgments if j["kind"] == "pairwise"],
            "reviews": rows(db, "select * from reviews where question_id = ? order by id",
                            [question_id]),
            "disputes": rows(db, "select * from disputes where question_id = ?", [question_id])}


def evidence_table(evidence: Any) -> pd.DataFrame:
    """A judgment's evidence list as a table (quote, verified, score)."""
    items = evidence if isinstance(evidence, list) else []
    out = [{"quote": e.get("quote", "") if isinstance(e, dict) else str(e),
            "verified": bool(e.get("verified")) if isinstance(e, dict) else False,
            "score": e.get("score") if isinstance(e, dict) else None} for e in items]
    return pd.DataFrame(out, columns=["quote", "verified", "score"])


# ------------------------------------------------------------------------------------------
# Run
# ------------------------------------------------------------------------------------------

DEFAULT_ANSWER_MODEL = "offline:extractive"
DEFAULT_JUDGE_MODEL = "offline:lexical"
_JUDGE_DEFAULT_CONTEXT = {"autoais": "rag", "side_by_side": "rag"}


def model_choices() -> pd.DataFrame:
    """Every known model with its availability (``offline:*`` first); keys are never shown."""
    from core.llm import known_models, model_available

    out = []
    for m in known_models():
        ok, reason = model_available(m)
        out.append({"model": m, "available": bool(ok), "reason": "" if ok else reason})
    frame = pd.DataFrame(out, columns=["model", "available", "reason"])
    return frame.sort_values(["available", "model"], ascending=[False, True]).reset_index(drop=True)


def experiment_config(*, name: str, origin: str | None, c: int, seed: int, answer_model: str,
                      contexts: list[str], judge_kinds: list[str], judge_model: str) -> dict:
    """An experiment config (the TOML structure of :mod:`core.experiment`) from the Run form."""
    systems = [{"name": f"{answer_model.split(':')[-1]}/{ctx}", "kind": ctx,
                "model": answer_model, **({"fallback": "rag"} if ctx == "full" else {})}
               for ctx in contexts]
    judges = []
    for kind in judge_kinds:
        spec = {"name": f"{kind}-{judge_model.split(':')[-1]}", "kind": kind, "model": judge_model}
        if kind in _JUDGE_DEFAULT_CONTEXT:
            spec["context"] = _JUDGE_DEFAULT_CONTEXT[kind]
        judges.append(spec)
    config: dict[str, Any] = {"name": name, "seed": int(seed), "c": int(c),
                              "data": {"origin": origin} if origin else {},
                              "systems": systems, "judges": judges}
    pairwise = [j["name"] for j in judges if j["kind"] in ("side_by_side",
                                                           "reference_side_by_side")]
    if pairwise and len(systems) >= 2:
        config["tournament"] = {"judges": pairwise, "design": "full"}
    ref = next((j["name"] for j in judges if j["kind"] == "reference_absolute"), None)
    ctx = next((j["name"] for j in judges if j["kind"] == "autoais"), None)
    if ref and ctx:
        config["grounding"] = {"reference": ref, "context": ctx}
    return config


def run_counter(db: sqlite_utils.Database) -> tuple[int, int]:
    """(max answer id, max judgment id): the baseline a run's progress is measured from."""
    return tuple(int(x) for x in db.execute(
        "select (select coalesce(max(id), 0) from answers), "
        "(select coalesce(max(id), 0) from judgments)").fetchone())


def run_progress(db: sqlite_utils.Database, baseline: tuple[int, int]) -> int:
    """Answers plus judgments stored since ``baseline`` (see :func:`run_counter`)."""
    now = run_counter(db)
    return (now[0] - baseline[0]) + (now[1] - baseline[1])


def exam_query_ids(db: sqlite_utils.Database, run_id: str) -> list[str]:
    """The query ids of an EXAM run's bank."""
    return [r[0] for r in db.execute(
        "select q.query_id from exam_queries q join exam_runs r on r.bank_id = q.bank_id "
        "where r.id = ? order by q.query_id", [run_id])]
