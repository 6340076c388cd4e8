"""Storage: the only place with SQL for the shared tables.

``connection`` (connection settings, transactions, decoded rows), ``database`` (open and migrate),
``schema`` and ``migrations/`` (DDL, append-only triggers), and one module per table family.
Imports nothing of the project but the standard library and sqlite-utils.
"""
