"""The project's one token F1 against the official SQuAD v1.1 evaluation functions, written out
here as published (evaluate-v1.1.py: normalize_answer, f1_score, metric_max_over_ground_truths)."""

from __future__ import annotations

import random
import re
import string
from collections import Counter

import pytest

from core.corpus.sentences import best_token_f1, squad_tokens, token_f1


# --- official SQuAD v1.1 evaluation script (evaluate-v1.1.py) --------------------------------
def normalize_answer(s):
    """Lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)


# ---------------------------------------------------------------------------------------------

CASES = [
    ("Denver Broncos", "Denver Broncos"),
    ("the Denver Broncos!", "Denver Broncos"),
    ("Anna, a painter", "Anna the painter"),
    ("don't stop", "dont stop"),  # punctuation goes before the articles are removed
    ("theatre of the absurd", "the theatre"),
    ("A. Lincoln", "Abraham Lincoln"),
    ("1,000 years", "1000 years"),
    ("rock rock rock", "rock"),
    ("", "anything"),
    ("", ""),
    ("the", "a"),
    ("Café au lait", "cafe au lait"),
    ("Saint-Étienne — France", "Saint Étienne France"),
    ("an igneous rock", "Granite is an igneous rock"),
    ("It’s the answer", "It's the answer"),
]


@pytest.mark.parametrize(("prediction", "reference"), CASES)
def test_token_f1_is_the_official_squad_f1(prediction, reference):
    assert token_f1(prediction, reference) == pytest.approx(f1_score(prediction, reference))
    assert " ".join(squad_tokens(prediction)) == normalize_answer(prediction)


def test_token_f1_matches_squad_on_random_strings():
    rng = random.Random(11)
    alphabet = list("abcdetn ,.'-!?") + ["the ", "a ", "an ", "The ", "A ", "é", "’"]
    for _ in range(500):
        pred = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        refs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 25))) for _ in "xyz"]
        expected = metric_max_over_ground_truths(f1_score, pred, refs)
        assert best_token_f1(pred, refs) == pytest.approx(expected)


def test_best_token_f1_without_references_is_zero():
    assert best_token_f1("anything", []) == 0.0
