"""``entities merge|split|rename|retype|drop|undo|edits|mentions`` on a 1990s etext novel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.__main__ import main
from core.generation import mentions
from core.generation.mentions import spacy_available
from core.store.database import open_db

ETEXT = Path(__file__).resolve().parents[1] / "data" / "entity_repair" / "etext_novel.txt"
DOC = "book:etext-novel"


@pytest.fixture
def dbpath(new_db_location):
    path = str(new_db_location("t"))
    assert main(["--db", path, "init"]) == 0
    assert main(["--db", path, "import-book", str(ETEXT)]) == 0
    assert main(["--db", path, "entities", DOC, "--method", "regex", "--json"]) == 0
    return path


def cli(capsys, dbpath, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--db", dbpath, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def top(capsys, dbpath) -> dict[str, dict]:
    code, out, _ = cli(capsys, dbpath, "entities", DOC, "--method", "regex", "--json")
    assert code == 0
    return {e["name"]: e for e in json.loads(out)["top"]}


def test_header_removed_and_edits_round_trip(capsys, dbpath):
    names = top(capsys, dbpath)
    assert "Gutenberg" not in " ".join(names)  # the small-print header is not a character
    assert names["Samuel Hollins"]["n_mentions"] == 6 and names["Hollins"]["n_mentions"] == 3

    code, out, _ = cli(
        capsys,
        dbpath,
        "entities",
        "merge",
        DOC,
        "Samuel Hollins",
        "Hollins",
        "--as",
        "ed",
        "--json",
    )
    assert code == 0 and json.loads(out)["payload"] == {
        "names": ["Samuel Hollins", "Hollins"],
        "into": "Samuel Hollins",
        "method": "proper-noun",  # not replayed on another method's entities
    }
    assert (
        cli(capsys, dbpath, "entities", "retype", DOC, "Hollins Farm", "place", "--as", "ed")[0]
        == 0
    )
    assert (
        cli(
            capsys,
            dbpath,
            "entities",
            "rename",
            DOC,
            "Peter Dunn",
            "Peter Dunn the boy",
            "--as",
            "ed",
        )[0]
        == 0
    )

    code, out, _ = cli(capsys, dbpath, "entities", "mentions", DOC, "Samuel Hollins", "--json")
    mentions = json.loads(out)
    assert len(mentions) == 9
    titled = [str(m["id"]) for m in mentions if m["surface"] == "Mr. Hollins"]
    assert len(titled) == 3 and "Hollins Farm" in mentions[0]["right"]
    code, out, err = cli(
        capsys,
        dbpath,
        "entities",
        "split",
        DOC,
        "Samuel Hollins",
        "--mentions",
        ",".join(titled),
        "--name",
        "Mr. Hollins",
        "--as",
        "ed",
    )
    assert code == 0, err
    names = top(capsys, dbpath)  # a re-extraction replays every edit
    assert names["Samuel Hollins"]["n_mentions"] == 6 and names["Mr. Hollins"]["n_mentions"] == 3
    assert names["Hollins Farm"]["label"] == "PLACE" and "Peter Dunn the boy" in names

    code, out, _ = cli(capsys, dbpath, "entities", "edits", DOC, "--json")
    edits = json.loads(out)
    assert [(e["id"], e["action"], e["made_by"]) for e in edits] == [
        (1, "merge", "ed"),
        (2, "retype", "ed"),
        (3, "rename", "ed"),
        (4, "split", "ed"),
    ]
    assert cli(capsys, dbpath, "entities", "undo", DOC, "1", "--as", "ed")[0] == 0
    names = top(capsys, dbpath)
    assert names["Hollins"]["n_mentions"] == 3 and names["Samuel Hollins"]["n_mentions"] == 6
    # The split no longer applies once the merge it split is undone: it is skipped, and said so.
    code, out, _ = cli(capsys, dbpath, "entities", DOC, "--method", "regex")
    assert "entity edits no longer applicable: 4" in out
    code, out, _ = cli(capsys, dbpath, "entities", "edits", DOC)
    assert "merge   Samuel Hollins + Hollins -> Samuel Hollins  (undone by 5)" in out
    assert "undo    undo of edit 1" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["entities", "drop", DOC, "Samuel Hollins"], "say who acts: --as ADMIN"),
        (["entities", "drop", DOC, "Nobody", "--as", "ed"], "no entity named 'Nobody'"),
        (["entities", "merge", DOC, "Samuel Hollins", "--as", "ed"], "usage: entities merge"),
        (["entities", "retype", DOC, "Dunmore", "planet", "--as", "ed"], "entity type 'planet'"),
        (["entities", "undo", DOC, "7", "--as", "ed"], "no entity edit 7"),
        (["entities", "undo", DOC, "x", "--as", "ed"], "is not a number"),
        (
            [
                "entities",
                "split",
                DOC,
                "Samuel Hollins",
                "--mentions",
                "a,b",
                "--name",
                "X",
                "--as",
                "ed",
            ],
            "expected mention ids",
        ),
        (["entities", "drop", "book:nope", "Dunmore", "--as", "ed"], "book:nope"),
        (["entities", DOC, "book:nope"], "book:nope"),  # checked before any extraction
    ],
)
def test_bad_edits_are_one_error_line_and_write_nothing(capsys, dbpath, argv, message):
    code, out, err = cli(capsys, dbpath, *argv)
    assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1
    db = open_db(dbpath)
    assert db.execute("select count(*) from entity_edits").fetchone()[0] == 0
    db.close()


def test_several_documents_in_one_call(capsys, dbpath):
    """Issue 36: ``entities`` takes several documents (14 stories cost 237 s, mostly loading
    spaCy once per call); each gets its own entities, the JSON is one object per document."""
    ak = Path(__file__).resolve().parents[1] / "data" / "unseen_books" / "anna_karenina_excerpt.txt"
    assert main(["--db", dbpath, "import-book", str(ak)]) == 0
    capsys.readouterr()
    db = open_db(dbpath)
    docs = [r[0] for r in db.execute("select id from documents order by id").fetchall()]
    db.close()
    assert len(docs) == 2
    code, out, err = cli(capsys, dbpath, "entities", *docs, "--method", "regex", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert [f["n_entities"] > 0 for f in found] == [True, True]
    names = [{e["name"] for e in f["top"]} for f in found]
    assert "Sviazhsky" in names[0] | names[1] and not names[0] & {"Sviazhsky"} & names[1]
    code, out, _ = cli(capsys, dbpath, "entities", *docs, "--method", "regex", "--top", "1")
    assert code == 0 and [line for line in out.splitlines() if line.startswith("== ")] == [
        f"== {d}" for d in docs
    ]


@pytest.mark.skipif(spacy_available() is None, reason="no spaCy English pipeline")
def test_several_documents_load_the_spacy_model_once(capsys, dbpath):
    """Issue 36: 14 stories cost 237 s, mostly loading spaCy once per call. One call over the
    1990s etext novel and the *Anna Karenina* excerpt loads the model once; the second
    document reads it from the loaded pipeline, and both get spaCy's entities."""
    ak = Path(__file__).resolve().parents[1] / "data" / "unseen_books" / "anna_karenina_excerpt.txt"
    assert main(["--db", dbpath, "import-book", str(ak)]) == 0
    db = open_db(dbpath)
    docs = [r[0] for r in db.execute("select id from documents order by id").fetchall()]
    db.close()
    mentions._load_spacy.cache_clear()
    code, out, err = cli(capsys, dbpath, "entities", *docs, "--method", "spacy", "--json")
    assert code == 0, err
    loads = mentions._load_spacy.cache_info()
    assert loads.misses == 1 and loads.hits >= len(docs) - 1, loads
    found = json.loads(out)
    assert [f["method"] for f in found] == ["spacy"] * len(docs) == ["spacy", "spacy"], found
    assert all(f["n_entities"] > 0 for f in found)
