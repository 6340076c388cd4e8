"""A server-like writer, run as its own process by ``test_process_locks.py``.

Like the app server: one connection held open the whole time (a page run in flight) while two
threads each open a connection per write (a page run: :func:`open_db`, with its file check),
write one row in a transaction and close it. Prints ``{"written": n, "errors": [...]}``.

Usage: ``python server_writer.py DB N`` (rows 0..N-1 into the table ``probe``).
"""

from __future__ import annotations

import json
import sys
import threading

from core.store.connection import transaction
from core.store.database import open_db


def main(path: str, n: int) -> dict[str, object]:
    held = open_db(path)
    errors: list[str] = []
    written = [0, 0]

    def writer(k: int) -> None:
        for i in range(k, n, 2):
            try:
                db = open_db(path)
                try:
                    with transaction(db):
                        db.execute("insert into probe (id, origin) values (?, 'server')", [i])
                    written[k] += 1
                finally:
                    db.conn.close()
            except Exception as exc:  # every failure is reported, none stops the other rows
                errors.append(repr(exc))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    held.query("select count(*) from probe")
    held.conn.close()
    return {"written": sum(written), "errors": errors[:5], "n_errors": len(errors)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
