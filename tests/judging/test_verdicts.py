"""Judge-reply parsing: JSON, fenced JSON, single-quoted dicts, verdict phrases, garbage."""

import pytest

from core.judging.verdicts import normalise_verdict, parse_reply


@pytest.mark.parametrize(
    "raw, kind, verdict",
    [
        (
            '{"verdict": "yes", "evidence": ["He left at dawn."], "explanation": "ok"}',
            "absolute",
            "yes",
        ),
        ('{"verdict": "No", "evidence": []}', "absolute", "no"),
        ('Sure.\n```json\n{"verdict": "B", "evidence": ["x y z w"]}\n```\nDone.', "pairwise", "B"),
        (
            "```\n{'verdict': 'A', 'evidence': ['a quote here'], 'explanation': 'A is right'}\n```",
            "pairwise",
            "A",
        ),
        ("{'verdict': 'None', 'evidence': []}", "pairwise", "None"),
        ('Here is my judgement: {"verdict": "Equal"} as requested', "pairwise_equal", "Equal"),
        ("After reading both, Answer A is better because it names the ship.", "pairwise", "A"),
        ("Verdict: B", "pairwise", "B"),
        ("Neither A nor B is better: both contain errors.", "pairwise", "None"),
        ("The answer is not supported by the passage.", "absolute", "no"),
        ("The answer is fully supported by the text.", "absolute", "yes"),
        ("verdict: yes", "absolute", "yes"),
        ("{'verdict': 'A', 'evid", "pairwise", "A"),  # truncated after a clear verdict
    ],
)
def test_parses(raw, kind, verdict):
    parsed = parse_reply(raw, kind)
    assert parsed.status == "ok"
    assert parsed.verdict == verdict


@pytest.mark.parametrize(
    "raw, kind",
    [
        ("", "absolute"),
        ("I cannot decide.", "pairwise"),
        ("A is better. On reflection, B is better.", "pairwise"),  # two verdicts: never guess
        ('{"verdict": "maybe"}', "absolute"),
        ('{"verdict": null}', "pairwise"),
        ('{"verdict": "Equal"}', "pairwise"),  # not allowed for this kind
        ("<html>502 Bad Gateway</html>", "absolute"),
        ('{"verdict": ', "pairwise"),  # truncated before the verdict
    ],
)
def test_unparsed_is_never_guessed(raw, kind):
    parsed = parse_reply(raw, kind)
    assert parsed.status == "unparsed"
    assert parsed.verdict is None


def test_evidence_and_explanation_are_kept():
    parsed = parse_reply(
        '{"verdict": "yes", "evidence": ["one quote", {"quote": "two"}], "explanation": "because"}',
        "absolute",
    )
    assert parsed.evidence == ["one quote", "two"]
    assert parsed.explanation == "because"
    assert parsed.method == "json"


def test_fenced_and_literal_methods_are_recorded():
    assert parse_reply('```json\n{"verdict": "A"}\n```', "pairwise").method == "fenced"
    assert parse_reply("{'verdict': 'A'}", "pairwise").method == "literal"
    assert parse_reply("So A is better.", "pairwise").method == "phrase"


def test_normalise_verdict():
    assert normalise_verdict("A is better", ("A", "B", "None")) == "A"
    assert normalise_verdict(True, ("yes", "no")) == "yes"
    assert normalise_verdict("tie", ("A", "B", "None")) is None
