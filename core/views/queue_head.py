"""The line at the top of a labelling screen (issue 34): how far the person is, where the item
shown stands in their queue ("item 12 of 40") and what happens after a decision."""

from __future__ import annotations

from collections.abc import Sequence

from core.annotation.base import Progress


def queue_headline(progress: Progress, queue: Sequence[object], current: object, after: str) -> str:
    """``"<done> of <total> done · item <n> of <total> · <after>"``: the item's place is its
    index in the person's queue after the items already done; an item shown that is not in the
    queue (opened by a link, or picked) says so instead. ``str(progress)`` comes first, as the
    progress bar has always read."""
    if current in queue:
        place = f"item {progress.done + list(queue).index(current) + 1} of {progress.total}"
    else:
        place = "an item opened by link or picked (not from your queue)"
    return f"{progress} · {place} · {after}"
