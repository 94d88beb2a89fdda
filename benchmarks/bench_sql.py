"""SQL sources: time to get one model's rows (or its score table) out of PostgreSQL.

Starts a throwaway PostgreSQL (pgserver, the test extra), loads N rows of (id, label, score with
3 decimals), and times, best of 3 in the same run:

* ADBC (reportgen's client): the rows as an Arrow table (binary COPY);
* psycopg 3 (binary) and SQLAlchemy 2 over psycopg: the rows as Python tuples, then numpy —
  what a SQLAlchemy-based reader would have to do (only if installed: they are not dependencies);
* the pushed-down ``GROUP BY score, label`` through ADBC: only the score table crosses.

Usage: python benchmarks/bench_sql.py [N]   (default 2,000,000)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa


def best(fn, repeat: int = 3) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(n: int) -> None:
    import adbc_driver_postgresql.dbapi as adbc
    import pgserver

    root = tempfile.mkdtemp(prefix="bench-pg-")
    srv = pgserver.get_server(root, cleanup_mode="stop")
    url = f"postgresql://postgres@/postgres?host={root}"
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.1
    score = np.round(np.clip(rng.normal(0.3 + 0.3 * y, 0.15), 0, 1), 3)
    table = pa.table({"id": np.arange(n), "y": y.astype(np.int64), "score": score})
    with adbc.connect(url) as c:
        cur = c.cursor()
        cur.adbc_ingest("preds", table, mode="replace")
        c.commit()
        cur.close()
    query = "SELECT id, y, score FROM preds WHERE id >= $1"

    def via_adbc():
        with adbc.connect(url) as c, c.cursor() as cur:
            cur.execute(query, parameters=(0,))
            return cur.fetch_arrow_table().num_rows

    def via_pushdown():
        with adbc.connect(url) as c, c.cursor() as cur:
            cur.execute("SELECT score, y, COUNT(*) AS n FROM (" + query + ") q GROUP BY score, y", parameters=(0,))
            return cur.fetch_arrow_table().num_rows

    rows = {"ADBC, rows as Arrow": via_adbc, "ADBC, pushed-down GROUP BY score, label": via_pushdown}
    try:
        import psycopg

        def via_psycopg():
            with psycopg.connect(f"host={root} dbname=postgres user=postgres") as c:
                data = c.execute("SELECT id, y, score FROM preds WHERE id >= %s", (0,)).fetchall()
                return np.array([r[2] for r in data]).shape[0]

        rows["psycopg 3, rows as tuples"] = via_psycopg
        import sqlalchemy as sa

        engine = sa.create_engine(f"postgresql+psycopg://postgres@/postgres?host={root}")

        def via_sqlalchemy():
            with engine.connect() as c:
                data = c.execute(sa.text("SELECT id, y, score FROM preds WHERE id >= :m"), {"m": 0}).fetchall()
                return np.array([r[2] for r in data]).shape[0]

        rows["SQLAlchemy 2 + psycopg 3"] = via_sqlalchemy
    except ImportError:
        pass
    print(f"{n:,} rows, {np.unique(score).size:,} distinct scores")
    base = None
    for name, fn in rows.items():
        t, got = best(fn)
        base = base or t
        print(f"  {name:45s} {t:7.3f} s  ({got:,} rows returned; {t / base:.1f}x ADBC)")
    srv.cleanup()
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000)
