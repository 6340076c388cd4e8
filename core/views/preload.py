"""Imports the pages need, done ahead of time once per server process.

Without this, the first visit to a page after the server started pays for the libraries that page
is the first to use: the EXAM page's ROUGE-1 baseline imports ``rouge-score`` and, through it, nltk
and scikit-learn (about 0.5 s on 2 cores); the Run page imports the pipeline and pydantic; plotly
loads each graph object class, property and serialiser on first use. :func:`preload` imports every
module of the packages the pages read from (``core.views``, and ``core.pipeline`` for the Run
page) and the libraries those modules import lazily inside functions (:data:`DEFERRED`), then
serialises one small figure with the trace kinds and layout parts the pages draw.
"""

from __future__ import annotations

import importlib
import pkgutil

#: The packages the pages import from: every module in them is imported.
PACKAGES = ("core.views", "core.pipeline")

#: Libraries imported inside functions (deferred so the command line starts fast), with the
#: attributes to touch for modules that load lazily on attribute access (plotly).
DEFERRED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rouge_score.rouge_scorer", ()),  # EXAM: the ROUGE-1 baseline (nltk, scikit-learn)
    ("bm25s", ()),  # Side by side, Disputes: the evidence passages
    ("plotly.graph_objects", ("Figure", "Bar", "Heatmap", "Scatter")),
    ("plotly.colors", ()),  # named colour scales
)


def modules_to_preload() -> list[tuple[str, tuple[str, ...]]]:
    """Every module of :data:`PACKAGES` (sorted), then :data:`DEFERRED`."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        found += [
            (m.name, ())
            for m in sorted(pkgutil.walk_packages(path, f"{package}."), key=lambda m: m.name)
        ]
    return found + list(DEFERRED)


def preload() -> list[str]:
    """Import :func:`modules_to_preload`; return those that could not be imported (an optional
    extra not installed), as ``"module: error"`` lines. Never raises for a missing module."""
    failed = []
    for name, attributes in modules_to_preload():
        try:
            module = importlib.import_module(name)
            for attribute in attributes:
                getattr(module, attribute)
        except (ImportError, AttributeError) as exc:
            failed.append(f"{name}: {exc}")
    try:
        _serialise_sample_figure()
    except (ImportError, ValueError) as exc:
        failed.append(f"plotly figure: {exc}")
    return failed


def _serialise_sample_figure() -> str:
    """A figure with the pages' trace kinds (bar, heatmap with a colour bar, scatter with error
    bars) and layout parts (title, axis titles, margins), from pandas data, as JSON."""
    import pandas as pd
    import plotly.graph_objects as go
    import plotly.io as pio

    x = pd.Series([0.0, 1.0])
    fig = go.Figure(
        [
            go.Bar(x=x, y=x),
            go.Heatmap(z=[[1, 0], [0, 1]], colorbar={"title": {"text": "n"}}),
            go.Scatter(x=x, y=x, error_x={"type": "data", "array": [0.1, 0.1]}),
        ]
    )
    fig.update_layout(title="sample", xaxis_title="x", yaxis_title="y", margin={"l": 10, "r": 10})
    return str(pio.to_json(fig))
