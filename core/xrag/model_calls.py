"""Model calls of the XRAG builder: JSON replies, language names, pair relatedness."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

from core.errors import ConfigError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.reply_json import first_object
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse, require_real_model
from core.store.documents import documents_by_id
from core.store.judgments import AbsoluteVerdict
from core.store.xrag import confirmed_pairs

if TYPE_CHECKING:
    from core.store.engine import Database

LANGUAGE_NAMES = {"en": "English", "de": "German", "es": "Spanish", "zh": "Chinese", "ar": "Arabic"}
TARGET_LANGUAGES = ("de", "es", "zh", "ar")
#: ``article_pairs.method`` of a candidate pair a model was asked about.
CONFIRMED = "title-entities+model"


class ArticleText(TypedDict):
    """What a prompt reads of an article: its document id, title and text."""

    id: str
    title: str
    text: str


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code of the study (ConfigError for others)."""
    try:
        return LANGUAGE_NAMES[code]
    except KeyError:
        raise ConfigError(
            f"unsupported language {code!r}; use one of {', '.join(LANGUAGE_NAMES)}"
        ) from None


def json_reply(response: LLMResponse) -> dict[str, Any] | None:
    """The JSON object of a reply (the whole text, a fenced block, or the first ``{...}``);
    None for a failed call or an unreadable reply."""
    return None if response.error else first_object(response.text)


def relatedness_request(model: str, a: ArticleText, b: ArticleText) -> LLMRequest:
    """The ``xrag_relatedness`` question about articles ``a`` and ``b`` (nothing sent)."""
    return LLMRequest(
        model=model,
        task="relatedness",
        max_tokens=200,
        purpose="xrag-relatedness",
        prompt=render_prompt(
            "xrag_relatedness",
            title_a=a["title"],
            text_a=a["text"][:3000],
            title_b=b["title"],
            text_b=b["text"][:3000],
        ),
        fields={"title_a": a["title"], "title_b": b["title"]},
    )


def confirm_relatedness(
    db: Database,
    pairs: list[dict[str, Any]],
    model: str,
    store_pairs: Callable[[Database, list[dict[str, Any]]], int],
    *,
    run_id: str | None = None,
) -> dict[str, int]:
    """Ask ``model`` whether each candidate pair is topically related; store each pair with its
    verdict (``store_pairs(db, [pair])``) as its reply arrives.

    An LLM stage (:func:`core.llm.stage.run_stage`): a "yes" stores the pair ``active``, a "no"
    ``rejected``, an unreadable reply or a failed call ``unconfirmed`` (asked again on a rerun;
    the reply of an unreadable one comes from the cache). Pairs a model already decided are
    skipped (``already confirmed``) and left as stored. The pairs asked get ``method``,
    ``related``, ``status`` and ``provenance`` set. Returns counts by status plus ``new``.
    """
    require_real_model(model, "checking pair relatedness")
    done = confirmed_pairs(db, CONFIRMED)
    todo = [p for p in pairs if (p["article_a"], p["article_b"]) not in done]
    ids = sorted({x for p in todo for x in (p["article_a"], p["article_b"])})
    texts = {
        d.id: ArticleText(id=d.id, title=d.title, text=d.text)
        for d in documents_by_id(db, ids).values()
    }
    planned = [
        (p, relatedness_request(model, texts[p["article_a"]], texts[p["article_b"]])) for p in todo
    ]
    provenance = {"model": model, "prompt_hash": prompt_hash("xrag_relatedness")}
    counts: Counter[str] = Counter()
    if len(todo) < len(pairs):
        counts["already confirmed"] = len(pairs) - len(todo)

    def store(db: Database, p: dict[str, Any], resp: LLMResponse) -> str:
        verdict = str((json_reply(resp) or {}).get("related", "")).strip().lower()
        p["method"] = CONFIRMED
        p["related"] = verdict if verdict in (AbsoluteVerdict.YES, AbsoluteVerdict.NO) else None
        p["status"] = {"yes": "active", "no": "rejected"}.get(verdict, "unconfirmed")
        p["provenance"] = provenance
        counts["new"] += store_pairs(db, [p])
        return str(p["status"])

    run_stage(db, planned, store, run_id=run_id, counts=counts, ordered=True)
    return dict(counts)
