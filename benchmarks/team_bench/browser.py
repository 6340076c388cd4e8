"""The simulated annotators of ``benchmarks/team_load.py``: contexts of one headless Chromium,
each signed in with its own link on its own server, making keyboard verdicts on Side by side."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import time
from pathlib import Path

from app_pages import _IDLE_JS, _PROGRESS_JS, _SHOWN_JS, _STATE_JS, CHROMIUM

from team_bench.usage import Usage

_EXCEPTION = '[data-testid="stException"]'


async def _idle(page, timeout_s: float) -> None:
    await page.wait_for_function(_IDLE_JS, timeout=timeout_s * 1000)


async def sign_in(browser, base: str, token: str, timeout_s: float):
    """A fresh context signed in with its one-time link, on Side by side with an item shown."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    await page.goto(f"{base}/Side_by_side?token={token}")
    await page.get_by_role("heading", name="Answer A").wait_for(timeout=timeout_s * 1000)
    await _idle(page, timeout_s)
    return context, page


async def _done(page) -> int:
    found = re.search(r"(\d+) of", await page.evaluate(_PROGRESS_JS) or "")
    return int(found.group(1)) if found else -1


async def _page_state(page) -> str:
    """What the page showed when an action failed: its progress line, the messages and
    exceptions on it, and the app's connection and script state (or why none could be read)."""
    try:
        progress = await page.evaluate(_PROGRESS_JS)
        shown = await page.evaluate(_SHOWN_JS)
        state = await page.evaluate(_STATE_JS)
    except Exception as exc:  # a closed page or a lost connection has no state to read
        return f"page state unreadable ({type(exc).__name__})"
    return f"progress {progress!r}; {state}; page showed {shown}"


async def annotate(page, name: str, actions: int, timeout_s: float) -> dict:
    """``actions`` keyboard verdicts: the seconds of each confirmed one, key presses sent and
    errors (the first error ends this annotator's run: its page state is unknown)."""
    times: list[float] = []
    pressed, errors = 0, []
    rng = random.Random(name)
    for _ in range(actions):
        try:
            await page.locator("h1").first.click()  # focus on the page, not an input
            before = await _done(page)
            t = time.perf_counter()
            pressed += 1
            await page.keyboard.press(rng.choice("1234"))
            await page.wait_for_function(
                f"() => {{ const m = ({_PROGRESS_JS})().match(/(\\d+) of/);"
                f" return m && Number(m[1]) > {before}; }}",
                timeout=timeout_s * 1000,
            )
            await page.get_by_role("heading", name="Answer A").wait_for(timeout=timeout_s * 1000)
            await _idle(page, timeout_s)
            took = time.perf_counter() - t
            if await page.locator(_EXCEPTION).count():
                errors.append(
                    f"{name} action {pressed}: exception shown: "
                    + (await page.locator(_EXCEPTION).first.inner_text())[:200]
                )
                break
            times.append(took)
        except Exception as exc:  # a timeout or a closed page: counted, and this run ends
            errors.append(
                f"{name} action {pressed}: {type(exc).__name__}: "
                f"{str(exc).splitlines()[0][:200]}; {await _page_state(page)}"
            )
            break
    return {"name": name, "times": times, "pressed": pressed, "errors": errors}


async def run_round(
    bases: list[str],
    people: list[tuple[str, str]],
    args: argparse.Namespace,
    roots: dict[str, list[int]],
) -> tuple[list[dict], Usage]:
    """Sign everyone in, annotator i on ``bases[i % K]``, then all label at once (sampled while
    they label)."""
    from playwright.async_api import async_playwright  # reason: optional browser dependency

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=args.chromium, headless=True)
        pages = []
        for i, (_, token) in enumerate(people):
            pages.append(await sign_in(browser, bases[i % len(bases)], token, args.action_timeout))
        with Usage({**roots, "clients": [os.getpid()]}) as usage:
            results = await asyncio.gather(
                *(
                    annotate(page, name, args.actions, args.action_timeout)
                    for (name, _), (_, page) in zip(people, pages)
                )
            )
        await browser.close()
    return list(results), usage


async def first_visit(bases: list[str], executable: str) -> None:
    """Each server's first script run imports everything: one visit before any round."""
    from playwright.async_api import async_playwright  # reason: optional browser dependency

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=executable, headless=True)
        for base in bases:
            page = await browser.new_page()
            await page.goto(base)  # signed out: the sign-in form only, but the imports are made
            await _idle(page, 180)
            await page.close()
        await browser.close()


def chromium(work: Path, nice: int) -> str:
    """The browser to launch: Chromium itself, or a wrapper that starts it at niceness ``nice``
    (its every process inherits it; the servers, started by this script, do not)."""
    if nice <= 0:
        return CHROMIUM
    wrapper = work / "chromium-niced"
    wrapper.write_text(f'#!/bin/sh\nexec nice -n {min(nice, 19)} {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)
