"""One person cannot act as another (issue 38, item 4): an account never takes a name imported
labels use, and every comparison of names sees them NFC-normalised and trimmed, with
full-width look-alikes caught."""

from __future__ import annotations

import json
import unicodedata

import pytest
from cli_run import run_cli
from db_content import snapshot

from core.annotation.identity import account_name, sign_in_token
from core.annotation.pairwise import pair_key, undo_last, verdict_progress
from core.corpus.confusables import skeleton
from core.errors import InputError
from core.exam.bank import import_car_bank
from core.store.accounts import create_account
from core.store.exam_bank import bank_questions

PLAIN = "question_id,system_a,system_b,verdict,rater\n"
JOSE = "Jos\u00e9"
JOSE_NFD = unicodedata.normalize("NFD", JOSE)


def _cli(db_path, *argv: str) -> tuple[int, str, str]:
    return run_cli(["--db", str(db_path), *argv])


def _import(db_path, tmp_path, rows: str, name: str = "j.csv") -> tuple[int, str, str]:
    (tmp_path / name).write_text(PLAIN + rows, encoding="utf-8")
    return _cli(db_path, "import-judgments", str(tmp_path / name))


def _refused(result: tuple[int, str, str], *words: str) -> None:
    code, _, err = result
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]


def test_an_account_never_takes_an_imported_raters_name(db, db_path, tmp_path):
    rows = "".join(f"q{i},s1,s2,A,human:crowd-majority\n" for i in range(3))
    assert _import(db_path, tmp_path, rows)[0] == 0
    _refused(_cli(db_path, "annotators", "add", "crowd-majority"), "crowd-majority", "3 verdicts")
    _refused(_cli(db_path, "annotators", "add", " crowd-majority "), "imported rater")
    decomposed = unicodedata.normalize("NFD", "crowd-majorit\u00e9")
    rows = f"q1,s1,s2,A,human:{decomposed}\n"
    assert _import(db_path, tmp_path, rows, "k.csv")[0] == 0
    _refused(_cli(db_path, "annotators", "add", "crowd-majorit\u00e9"), "imported rater")
    assert _accounts(db_path) == []


def _accounts(db_path) -> list[str]:
    code, out, _ = _cli(db_path, "annotators", "list", "--json")
    assert code == 0
    return [a["name"] for a in json.loads(out)["accounts"]]


def test_an_imported_rater_with_a_space_is_the_account_it_names(db, db_path, tmp_path):
    assert _cli(db_path, "annotators", "add", "alice")[0] == 0
    before = snapshot(db, db_path)
    _refused(_import(db_path, tmp_path, "q1,s1,s2,A,human: alice\n"), "account 'alice'")
    assert snapshot(db, db_path) == before


def test_a_rater_name_is_stored_trimmed_after_its_kind(db, db_path, tmp_path):
    assert _import(db_path, tmp_path, "q1,s1,s2,A,human: bob\n")[0] == 0
    raters = {r["rater"] for r in db["judgments"].rows}
    assert raters == {"human:bob"}


def test_a_full_width_lookalike_of_a_rater_is_refused(db, db_path, tmp_path):
    assert skeleton("gpt-4 (PRD\uff09") == skeleton("gpt-4 (PRD)")
    assert _import(db_path, tmp_path, "q1,s1,s2,A,auto:gpt-4 (PRD)\n")[0] == 0
    before = snapshot(db, db_path)
    rows = "q2,s1,s2,B,auto:gpt-4 (PRD\uff09\n"
    _refused(_import(db_path, tmp_path, rows, "k.csv"), "looks like")
    assert snapshot(db, db_path) == before
    code, _, err = _cli(db_path, "annotators", "add", "\uff41lice")  # full-width a
    assert code == 0, err
    _refused(_cli(db_path, "annotators", "add", "alice"), "looks like")


def test_composed_and_decomposed_names_are_one_system(db, db_path, tmp_path):
    before = snapshot(db, db_path)
    _refused(_import(db_path, tmp_path, f"q1,{JOSE},{JOSE_NFD},A,human:carol\n"), "against itself")
    assert snapshot(db, db_path) == before
    assert _import(db_path, tmp_path, f"q1,{JOSE_NFD},s2,A,human:carol\n", "k.csv")[0] == 0
    assert {r["system_a"] for r in db["judgments"].rows} == {JOSE}


def test_exam_ids_composed_and_decomposed_are_one_id(db, tmp_path):
    line = {"query_id": f"q-{JOSE}", "qid": JOSE, "question": "Who?", "correct": "x"}
    path = tmp_path / "bank.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_car_bank(db, path, bank_id="b")
    assert [q.qid for q in bank_questions(db, "b")] == [JOSE]
    twice = {**line, "qid": JOSE_NFD, "query_id": f"q-{JOSE_NFD}"}
    path.write_text(json.dumps(twice) + "\n", encoding="utf-8")
    import_car_bank(db, path, bank_id="b")
    assert [(q.qid, q.query_id) for q in bank_questions(db, "b")] == [(JOSE, f"q-{JOSE}")]
    path.write_text(json.dumps(line) + "\n" + json.dumps(twice) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate qid"):
        import_car_bank(db, path, bank_id="c")


def test_account_name_is_normalised(db):
    assert account_name(db, unicodedata.normalize("NFD", f" {JOSE} ")) == JOSE


def test_an_account_sharing_an_imported_name_never_owns_those_verdicts(db, db_path, tmp_path):
    """A database from before the check (the account made beside imported labels of its name):
    the imported verdicts are not the account's done items, and its Undo never withdraws one."""
    assert _import(db_path, tmp_path, "q1,s1,s2,A,human:crowd-majority\n")[0] == 0
    who = sign_in_token(db, create_account(db, "crowd-majority"))  # the store, unchecked
    item = pair_key("q1", "s1", "s2")
    assert verdict_progress(db, "crowd-majority", [item], [item]).done == 0
    rows = db["judgments"].count
    assert undo_last(db, who) is None
    assert db["judgments"].count == rows


# A system name given to `exam articles` is checked like every other system name: the one rule
# (no invisible character, no edge space), stored in its normal form, look-alikes refused.
EXAM_EXISTING = "lead-pool"
EXAM_SYSTEMS = [
    ("edge-space", "lead-pool ", "leading or trailing space"),
    ("zero-width", "lead\u200b-pool", "U+200B"),
    ("nbsp", "lead\u00a0pool", "U+00A0"),
    ("cyrillic", "l\u0435ad-pool", "looks like"),
    ("full-width", "\uff4cead-pool", "looks like"),
    ("case", "Lead-Pool", "looks like"),
]


@pytest.mark.parametrize(
    ("system", "message"), [c[1:] for c in EXAM_SYSTEMS], ids=[c[0] for c in EXAM_SYSTEMS]
)
def test_exam_article_systems_are_checked_names(db, db_path, tmp_path, system, message):
    line = {"query_id": "q1", "qid": "x1", "question": "Who?", "correct": "x"}
    (tmp_path / "bank.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_car_bank(db, tmp_path / "bank.jsonl", bank_id="b")
    arts = tmp_path / "a.jsonl"
    arts.write_text(json.dumps({"query_id": "q1", "text": "An article."}) + "\n", "utf-8")
    assert _cli(db_path, "exam", "articles", "b", EXAM_EXISTING, "--jsonl", str(arts))[0] == 0
    before = snapshot(db, db_path)
    _refused(_cli(db_path, "exam", "articles", "b", system, "--jsonl", str(arts)), message)
    assert snapshot(db, db_path) == before


def test_an_exam_system_is_stored_in_its_normal_form(db, db_path, tmp_path):
    line = {"query_id": "q1", "qid": "x1", "question": "Who?", "correct": "x"}
    (tmp_path / "bank.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_car_bank(db, tmp_path / "bank.jsonl", bank_id="b")
    arts = tmp_path / "a.jsonl"
    arts.write_text(json.dumps({"query_id": "q1", "text": "An article."}) + "\n", "utf-8")
    for name in (JOSE_NFD, JOSE):
        assert _cli(db_path, "exam", "articles", "b", name, "--jsonl", str(arts))[0] == 0
    assert {r["system"] for r in db["exam_articles"].rows} == {JOSE}


@pytest.mark.parametrize("other", ["Alice", "ALICE", "al\u0456ce"], ids=["title", "upper", "cyr"])
def test_an_account_differing_only_in_case_is_a_lookalike(db_path, other):
    assert _cli(db_path, "annotators", "add", "alice")[0] == 0
    _refused(_cli(db_path, "annotators", "add", other), "looks like")
    assert _accounts(db_path) == ["alice"]


def test_systems_differing_only_in_case_are_lookalikes(db, db_path, tmp_path):
    assert _import(db_path, tmp_path, "q1,gpt4,claude,A,human:carol\n")[0] == 0
    before = snapshot(db, db_path)
    _refused(_import(db_path, tmp_path, "q2,GPT4,claude,A,human:carol\n", "k.csv"), "looks like")
    assert snapshot(db, db_path) == before


def test_xrag_verdict_files_compare_annotators_in_normal_form(db, tmp_path):
    """A file's annotator column names the person in any Unicode form (José composed or not,
    spaces around): one person, the one importing."""
    from core.annotation.identity import shell_admin
    from core.xrag.human_verdicts import import_human_verdicts, named_annotator

    path = tmp_path / "v.csv"
    path.write_text(
        f"result_id,verdict,annotator\n1,yes,{JOSE}\n2,no, {JOSE_NFD} \n", encoding="utf-8"
    )
    assert named_annotator(path) == JOSE
    who = shell_admin(db, JOSE_NFD)  # open mode: signed in by name, stored in NFC
    with pytest.raises(InputError, match="unknown XRAG result"):  # not "another person's verdict"
        import_human_verdicts(db, path, who)
