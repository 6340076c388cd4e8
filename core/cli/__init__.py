"""The command line (`python -m core COMMAND`): one `*_commands.py` module per command group, each
defining `register(subparsers)`; `demo` builds the key-free demo and `support` holds shared helpers."""
