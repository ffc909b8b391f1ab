"""What the store's SQLite settings (WAL, ``synchronous=NORMAL``; grader/store/db.py) are worth on
the embedded default: POST-to-graded (:func:`benchmarks.embedded_latency.post_to_graded`) with them
and with SQLite's own defaults (rollback journal, ``synchronous=FULL``: every commit fsyncs),
alternated turn by turn in one run. The defaults are put back by a ``sitecustomize`` on
``PYTHONPATH`` of the served tree's processes (the grading processes included) that rewrites the
two PRAGMAs; the tree itself is not changed.

    .venv/bin/python benchmarks/sqlite_settings.py [--turns 4] [--n 15]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import embedded_latency  # noqa: E402
from benchmarks.common import numpy_import_cpu, percentile, table  # noqa: E402

SITECUSTOMIZE = '''
import sqlite3, sqlite3.dbapi2
DEFAULTS = {"PRAGMA journal_mode=WAL": "PRAGMA journal_mode=DELETE",
            "PRAGMA synchronous=NORMAL": "PRAGMA synchronous=FULL"}
class Cursor(sqlite3.Cursor):
    def execute(self, sql, *args):
        return super().execute(DEFAULTS.get(sql, sql), *args)
class Connection(sqlite3.Connection):
    def cursor(self, factory=Cursor):
        return super().cursor(factory)
_connect = sqlite3.connect
def connect(*args, **kwargs):
    kwargs.setdefault("factory", Connection)
    return _connect(*args, **kwargs)
sqlite3.connect = sqlite3.dbapi2.connect = connect
'''


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--n", type=int, default=15, help="submissions per turn")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="sqlite-defaults-"))
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    configs = {"WAL, synchronous=NORMAL (the store's)": {},
               "rollback journal, synchronous=FULL (SQLite's defaults)":
                   {"PYTHONPATH": str(folder)}}
    times: dict[str, list[float]] = {name: [] for name in configs}
    imports = [numpy_import_cpu(5)]
    for turn in range(args.turns):
        for name in configs if turn % 2 == 0 else reversed(configs):
            times[name].append(percentile(
                embedded_latency.post_to_graded(args.n, settings=configs[name]), 50))
        imports.append(numpy_import_cpu(5))
    wall = statistics.median(w for w, _ in imports)
    base = statistics.median(times[next(iter(configs))])
    rows = [[name, f"{statistics.median(t) * 1e3:.0f}", f"{statistics.median(t) / wall:.2f}",
             f"{statistics.median(t) / base:.2f}"] for name, t in times.items()]
    print(table(["SQLite settings", "POST-to-graded p50 ms", "/ numpy import", "/ the store's"],
                rows))
    print(f"(medians of {args.turns} turns of {args.n}; bare `python -c 'import numpy'`: "
          f"{wall * 1e3:.0f} ms wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
