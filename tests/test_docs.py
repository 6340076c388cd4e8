"""The public surface is documented: the README names every command and links only to files that
exist; the docs (README plus docs/*.md) name every judge kind, system kind, prompt and benchmark;
docs/cli.md is every command's current --help."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from core.__main__ import build_parser
from core.answering.systems import system_kinds
from core.judging.specs import judge_names
from core.llm.prompts import available_prompts

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = README + "\n".join(
    p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))
)


def _commands() -> list[str]:
    action = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(action.choices)


def test_readme_shows_the_two_commands():
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    assert "make run" in quickstart and "make test" in quickstart
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("command", _commands())
def test_every_cli_command_is_documented(command):
    assert (
        re.search(rf"`{re.escape(command)}[ `]", README) or f"python -m core {command}" in README
    ), f"README does not document `{command}`"


@pytest.mark.parametrize("kind", judge_names())
def test_every_judge_kind_is_documented(kind):
    assert f"`{kind}`" in DOCS


@pytest.mark.parametrize("kind", system_kinds())
def test_every_system_kind_is_documented(kind):
    assert f"`{kind}`" in DOCS


@pytest.mark.parametrize("name", available_prompts())
def test_every_prompt_is_documented_and_has_a_doc_comment(name):
    assert f"{name}.md" in DOCS, f"the docs do not list prompts/{name}.md"
    text = (ROOT / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    assert text.lstrip().startswith("<!--") and "-->" in text


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")))
def test_every_benchmark_is_documented(script):
    assert f"benchmarks/{script}" in DOCS


def test_every_demo_folder_has_a_source_note():
    for folder in (ROOT / "demo").iterdir():
        if folder.is_dir():
            assert (folder / "SOURCE.md").is_file(), folder


def test_readme_is_short_and_its_links_resolve():
    assert len(README.splitlines()) <= 250
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), f"README links to a missing file: {target}"


def test_cli_reference_is_current():
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "scripts" / "cli_reference.py"
    )
    assert spec and spec.loader
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    fresh = generator.render()
    assert "## `python -m core xrag build`" in fresh  # nested commands are included
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == fresh, "docs/cli.md differs from the commands' --help: run make docs"
