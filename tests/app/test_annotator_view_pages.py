"""AppTest of what the annotator sees: answers with code (the PRD Vicuna80 demo's real answers)
render their code as code, an item without a source document says so instead of an empty
evidence panel, and every decision button names its key."""

from __future__ import annotations

from pathlib import Path

from browser_support import unescaped
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
CODE_ITEM = "vicuna80-62"  # "Implement a Python function to find the longest common subsequence"
NO_SOURCE = "This item has no source document."


def page(path: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["name"] = "alice"  # open mode: the name in the link signs in
    at.run()
    at.switch_page(path)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_code_answer_renders_its_code_as_code_and_has_no_source(prd_db):
    at = page("pages/3_Side_by_side.py", q=CODE_ITEM)
    codes = [c for c in at.code if "def " in c.value]
    assert codes, "no answer's code is shown as code"
    assert all(c.language == "python" for c in codes if "def lcs" in c.value)
    assert all(c.proto.wrap_lines for c in codes)  # long lines wrap, never cut
    shown = " ".join(m.value for m in at.markdown)
    assert "```" not in shown and "\\`\\`\\`" not in shown  # no fence left as text
    assert NO_SOURCE in [c.value for c in at.caption]
    assert not any(m.value.startswith("**Evidence**") for m in at.markdown)
    assert not any("Search the context" in e.label for e in at.expander)


def test_an_item_with_a_source_keeps_its_evidence_panel(prd_db):
    at = page("pages/3_Side_by_side.py", q="gen-0")
    assert any(m.value.startswith("**Evidence**") for m in at.markdown)
    assert NO_SOURCE not in [c.value for c in at.caption]
    assert any("Search the context" in e.label for e in at.expander)


def test_decision_buttons_are_short_and_name_their_key(prd_db):
    at = page("pages/3_Side_by_side.py")
    verdicts = {unescaped(b.label): b for b in at.button if b.proto.shortcut in tuple("1234")}
    assert list(verdicts) == ["A", "B", "Equal", "None"]
    assert unescaped(verdicts["None"].proto.help) == "None (both wrong) (key 4)"
    assert any("shortcut keys are off while typing" in c.value.lower() for c in at.caption)
    at = page("pages/2_NarrativeQA_disputes.py")
    helps = [unescaped(b.proto.help) for b in at.button if b.proto.shortcut in tuple("1234")]
    assert helps[0] == "Reference answer wrong (key 1)" and len(helps) == 4


def test_review_decision_comes_before_the_passages(prd_db):
    """The checklist and its Accept / Reject / Save edit (keys a, x, e) come right after the
    question and its answer, before the long passages (in a pane of their own beside them)."""
    at = page("pages/1_Review_questions.py")
    order = [
        getattr(el, "label", None) or getattr(el, "value", None)
        for el in _walk(at.main)
        if type(el).__name__ in ("Button", "FormSubmitButton", "Expander", "Subheader", "Caption")
    ]
    accept = next(i for i, x in enumerate(order) if x == "Accept")
    passages = next(i for i, x in enumerate(order) if str(x).startswith("Passages"))
    assert accept < passages
    keys = {b.label: b.proto.shortcut for b in at.button}
    assert [keys[k] for k in ("Accept", "Reject", "Save edit")] == list("axe")


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)
