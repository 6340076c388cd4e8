"""core.views.text: answers cut into prose and fenced code; whole-word highlighting."""

from __future__ import annotations

import pandas as pd
import pytest
from browser_support import autolinks, unescaped

from core.views.text import (
    Segment,
    escape_markdown,
    highlight_markdown,
    inert_table,
    md,
    split_code_blocks,
)


def test_a_fenced_block_is_code_with_its_language_and_the_prose_around_it_stays_prose():
    text = "Here is a function:\n\n```python\ndef f(x):\n    return x + 1\n```\n\nIt adds one."
    assert split_code_blocks(text) == [
        Segment("prose", "Here is a function:"),
        Segment("code", "def f(x):\n    return x + 1", "python"),
        Segment("prose", "It adds one."),
    ]


def test_tilde_fences_and_a_fence_without_a_language():
    assert split_code_blocks("~~~\nplain\n~~~") == [Segment("code", "plain", None)]
    assert split_code_blocks("```\nx = 1\n```")[0].language is None


def test_the_language_is_used_only_when_it_is_a_plain_identifier():
    def lang(info: str) -> str | None:
        return split_code_blocks(f"```{info}\nbody\n```")[0].language

    assert lang("C++") == "c++"
    assert lang(" js title=x") == "js"  # the first word of the info string
    assert lang("<script>") is None
    assert lang("{.python}") is None
    assert lang("py:run") is None


def test_an_unclosed_fence_runs_to_the_end_of_the_text():
    text = "Start\n```js\nlet a = 1;\nlet b = 2;"
    assert split_code_blocks(text) == [
        Segment("prose", "Start"),
        Segment("code", "let a = 1;\nlet b = 2;", "js"),
    ]


def test_nested_backticks_a_longer_fence_holds_a_shorter_one():
    text = "````markdown\n```python\nprint(1)\n```\n````\nafter"
    assert split_code_blocks(text) == [
        Segment("code", "```python\nprint(1)\n```", "markdown"),
        Segment("prose", "after"),
    ]
    # a closing fence must use the opening's character: ~~~ does not close ```
    assert split_code_blocks("```\na\n~~~\nb\n```")[0].text == "a\n~~~\nb"


def test_inline_backticks_and_a_backtick_in_the_info_string_are_prose():
    text = "Use ```x``` inline.\n```not a fence` either\nend"
    assert split_code_blocks(text) == [Segment("prose", text)]


def test_code_keeps_backslashes_and_long_lines_exactly():
    long = "x = '" + "a" * 500 + "'"
    body = f'#include <stdio.h>\nprintf("\\#\\(\\n");\n{long}'
    [seg] = split_code_blocks(f"```c\n{body}\n```")
    assert seg.text == body  # \# and \( and the 500-character line, verbatim
    assert "\\#" in seg.text and "\\(" in seg.text


def test_the_opening_fences_indentation_is_removed_from_the_code():
    text = "1. Step:\n   ```bash\n   ls -l\n     cd x\n   ```\n2. Done"
    assert split_code_blocks(text) == [
        Segment("prose", "1. Step:"),
        Segment("code", "ls -l\n  cd x", "bash"),
        Segment("prose", "2. Done"),
    ]


def test_text_without_fences_is_one_prose_segment_and_empty_text_none():
    assert split_code_blocks("Just words.\r\nTwo lines.") == [
        Segment("prose", "Just words.\nTwo lines.")
    ]
    assert split_code_blocks("") == []
    assert split_code_blocks("  \n\n") == []


def test_highlighting_matches_whole_words_only():
    out = highlight_markdown("Their hero: he said He-man.", ["he"])
    assert out == "Their hero\\: **he** said **He**\\-man\\."  # not T**he**ir, not **he**ro
    assert "**" not in highlight_markdown("Their theory", ["he"])


def test_highlighting_multi_word_and_punctuated_terms_then_escaping():
    out = highlight_markdown(
        "Enoch Soames met Soames's friend [Soames]", ["Enoch Soames", "Soames"]
    )
    assert out.startswith("**Enoch Soames** met **Soames**\\'s")
    assert out.endswith("\\[**Soames**\\]")
    assert highlight_markdown("a <b> c", []) == escape_markdown("a <b> c")


def test_indented_prose_never_becomes_an_indented_code_block():
    """Four leading spaces would make a Markdown code block (escapes shown, lines cut): the
    indentation is kept as no-break spaces instead, and the escapes still apply."""
    out = escape_markdown("Plan:\n    A. Host welcome\n\t#1 (intro)")
    lines = out.split("  \n")
    assert lines[1] == "\u00a0" * 4 + "A\\. Host welcome"
    assert lines[2] == "\u00a0" * 4 + "\\#1 \\(intro\\)"
    assert not any(line.startswith((" ", "\t")) for line in lines)


def test_highlighting_in_a_script_without_spaces_matches_inside_the_sentence():
    assert highlight_markdown("张三说他来了", ["张三"]) == "**张三**说他来了"
    assert highlight_markdown("Их герой", ["их"]) == "**Их** герой"  # Cyrillic has word edges
    assert highlight_markdown("Ихний", ["их"]) == "Ихний"


#: Bare URLs, www. names and e-mail addresses in data (a model name, an answer, a rater name).
BARE_LINKS = [
    "https://evil.example",
    "see http://evil.example/x?y=1 now",
    "HTTPS://EVIL.EXAMPLE/path",
    "www.evil.example",
    "(WWW.evil.example)",
    "gpt-4 at https://evil.example (www.evil.example)",
    "mail bob@evil.example now",
    "human:eve@evil.example",
    "mailto:eve@evil.example",
]


@pytest.mark.parametrize("text", BARE_LINKS)
def test_no_bare_url_or_address_becomes_a_link(text):
    """Streamlit's Markdown (remark-gfm) links bare URLs, www. names and e-mail addresses by
    itself, escaped or not; the one escaping path breaks each with an invisible word joiner."""
    assert autolinks(text)  # the checker finds the link in the raw text
    assert autolinks(str(escape_markdown(text))) == []
    assert autolinks(str(md(text))) == []
    assert autolinks(str(highlight_markdown(text, ["evil", "example"]))) == []
    assert unescaped(escape_markdown(text)) == text  # the text itself is unchanged
    table = inert_table(pd.DataFrame({text: [text]}, index=[text]))
    cells = [*table.columns, *table.index, *table.iloc[:, 0]]
    assert all(autolinks(str(c)) == [] for c in cells)
