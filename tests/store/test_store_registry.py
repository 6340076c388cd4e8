"""Every public store function has a store contract case (issue 33): a test that calls it on
SQLite and on PostgreSQL, registered with ``contract_registry`` (how: tests/store/README.md).

The functions that have none yet are :data:`KNOWN_MISSING`; the list only shrinks (its length
may not pass :data:`MOST_MISSING`; lower that number when you add cases)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import contract_registry

import core.store

HERE = Path(__file__).resolve().parent

#: Public store functions without a contract case yet. Add a case and delete the name here;
#: never add a name (a new public store function comes with its case).
KNOWN_MISSING = frozenset(
    {
        "accounts.account_names",
        "accounts.accounts_exist",
        "accounts.active_account",
        "accounts.check_name",
        "accounts.excluded_names",
        "accounts.list_accounts",
        "accounts.mark_token_used",
        "accounts.reissue_token",
        "accounts.revoke_account",
        "accounts.set_labels_excluded",
        "accounts.verify_token",
        "adjudications.item_adjudication",
        "benchmark.answers_of",
        "benchmark.benchmark_questions",
        "benchmark.passages_of",
        "benchmark.reviews_of",
        "benchmark.status_counts",
        "benchmark.verdicts_of",
        "connection.busy_timeout_ms",
        "connection.connect",
        "connection.decode_row",
        "connection.default_db_path",
        "connection.dumps",
        "connection.is_busy",
        "connection.retry_when_busy",
        "connection.use_wal",
        "copy_db.canonical",
        "copy_db.check_empty",
        "copy_db.check_same_schema",
        "copy_db.copied_tables",
        "copy_db.foreign_keys",
        "copy_db.is_postgres",
        "copy_db.plan_table",
        "copy_db.row_digest",
        "copy_db.snapshot",
        "copy_db.table_checksum",
        "copy_db.table_order",
        "copy_db.writable_columns",
        "database.creating",
        "database.opened",
        "dbfile.check_db_file",
        "dbfile.explain_sqlite_error",
        "dbfile.is_file_error",
        "documents.count_passages",
        "documents.document_exists",
        "documents.document_headers",
        "documents.document_ids",
        "documents.document_stamp",
        "documents.document_summaries",
        "documents.document_totals",
        "documents.documents_by_id",
        "documents.documents_of_kind",
        "documents.first_passages",
        "documents.get_document",
        "documents.get_passages",
        "documents.passage_key",
        "documents.passages_at",
        "documents.replace_passages",
        "documents.searchable_documents",
        "documents.version_id",
        "documents.write_document",
        "engine.storable",
        "engine.unique_keys",
        "entities.entities_by_id",
        "entities.entity_passage_indexes",
        "entities.get_entities",
        "entities.get_entity",
        "entities.get_mentions",
        "entities.latest_method_entity_names",
        "entities.mention_passages",
        "entities.mention_spans",
        "entities.replace_entities",
        "exam_bank.bank_articles",
        "exam_bank.bank_exists",
        "exam_bank.bank_queries",
        "exam_bank.bank_questions",
        "exam_bank.count_bank_questions",
        "exam_bank.delete_bank_articles",
        "exam_bank.insert_exam_questions",
        "exam_bank.query_exists",
        "exam_bank.questions_per_query",
        "exam_bank.replace_article",
        "exam_bank.replace_bank",
        "exam_bank.run_query_ids",
        "exam_bank.stage_exam_questions",
        "export.export_rows",
        "export.exportable",
        "fingerprints.recent_count",
        "fingerprints.recent_count_sql",
        "foreign_db.is_workbench",
        "foreign_db.refuse_foreign",
        "foreign_db.shown",
        "foreign_db.user_tables",
        "judgment_queries.columns_of",
        "judgment_queries.effective_select",
        "judgments.imported_human_raters",
        "judgments.judgments_after",
        "judgments.switch_staged_judgments",
        "open_files.file_unopened",
        "open_files.held_database_of",
        "open_files.register",
        "open_files.registering",
        "open_files.same_file",
        "passage_stage.drop_dead_stages",
        "passage_stage.drop_stage",
        "passage_stage.needs_stage",
        "passage_stage.stage_passages",
        "passage_stage.switch_passages",
        "pg_connection.connect_psycopg",
        "pg_connection.connect_timeout_s",
        "pg_connection.is_unreachable",
        "pg_connection.sqlite_number",
        "pg_connection.without_password",
        "pool.borrow_postgres",
        "pool.borrow_sqlite",
        "pool.engine_for",
        "postgres.marks_to_psycopg",
        "postgres.translate",
        "prepared.bound",
        "prepared.bound_rows",
        "prepared.run_bound",
        "prepared.run_ddl",
        "prepared.scalar",
        "prepared.send",
        "question_queries.column",
        "questions.generator_models",
        "questions.origin_questions",
        "questions.question_documents",
        "questions.question_entities",
        "questions.referenced_entity_ids",
        "questions.review_summary_by_origin",
        "row_stage.staged_or_direct",
        "row_stage.staged_value",
        "schema.execute_script",
        "schema_upgrade.alembic_revision",
        "schema_upgrade.engine_over",
        "schema_upgrade.schema_revision",
        "schema_upgrade.upgrade_schema",
        "sql_text.segments",
        "sql_text.split_statements",
        "statements.many_sender",
        "stored_enums.stored_enum",
        "verdict_reads.counted_pairwise",
        "verdict_reads.pairwise_count",
    }
)
#: The most :data:`KNOWN_MISSING` may hold: it only goes down.
MOST_MISSING = 144


def store_modules() -> list[ModuleType]:
    """Every module ``core/store/*.py`` (not the migrations package)."""
    infos = pkgutil.iter_modules(core.store.__path__)
    return [importlib.import_module(f"core.store.{i.name}") for i in infos if not i.ispkg]


def public_functions(modules: Iterable[ModuleType]) -> set[str]:
    """``module.function`` of each public function defined in ``modules`` (not imported into
    them: an imported name is its own module's)."""
    found = set()
    for module in modules:
        short = module.__name__.rsplit(".", 1)[-1]
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value):
                continue
            if value.__module__ == module.__name__:
                found.add(f"{short}.{name}")
    return found


def registered() -> dict[str, set[str]]:
    """The registry after importing every ``tests/store/test_*.py`` (their decorators fill it)."""
    for path in sorted(HERE.glob("test_*.py")):
        importlib.import_module(path.stem)
    return contract_registry.REGISTRY


def test_every_public_store_function_has_a_contract_case() -> None:
    public = public_functions(store_modules())
    uncovered = public - set(registered()) - KNOWN_MISSING
    assert not uncovered, (
        f"{len(uncovered)} public store function(s) without a contract case: "
        f"{sorted(uncovered)}; add a test on both databases with @contract_case(...) "
        "(tests/store/README.md)"
    )


def test_known_missing_only_shrinks() -> None:
    public = public_functions(store_modules())
    assert len(KNOWN_MISSING) <= MOST_MISSING
    gone = KNOWN_MISSING - public
    assert not gone, f"no longer public store functions, delete from KNOWN_MISSING: {sorted(gone)}"
    done = KNOWN_MISSING & set(registered())
    assert not done, f"these have a contract case now, delete from KNOWN_MISSING: {sorted(done)}"


def test_the_lister_sees_a_planted_function_and_not_an_import() -> None:
    planted = ModuleType("core.store.planted")
    exec(  # a module as a file would be
        "from core.store.answers import get_answer\n"
        "def new_reader(db): return 1\n"
        "def _helper(): return 2\n",
        planted.__dict__,
    )
    assert public_functions([planted]) == {"planted.new_reader"}
    assert "planted.new_reader" not in registered()
