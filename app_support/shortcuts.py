"""Decision screens' keyboard and scrolling: back to the top after a submit, shortcut keys that
keep working after a click on a choice, and the hints shown under text boxes and checklists.
Each script is constant text (no data reaches it) marked ``data-workbench``."""

from __future__ import annotations

import hashlib

import streamlit as st

# Runs in the page (not an iframe) so it can scroll Streamlit's main container; the marker is
# a hex digest, so nothing from the data reaches the script.
_SCROLL_TOP = (
    '<script data-workbench="scroll" data-item="{marker}">'
    "for (const el of [window.parent.document.querySelector('[data-testid=\"stMain\"]'),"
    " window.parent.document.querySelector('section.main'), document.scrollingElement]) "
    "{{ if (el) {{ el.scrollTop = 0; }} }} window.scrollTo(0, 0);"
    "</script>"
)


def scroll_to_top(item_key: str) -> None:
    """After a submit: bring the page back to the top so the next item's question is in view."""
    marker = hashlib.sha256(item_key.encode("utf-8")).hexdigest()[:16]
    st.html(_SCROLL_TOP.format(marker=marker), unsafe_allow_javascript=True)


#: Shown under a decision page's text boxes (Streamlit ignores shortcut keys typed in them).
TYPING_HINT = "Shortcut keys are off while typing here: press Esc (or Tab) to leave the box."
#: Shown under a checklist of radio buttons chosen with the keyboard.
CHOICE_HINT = "With the keyboard: Tab to a question, arrows to choose, Esc to use the keys again."

# Runs in the page (not an iframe), once per browser tab. Streamlit ignores shortcut keys while
# an input has the focus, a radio button or a checkbox included: after a click on one of those
# (a keyboard user keeps the focus, to move on with Tab and the arrows), or Esc in any input,
# the focus leaves the control so the keys work again. Constant text, no data.
_KEYS_BACK = (
    "<script data-workbench='keys'>if (!window.__workbenchKeys) {"
    " window.__workbenchKeys = true; let pointer = 0;"
    " const isInput = (t) => t && ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);"
    " const isChoice = (t) => isInput(t) && (t.type === 'radio' || t.type === 'checkbox');"
    " document.addEventListener('pointerdown', () => { pointer = Date.now(); }, true);"
    " document.addEventListener('click', () => { if (Date.now() - pointer < 2000) {"
    " setTimeout(() => { const a = document.activeElement; if (isChoice(a)) { a.blur(); } },"
    " 50); } }, true);"
    " document.addEventListener('keydown', (e) => {"
    " if (e.key === 'Escape' && isInput(e.target)) { e.target.blur(); } }, true); }</script>"
)


def keys_after_choices() -> None:
    """Keep a decision page's shortcut keys working after a click on a radio button or a
    checkbox, and let Esc leave a text box (see :data:`TYPING_HINT`)."""
    st.html(_KEYS_BACK, unsafe_allow_javascript=True)
