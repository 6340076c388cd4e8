"""Decision screens' keyboard and scrolling: back to the top after a submit, shortcut keys that
keep working after a click on a choice, and the hints shown under text boxes and checklists.
Each script is constant text (no data reaches it) marked ``data-workbench``."""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from app_support.workspace import GUIDELINE_KEY

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


#: The line shown when a decision key is pressed while the page has no server (issue 37).
NOT_SAVED = "Not saved: the connection to the server was lost. Press again when the page is back."

# Runs in the page (not an iframe), once per browser tab. While the server is gone Streamlit
# greys the page, disables its buttons and sends nothing, so a key pressed meanwhile is lost.
# This watches Streamlit's own state flag (stApp's data-test-connection-state): a shortcut key
# of a button in the page's main area (the decision bar, a checklist's choices, Skip, Undo; not
# the guideline's key) pressed while it is not CONNECTED shows NOT_SAVED in one line fixed at
# the top of the window (outside the page's flow: nothing moves), until the page is connected
# again and a script run starts (or the annotator acts again). And after reconnecting Streamlit
# does not always rerun: the new server's session has never run the page, so it drops every
# press of a decision key (they rerun a fragment it does not know: "The fragment with id ...
# does not exist anymore") until a full run. So, on a page with such keys, the reconnected page
# asks for one full run (Streamlit's own rerun key, R), which stores nothing (a button's press
# is not kept across runs). The flags are watched by a MutationObserver, which sees every change:
# a reconnection quicker than a timer tick (a busy browser's timers are late) is not missed. The
# observer reads each change's old value too, so a flag that flipped and flipped back between two
# callbacks still counts. The request is repeated every 1.5 s (at most 40 times) until a run is
# seen: Streamlit ignores R while it believes a run is requested. Constant text, no data; costs
# the server nothing but these bytes.
_NOT_SAVED_JS = (
    "<script data-workbench='not-saved'>if (!window.__workbenchNotSaved) {"
    " window.__workbenchNotSaved = true; const doc = document; let line = null;"
    " let away = false; let ran = false; let asked = 0; let askedAt = 0;"
    " const app = () => doc.querySelector('[data-testid=\"stApp\"]');"
    " const state = (name) => { const a = app(); return a ? a.getAttribute(name) : null; };"
    " const online = () => state('data-test-connection-state') === 'CONNECTED';"
    " const keys = () => new Set([...doc.querySelectorAll("
    '\'[data-testid="stMain"] button kbd[aria-label^="Shortcut "]\')]'
    ".map((k) => k.textContent.trim().toLowerCase()).filter((k) => k && k !== '{guide}'));"
    " const hide = () => { if (line) { line.remove(); line = null; } };"
    " const show = () => { if (line) { return; } line = doc.createElement('div');"
    " line.setAttribute('data-workbench', 'not-saved'); line.setAttribute('role', 'alert');"
    " line.textContent = {text};"
    " line.style.cssText = 'position: fixed; top: 0; left: 0; right: 0; z-index: 1000002;"
    " padding: 0.6rem 1rem; background: #fde8e8; color: #7a1010; font: 600 1rem sans-serif;"
    " border-bottom: 2px solid #c81e1e; text-align: center;'; doc.body.appendChild(line); };"
    " new MutationObserver((changes) => { for (const c of changes) {"
    " const values = [c.oldValue, c.target.getAttribute(c.attributeName)];"
    " if (c.attributeName === 'data-test-connection-state'"
    " && values.some((v) => v !== 'CONNECTED')) { away = true; ran = false; asked = 0; }"
    " if (c.attributeName === 'data-test-script-state' && values.includes('running')"
    " && online()) { ran = true; hide(); } } })"
    ".observe(doc.body, { attributes: true, subtree: true, attributeOldValue: true,"
    " attributeFilter: ['data-test-connection-state', 'data-test-script-state'] });"
    " setInterval(() => { if (!online() || !away) { return; }"
    " if (ran || !keys().size) { away = ran ? false : away; return; }"
    " if (state('data-test-script-state') === 'notRunning' && asked < 40"
    " && Date.now() - askedAt > 1500) { asked += 1; askedAt = Date.now();"
    " for (const kind of ['keydown', 'keyup']) {"
    " doc.dispatchEvent(new KeyboardEvent(kind, { key: 'r', code: 'KeyR', bubbles: true })); }"
    " } }, 250);"
    " const typing = (t) => t && (['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)"
    " || t.isContentEditable);"
    " doc.addEventListener('keydown', (e) => { if (!e.isTrusted) { return; }"
    " if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) { return; }"
    " if (online()) { if (line && keys().has(e.key.toLowerCase())) { hide(); } return; }"
    " if (keys().has(e.key.toLowerCase())) { show(); } }, true);"
    " doc.addEventListener('click', () => { if (line && online()) { hide(); } }, true); }"
    "</script>"
)

_NOT_SAVED_SCRIPT = _NOT_SAVED_JS.replace("{guide}", GUIDELINE_KEY.lower()).replace(
    "{text}", json.dumps(NOT_SAVED)
)


def keys_after_choices() -> None:
    """Keep a decision page's shortcut keys working after a click on a radio button or a
    checkbox, let Esc leave a text box (see :data:`TYPING_HINT`), and say "not saved" for a
    decision key pressed while the page has lost its server (:data:`NOT_SAVED`). One element,
    constant text."""
    st.html(_KEYS_BACK + _NOT_SAVED_SCRIPT, unsafe_allow_javascript=True)
