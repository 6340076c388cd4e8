"""AppTest of stored skips and the real undo on Review (page 1) and Disputes (page 2): a skip is
a stored row that outlives the session, is not counted as done and sends the item to the end of
my queue; Undo withdraws my latest label or skip and says which."""

from __future__ import annotations

from test_app_pages import REVIEW, _answer, _shown_question, button, count, ok, page
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

DISPUTES = "pages/2_NarrativeQA_disputes.py"


def _progress(at) -> str:
    return at.get("progress")[0].proto.text


def _notices(at) -> list[str]:
    return [m.value for m in [*at.info, *at.success]]


def test_review_skip_is_stored_survives_a_new_session_and_undo_takes_it_back(fixture_db):  # noqa: F811
    path, _ = fixture_db
    at = ok(page(REVIEW))
    first = _shown_question(at)
    keys = {b.label: b.proto.shortcut for b in at.button}
    assert (keys["Skip"], keys["Undo"]) == ("s", "u")
    ok(button(at, "Skip").click().run())
    assert count(path, "select count(*) from reviews where decision = 'skipped'") == 1
    assert _shown_question(at) != first
    assert "0 of" in _progress(at) and "1 skipped" in _progress(at)
    assert any(n.startswith("Skipped '") and "end of your queue" in n for n in _notices(at))
    # a new session (a reload): the skip is still there, the skipped question still not first
    again = ok(page(REVIEW))
    assert "1 skipped" in _progress(again) and _shown_question(again) != first
    ok(button(again, "Undo").click().run())
    assert count(path, "select count(*) from reviews where decision = 'withdrawn'") == 1
    assert any(n.startswith("Withdrawn your skip of '") for n in _notices(again))
    assert "skipped" not in _progress(again)
    assert _shown_question(again) == first  # back in its place


def test_review_undo_withdraws_my_review_and_restores_the_status(fixture_db):  # noqa: F811
    path, _ = fixture_db
    at = ok(page(REVIEW))
    qid = _shown_question(at)
    _answer(at)
    for cb in at.checkbox:
        cb.check()
    ok(button(at, "Accept").click().run())
    assert count(path, f"select count(*) from questions where id = '{qid}' and status = 'accepted'")
    assert "1 of" in _progress(at)
    ok(button(at, "Undo").click().run())
    assert (
        count(
            path,
            "select count(*) from reviews w join reviews r on w.supersedes = r.id "
            f"where w.decision = 'withdrawn' and r.decision = 'accept' and r.question_id = '{qid}'",
        )
        == 1
    )
    assert count(path, f"select count(*) from questions where id = '{qid}' and status = 'pending'")
    assert any(
        n.startswith("Withdrawn your review (**accept**) of '") and "now **pending**" in n
        for n in _notices(at)
    )
    assert "0 of" in _progress(at) and _shown_question(at) == qid
    ok(button(at, "Undo").click().run())
    assert any(n.startswith("Nothing to undo") for n in _notices(at))


def test_review_undo_never_touches_another_annotators_review(fixture_db):  # noqa: F811
    path, _ = fixture_db
    alice = ok(page(REVIEW, "alice"))
    _answer(alice)
    for cb in alice.checkbox:
        cb.check()
    ok(button(alice, "Accept").click().run())
    bob = ok(page(REVIEW, "bob"))
    ok(button(bob, "Undo").click().run())
    assert any(n.startswith("Nothing to undo") for n in _notices(bob))
    assert count(path, "select count(*) from reviews") == 1


def test_dispute_skip_survives_a_new_session_and_undo_names_it(fixture_db):  # noqa: F811
    path, _ = fixture_db
    at = ok(page(DISPUTES))
    question = [m.value for m in at.markdown][0]
    ok(button(at, "Skip").click().run())
    again = ok(page(DISPUTES))
    assert "0 of" in _progress(again) and "1 skipped" in _progress(again)
    assert [m.value for m in again.markdown][0] != question
    ok(button(again, "Undo").click().run())
    assert any(n.startswith("Withdrawn your skip of '") for n in _notices(again))
    assert "skipped" not in _progress(again)
    ok(button(again, "Model wrong").click().run())
    ok(button(again, "Undo").click().run())
    assert any(
        n.startswith("Withdrawn your resolution **Model answer wrong** of '")
        for n in _notices(again)
    )
    assert (
        count(path, "select count(*) from dispute_resolutions where resolution = 'withdrawn'") == 2
    )
    assert count(path, "select count(*) from dispute_resolutions") == 4
