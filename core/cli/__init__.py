"""The command line (`python -m core COMMAND`): one `*_commands.py` module per command group, each
defining `register(subparsers)`; `demo` builds the key-free demo, `support` holds shared helpers
and `output_files` the one guarded way to write an output file (never the database)."""
