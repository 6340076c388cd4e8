"""The exported benchmark loads with Hugging Face ``datasets`` as a researcher would load it
(``load_dataset(DIR, CONFIG)``, the configs read from the card's YAML header), offline: every
config, nested fields as lists and structs, and the train/test split when one was asked for."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from benchmark_db import build
from cli_run import run_cli

from core.store.database import open_db

CONFIGS = ("questions", "documents", "passages", "answers", "verdicts", "gold")


@pytest.fixture(scope="module")
def bench_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ds") / "bench.db"
    db = open_db(path)
    build(db)
    db.close()
    return path


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network (any connection attempt fails the test) and a private cache."""

    def refuse(*args, **kwargs):
        raise AssertionError("datasets tried the network")

    for name, value in (
        ("HF_HUB_OFFLINE", "1"),
        ("HF_DATASETS_OFFLINE", "1"),
        ("HF_HOME", str(tmp_path / "hf")),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _lines(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for f in sorted(folder.glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
    ]


def test_every_config_loads_with_datasets(bench_db, tmp_path, offline):
    import datasets

    out = tmp_path / "bench"
    code, _, err = run_cli(["--db", str(bench_db), "export", "benchmark", "--out", str(out)])
    assert code == 0, err
    for config in CONFIGS:
        loaded = datasets.load_dataset(str(out), config, cache_dir=str(tmp_path / "cache"))
        assert loaded["train"].num_rows == len(_lines(out / config)), config
    questions = datasets.load_dataset(str(out), "questions", cache_dir=str(tmp_path / "cache"))
    features = questions["train"].features
    assert features["answers"] == datasets.List(datasets.Value("string"))
    assert isinstance(features["evidence"], datasets.List)
    assert set(features["evidence"].feature) >= {"passage_id", "start", "end", "text"}
    g1 = next(r for r in questions["train"] if r["id"] == "g1")
    assert g1["answers"] == ["Ahab"] and g1["evidence"][0]["text"]


def test_a_split_export_loads_as_train_and_test(bench_db, tmp_path, offline):
    import datasets

    out = tmp_path / "split"
    code, _, err = run_cli(
        ["--db", str(bench_db), "export", "benchmark", "--out", str(out)]
        + ["--split-by", "document", "--seed", "3"]
    )
    assert code == 0, err
    loaded = datasets.load_dataset(str(out), "questions", cache_dir=str(tmp_path / "cache"))
    rows = {p.stem: len(_lines_of(p)) for p in (out / "questions").glob("*.jsonl")}
    assert {name: loaded[name].num_rows for name in loaded} == rows
    docs = {name: set(loaded[name]["document_id"]) for name in loaded}
    if len(docs) == 2:
        assert not docs["train"] & docs["test"]


def _lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_the_cards_declared_features_are_the_parquet_schema_as_datasets_reads_it():
    """The card's ``dataset_info`` (written without ``datasets``) equals what ``datasets``
    derives from the same Arrow schema, table by table."""
    import datasets

    from core.views.benchmark_schema import TABLES, arrow_schema, hf_features

    for table in TABLES:
        declared = datasets.Features._from_yaml_list(hf_features(table))
        assert declared == datasets.Features.from_arrow_schema(arrow_schema(table)), table
