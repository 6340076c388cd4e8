"""The model layer: every LLM call of the project goes through here.

>>> from core.llm.engine import complete
>>> from core.llm.types import LLMRequest
>>> resp = complete(db, LLMRequest(model="offline:extractive", task="answer",
...                                fields={"question": "Who?", "context": text}))

Modules: ``types`` (requests, replies, error kinds), ``registry`` and ``providers_*`` (provider
factories with deferred SDK imports), ``engine`` (pre-flight, cache, limits, retries, recording),
``cache``, ``limits``, ``retry``, ``cost``, ``catalog`` (``models.toml``), ``keys``, ``tokens``,
``windows``, ``batch*``, ``offline`` and ``similarity`` (named baselines), ``scripted`` (tests),
``prompts`` (templates in ``prompts/``), ``reply_json`` (JSON out of replies).
See docs/models.md for model ids, keys, cache, costs, batch and the offline baselines.
"""
