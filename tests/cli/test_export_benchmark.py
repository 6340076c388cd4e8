"""``export benchmark --out DIR``: one folder that is a dataset (issue 35). Every file loads back
with pyarrow and pandas with real nested types, the card's YAML header parses and its counts
equal the data, ``croissant.json`` loads in ``mlcroissant`` offline and yields the records, the
status filter and the splits hold, the questions re-import, and bad input is one line."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from benchmark_db import build
from cli_run import run_cli

from core.store.database import open_db

TABLES = ("questions", "documents", "passages", "answers", "verdicts", "gold")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A small database and the evidence quote of its question g1."""
    path = tmp_path_factory.mktemp("bench") / "bench.db"
    db = open_db(path)
    quote = build(db)
    db.close()
    return path, quote


def export(db_path, out, *extra):
    code, stdout, err = run_cli(
        ["--db", str(db_path), "export", "benchmark", "--out", str(out), *extra]
    )
    return code, stdout, err


@pytest.fixture(scope="module")
def jsonl_dir(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("x") / "bench"
    code, _, err = export(built[0], out)
    assert code == 0, err
    return out


def _rows(folder: Path, table: str) -> list[dict]:
    return [
        json.loads(line)
        for f in sorted((folder / table).glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
    ]


def test_every_jsonl_file_loads_in_pyarrow_with_nested_types(jsonl_dir):
    import pyarrow as pa
    import pyarrow.json as pj

    assert sorted(p.name for p in jsonl_dir.iterdir()) == sorted(
        ["README.md", "croissant.json", *TABLES]
    )
    questions = pj.read_json(jsonl_dir / "questions" / "questions.jsonl")
    assert questions.schema.field("answers").type == pa.list_(pa.string())
    evidence = questions.schema.field("evidence").type
    assert pa.types.is_list(evidence) and pa.types.is_struct(evidence.value_type)
    assert evidence.value_type.field("start").type == pa.int64()
    reviews = questions.schema.field("reviews").type
    assert pa.types.is_struct(reviews.value_type)
    for table in TABLES:
        for f in (jsonl_dir / table).glob("*.jsonl"):
            assert pj.read_json(f).num_rows == len(f.read_text().splitlines())
    verdicts = pj.read_json(jsonl_dir / "verdicts" / "verdicts.jsonl")
    assert verdicts.schema.field("evidence").type == pa.list_(pa.string())


def test_questions_carry_short_answers_evidence_and_edits(jsonl_dir, built):
    import pandas as pd

    frame = pd.read_json(jsonl_dir / "questions" / "questions.jsonl", lines=True)
    rows = {r["id"]: r for r in _rows(jsonl_dir, "questions")}
    assert sorted(rows) == sorted(frame["id"]) == ["g1", "g2", "g5", "g6", "q1", "q2"]
    g1 = rows["g1"]
    assert g1["answers"] == ["Ahab"]  # the evidence sentence is evidence, not an answer
    [ev] = g1["evidence"]
    assert ev["text"] == built[1]
    [passage] = _rows(jsonl_dir, "passages")
    assert ev["passage_id"] == passage["id"] and ev["passage_index"] == passage["index"]
    assert passage["start"] == ev["start"] and passage["document_id"] == "b1"
    assert g1["reviews"][0]["annotator"] == "alice" and g1["guideline_version"]
    assert (g1["generator_model"], g1["prompt_version"], g1["entity"]) == (
        "openai:gpt-4o-mini",
        "abc123",
        "Ahab",
    )
    g2 = rows["g2"]
    assert (g2["question"], g2["answers"]) == ("Who hunts the whale?", ["Ahab"])
    assert (g2["original_question"], g2["original_answers"]) == ("Question g2?", ["Old answer"])
    assert rows["q1"]["answers"] == ["Orion", "It is called Orion."]
    docs = {d["id"]: d for d in _rows(jsonl_dir, "documents")}
    assert docs["b1"]["text_included"] and docs["b1"]["text"]
    assert not docs["s1"]["text_included"] and docs["s1"]["text"] is None  # NarrativeQA: pointer
    assert docs["s1"]["sha256"]


def test_verdicts_and_gold(jsonl_dir):
    verdicts = _rows(jsonl_dir, "verdicts")
    assert {v["question_id"] for v in verdicts} == {"g1"}  # g3 is pending: not exported
    assert {(v["rater"], v["system_a"], v["order_shown"]) for v in verdicts} == {
        ("human:alice", "sysA", "ab"),
        ("human:bob", "sysB", "ba"),
        ("auto:judge", "sysA", "ab"),
    }
    [gold] = _rows(jsonl_dir, "gold")
    assert (gold["task"], gold["label"], gold["source"]) == ("side-by-side", "first", "people")
    assert gold["systems"] == ["sysA", "sysB"]


def _header(card: str) -> dict:
    """The YAML header: one ``key: value`` per line, values in JSON's flow syntax (YAML too)."""
    head = card.split("---\n")[1]
    return {k: json.loads(v) for k, v in (line.split(": ", 1) for line in head.splitlines())}


def test_card_header_parses_and_its_counts_equal_the_data(jsonl_dir, built):
    from core.views.rater_epsilon import stored_choice
    from core.views.rater_report.assemble import TASK, report_for_choice

    card = (jsonl_dir / "README.md").read_text(encoding="utf-8")
    head = _header(card)
    assert head["task_categories"] == ["question-answering"]
    assert head["language"] == ["en"] and head["size_categories"] == ["n<1K"]
    assert sorted(head["license"]) == ["apache-2.0", "other"]
    configs = {c["config_name"]: c for c in head["configs"]}
    assert sorted(configs) == sorted(TABLES)
    for config in configs.values():
        for part in config["data_files"]:
            assert (jsonl_dir / part["path"]).is_file()
    for table in TABLES:
        n = len(_rows(jsonl_dir, table))
        assert f"| `{table}` | " in card and f" | {n} | {table}/" in card
    assert "- `s1` The Keeper: text not included" in card
    assert "- origins: generated 4, narrativeqa 2" in card
    assert "- generation models: openai:gpt-4o-mini 4" in card
    assert "- 2 reviewers, 3 effective reviews" in card
    db = open_db(built[0])
    try:
        page = report_for_choice(db, stored_choice(db, TASK).text)
    finally:
        db.close()
    for row in page["compare"]:  # the Rater validation page's decision per auto-rater
        assert f"| {row['rater']} | {row['status']} |" in card


def test_croissant_loads_offline_and_yields_the_records(jsonl_dir, monkeypatch):
    import mlcroissant as mlc

    def refuse(*args, **kwargs):
        raise AssertionError("mlcroissant tried the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    dataset = mlc.Dataset(jsonld=jsonl_dir / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors
    for table in TABLES:
        records = list(dataset.records(table))
        assert len(records) == len(_rows(jsonl_dir, table)), table
    by_id = {r["questions/id"].decode(): r for r in dataset.records("questions")}
    assert by_id["g1"]["questions/answers"] == [b"Ahab"]
    [ev] = by_id["g1"]["questions/evidence"]
    assert ev["questions/evidence/passage_index"] == _rows(jsonl_dir, "passages")[0]["index"]


def test_parquet_has_the_schema_types(built, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from core.views.benchmark_schema import arrow_schema

    out = tmp_path / "pq"
    code, _, err = export(built[0], out, "--format", "parquet")
    assert code == 0, err
    for table in TABLES:
        found = pq.read_table(out / table / f"{table}.parquet")
        assert found.schema.remove_metadata() == arrow_schema(table)
    questions = pq.read_table(out / "questions" / "questions.parquet")
    assert questions.schema.field("answers").type == pa.list_(pa.string())
    assert "application/x-parquet" in (out / "croissant.json").read_text()


def test_status_filter_and_documents(built, tmp_path):
    out = tmp_path / "pending"
    assert export(built[0], out, "--status", "pending")[0] == 0
    assert [r["id"] for r in _rows(out, "questions")] == ["g3"]
    assert {v["question_id"] for v in _rows(out, "verdicts")} == {"g3"}
    out = tmp_path / "docs"
    assert export(built[0], out, "--documents", "b2", "b3")[0] == 0
    assert [r["id"] for r in _rows(out, "questions")] == ["g5", "g6"]


def test_splits_are_deterministic_by_seed_and_disjoint_by_document(built, tmp_path):
    def split(name, *opts):
        out = tmp_path / name
        code, _, err = export(built[0], out, *opts)
        assert code == 0, err
        return {
            part: [
                json.loads(x)
                for x in (out / "questions" / f"{part}.jsonl").read_text().splitlines()
            ]
            for part in ("train", "test")
        }

    first = split("a", "--split-by", "document", "--seed", "7")
    assert first == split("b", "--split-by", "document", "--seed", "7")
    train = {r["document_id"] for r in first["train"]}
    test = {r["document_id"] for r in first["test"]}
    assert train and test and not train & test
    assert all(r["split"] == part for part, rows in first.items() for r in rows)
    seeds = [
        split(f"r{n}", "--split-by", "random", "--seed", str(s))
        for n, s in enumerate((1, 1, 2, 3, 4))
    ]
    assert seeds[0] == seeds[1]
    ids = [sorted(r["id"] for r in s["test"]) for s in seeds]
    assert len({tuple(i) for i in ids}) > 1  # the seed chooses
    assert all(len(s["train"]) + len(s["test"]) == 6 for s in seeds)


def test_exported_questions_reimport_with_references_and_evidence(jsonl_dir, tmp_path):
    from core.corpus.documents import upsert_document
    from core.store.questions import get_question

    fresh = tmp_path / "fresh.db"
    db = open_db(fresh)
    try:
        for doc in _rows(jsonl_dir, "documents"):
            text = doc["text"] or "placeholder text of a story fetched elsewhere"
            upsert_document(db, doc["id"], text, kind=doc["kind"], source=doc["source"])
    finally:
        db.close()
    path = jsonl_dir / "questions" / "questions.jsonl"
    code, _, err = run_cli(
        ["--db", str(fresh), "import-questions", str(path), "--origin", "generated"]
    )
    assert code == 0, err
    db = open_db(fresh)
    try:
        for row in _rows(jsonl_dir, "questions"):
            stored = get_question(db, row["id"])
            assert (stored.question, stored.answers, stored.qtype) == (
                row["question"],
                row["answers"],
                row["qtype"],
            )
            want = [
                {
                    "passage_idx": e["passage_index"],
                    "start": e["start"],
                    "end": e["end"],
                    "text": e["text"],
                }
                for e in row["evidence"]
            ]
            assert stored.metadata.get("evidence", []) == want
    finally:
        db.close()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--status", "bogus"], "error: unknown status bogus"),
        (["--documents", "nope"], "error: unknown document nope"),
        (["--format", "csv"], "error: export benchmark writes jsonl or parquet"),
        (["--seed", "3"], "error: --seed chooses a split"),
        (["--status", "rejected"], "error: no question has status rejected"),
        (["-o", "x.csv"], "error: export benchmark writes a folder"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(built, tmp_path, extra, message):
    out = tmp_path / "out"
    code, _, err = export(built[0], out, *extra)
    assert code == 2 and err.startswith(message) and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_the_database_and_a_full_folder_are_refused_and_force_replaces(built, tmp_path):
    db_path = built[0]
    code, _, err = export(db_path, db_path)
    assert code == 2 and "is the database" in err and err.count("\n") == 1
    code, _, err = export(db_path, db_path.parent)
    assert code == 2 and "not empty" in err
    code, _, err = export(db_path, db_path.parent, "--force")
    assert code == 2 and "holds the database" in err
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    code, _, err = export(db_path, full)
    assert code == 2 and "not empty" in err and err.count("\n") == 1
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    assert export(db_path, full, "--force")[0] == 0
    assert (full / "README.md").is_file() and not (full / "keep.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # no temporary folder left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert export(db_path, empty)[0] == 0 and (empty / "croissant.json").is_file()


def test_the_apps_zip_holds_the_same_files(built, jsonl_dir):
    import io
    import zipfile

    from core.views.benchmark_files import benchmark_zip

    db = open_db(built[0])
    try:
        data = benchmark_zip(db)
    finally:
        db.close()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = {n.removeprefix("benchmark/"): archive.read(n) for n in archive.namelist()}
    on_disk = {str(p.relative_to(jsonl_dir)) for p in jsonl_dir.rglob("*") if p.is_file()}
    assert set(names) == on_disk
    assert (
        names["questions/questions.jsonl"] == (jsonl_dir / "questions/questions.jsonl").read_bytes()
    )


def test_the_export_reads_the_same_on_each_backend(db_path, tmp_path):
    """The store's reads (chunked ``in`` lists, the quoted ``end`` column) on SQLite and
    PostgreSQL alike."""
    db = open_db(db_path)
    try:
        build(db)
    finally:
        db.close()
    out = tmp_path / "bench"
    code, _, err = export(db_path, out, "--split-by", "document")
    assert code == 0, err
    assert sorted(r["id"] for r in _rows(out, "questions")) == ["g1", "g2", "g5", "g6", "q1", "q2"]
    assert len(_rows(out, "verdicts")) == 3 and len(_rows(out, "passages")) == 1
    assert [g["label"] for g in _rows(out, "gold")] == ["first"]


def test_a_failure_while_writing_leaves_no_folder_and_the_old_one_whole(tmp_path):
    from core.cli.output_files import atomic_folder
    from core.errors import InputError

    db_file = tmp_path / "x.db"
    target = tmp_path / "bench"
    with pytest.raises(KeyboardInterrupt), atomic_folder(target, db_file) as folder:
        (folder / "README.md").write_text("half")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    target.mkdir()
    (target / "old.txt").write_text("old")
    with (
        pytest.raises(InputError, match="nothing was written"),
        atomic_folder(target, db_file, force=True) as folder,
    ):
        (folder / "README.md").write_text("half")
        raise OSError("disk full")
    assert [p.name for p in tmp_path.iterdir()] == ["bench"]
    assert [p.name for p in target.iterdir()] == ["old.txt"]
    with pytest.raises(InputError, match="does not exist"):
        with atomic_folder(tmp_path / "missing" / "bench", db_file):
            pass
