"""AppTest of the Entities page: top entities, mentions in context, merge by selection, split
by mention, retype, undo from the history; admins only once accounts exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from bound_sql import run_sql
from browser_support import unescaped
from spacy_once import extraction_once, shared_folder
from streamlit.testing.v1 import AppTest

from core.corpus.books import import_book
from core.generation.entity_store import build_entities, get_entities
from core.store.accounts import create_account
from core.store.connection import utcnow
from core.store.database import open_db
from core.store.questions import Question, QuestionOrigin, QuestionStatus, insert_question
from core.views.entities import mention_samples

ROOT = Path(__file__).resolve().parents[2]
NOVEL = ROOT / "tests" / "data" / "entity_repair" / "patronymic_novel.txt"
DOC = "book:patronymic-novel"
PAGE = "pages/13_Entities.py"


@pytest.fixture
def novel_db(db_path, monkeypatch) -> Path | str:
    path = db_path
    db = open_db(path)
    import_book(db, NOVEL)
    build_entities(db, DOC, method="regex")
    stiva = next(e for e in get_entities(db, DOC) if e.name == "Stiva")
    now = utcnow()
    insert_question(
        db,
        Question(
            id="q-stiva",
            document_id=DOC,
            question="Why does Stiva come to Moscow?",
            answers=["to propose"],
            origin=QuestionOrigin.GENERATED,
            entity_id=stiva.id,
            status=QuestionStatus.ACCEPTED,
            created_at=now,
            updated_at=now,
        ),
    )
    db.conn.close()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    return path


def page(name: str = "alice") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["name"] = name
    at.run()
    at.switch_page(PAGE)
    return ok(at.run())


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def button(at: AppTest, label: str):
    return next(b for b in at.button if unescaped(b.label) == label)


def query(path: Path | str, sql: str, **values: str) -> list[tuple]:
    db = open_db(path)
    try:
        return [tuple(r) for r in run_sql(db, sql, **values).fetchall()]
    finally:
        db.conn.close()


def test_entities_page_merge_split_retype_and_undo(novel_db):
    at = page()
    table = at.dataframe[0].value
    assert list(table["name"][:3]) == ["Levin", "Stepan Arkadyevitch", "Kitty"]
    assert table["questions"][list(table["name"]).index("Stiva")] == 1
    assert any("**Levin**" in m.value for m in at.markdown)  # KWIC of the first entity

    at.multiselect(key="merge_parts").set_value(["Stepan Arkadyevitch", "Stiva"])
    at.text_input(key="merge_into").set_value("Stepan Arkadyevitch Oblonsky")
    ok(button(ok(at.run()), "Merge").click().run())
    assert query(novel_db, "select action, made_by from entity_edits") == [("merge", "alice")]
    assert query(novel_db, "select status from questions") == [("needs_review",)]
    assert "flagged needs\\_review" in at.success[0].value
    assert at.dataframe[0].value["name"][0] == "Stepan Arkadyevitch Oblonsky"

    review = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    review.query_params["name"] = "alice"
    ok(review.run()).switch_page("pages/1_Review_questions.py")
    review.query_params["q"] = "q-stiva"
    warning = unescaped(ok(review.run()).warning[0].value)
    assert warning.startswith("Needs review: entity Stiva merged into")

    at.selectbox(key="entity").set_value("Kitty")
    picker = ok(at.run()).multiselect(key="split_mentions")
    picker.set_value(
        picker.options[:2] and [int(unescaped(o)[1:].split(" ")[0]) for o in picker.options[:2]]
    )
    at.text_input(key="split_name").set_value("Kitty Shtcherbatskaya")
    ok(button(ok(at.run()), "Split").click().run())
    at.selectbox(key="retype_label").set_value("PLACE")  # Kitty is no place: undone below
    ok(button(ok(at.run()), "Retype").click().run())
    assert [a for (a,) in query(novel_db, "select action from entity_edits")] == [
        "merge",
        "split",
        "retype",
    ]
    assert query(
        novel_db, "select n_mentions from entities where name = 'Kitty Shtcherbatskaya'"
    ) == [(2,)]
    assert query(novel_db, "select label from entities where name = 'Kitty'") == [("PLACE",)]

    at.selectbox(key="undo_edit").set_value(1)  # the merge
    ok(button(ok(at.run()), "Undo").click().run())
    assert query(novel_db, "select status from questions") == [("accepted",)]
    assert query(novel_db, "select action, undoes from entity_edits where id = 4") == [("undo", 1)]
    names = list(at.dataframe[0].value["name"])
    assert "Stepan Arkadyevitch" in names and "Stiva" in names


def test_only_admins_edit_once_accounts_exist(novel_db):
    db = open_db(novel_db)
    tokens = {
        "ann": create_account(db, "ann", "annotator"),
        "boss": create_account(db, "boss", "admin"),
    }
    db.conn.close()
    for who, shown in (("ann", False), ("boss", True)):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.query_params["token"] = tokens[who]
        ok(at.run())
        at.switch_page(PAGE)
        ok(at.run())
        assert bool(at.dataframe) is shown
        if not shown:
            assert "needs the admin role" in unescaped(at.error[0].value)


def test_every_mention_is_offered_and_a_split_by_surface_form(novel_db):
    """Issue 36: the split picker offers every mention (a 1,000 sample left 698 of one man's
    1,698 out of reach), and a split by surface form moves every mention written so; the alias
    they all carried leaves the entity."""
    db = open_db(novel_db)
    assert len(mention_samples(db, DOC, "Levin", None)) == 13  # every one, no sample
    db.conn.close()
    at = page()
    at.selectbox(key="entity").set_value("Levin")
    assert len(ok(at.run()).multiselect(key="split_mentions").options) == 13
    at.text_input(key="split_surface").set_value("Konstantin Dmitrievitch")
    at.text_input(key="split_name").set_value("Konstantin")
    ok(button(ok(at.run()), "Split by form").click().run())
    assert query(novel_db, "select action from entity_edits") == [("split",)]
    assert query(novel_db, "select n_mentions from entities where name = 'Konstantin'") == [(2,)]
    levin = query(novel_db, "select aliases, n_mentions from entities where name = 'Levin'")
    assert levin == [('["Konstantin Dmitrievitch Levin"]', 11)]  # the moved form's alias left


#: Real text (issue 36): *Les Misérables* (``demo/books``), whose most mentioned man has more
#: than 1,000 mentions with the built-in finder (Marius: 1,339).
LESMIS = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"


@pytest.fixture(params=["repeated novel", "Les Misérables"])
def long_novel_db(
    request, db_path, tmp_path, tmp_path_factory, monkeypatch
) -> tuple[Path | str, str, str]:
    """A book, its most mentioned entity and its name: the bundled novel's paragraphs repeated
    100 times (Levin has 1,300 mentions, built with the regex method in about a second), or
    *Les Misérables* (real text; the regex method in about half a minute), either more than the
    1,000 sample the page once offered. Les Misérables' extraction is the one
    ``test_entities::test_les_miserables_top10`` checks, computed once per session
    (:func:`spacy_once.extraction_once`)."""
    if request.param == "Les Misérables":
        book = LESMIS
    else:
        paragraphs = NOVEL.read_text().split("\n\n")
        body = "\n\n".join(p for p in paragraphs if not p.startswith("PART "))
        book = tmp_path / "long_novel.txt"
        book.write_text("\n\n".join([body] * 100) + "\n")
    db = open_db(db_path)
    doc = import_book(db, book)["id"]
    with extraction_once(shared_folder(tmp_path_factory)):
        build_entities(db, doc, method="regex")
    name = get_entities(db, doc)[0].name
    db.conn.close()
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    return db_path, doc, name


def test_an_entity_with_more_than_1000_mentions_is_offered_whole(long_novel_db):
    """Issue 36: every mention of an entity with more than 1,000 (1,300 of the repeated novel's
    Levin; 1,339 of Marius in *Les Misérables*) reaches the split picker (a cap of 1,000 would
    leave the rest out), and the 1,100th and the last can be picked and split off."""
    path, doc, name = long_novel_db
    (entity_id,) = query(path, "select id from entities where name = :n", n=name)[0]
    every = [i for (i,) in query(path, f"select id from mentions where entity_id = {entity_id}")]
    assert len(every) > 1000 and name in ("Levin", "Marius")
    assert name != "Levin" or len(every) == 1300
    db = open_db(path)
    samples = mention_samples(db, doc, name, None)
    db.conn.close()
    by_start = [s["id"] for s in samples]
    assert sorted(by_start) == sorted(every)  # every one, no sample

    at = page()
    at.selectbox(key="entity").set_value(name)
    picker = ok(at.run()).multiselect(key="split_mentions")
    offered = [int(unescaped(o)[1:].split(" ")[0]) for o in picker.options]
    assert offered == by_start  # all of them, in book order
    # the 1,100th (past the first 1,000) and the last (skipped by an even 1,000 sample)
    picker.set_value([offered[1099], offered[-1]])
    at.text_input(key="split_name").set_value(f"{name} the younger")
    ok(button(ok(at.run()), "Split").click().run())
    assert query(path, "select action from entity_edits") == [("split",)]
    moved = query(
        path,
        "select m.start from mentions m join entities e on e.id = m.entity_id "
        "where e.name = :n order by m.start",
        n=f"{name} the younger",
    )
    assert moved == [(samples[1099]["start"],), (samples[-1]["start"],)]
    left = query(path, "select n_mentions from entities where name = :n", n=name)
    assert left == [(len(every) - 2,)]
