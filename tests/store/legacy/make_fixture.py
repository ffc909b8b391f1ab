"""Make the legacy-database fixture: a store created by ``create_all`` on main at commit 2a4cd5d
(before schema migrations existed), filled through the real API and grading of that commit.

Kept for the record of how the fixture was made; it ran once, on that commit, and must NOT be run
again on later code (the point of the fixture is to freeze today's schema and data). It writes:

- ``main-2a4cd5d.sqlite3``: the SQLite file that commit's embedded default made;
- ``main-2a4cd5d.postgresql.sql``: the same rows in a PostgreSQL database created by that commit's
  ``create_all``, dumped with ``pg_dump --inserts --no-owner --no-privileges``;
- ``main-2a4cd5d.json``: every row of every table as that commit's models read them (dates in ISO
  8601), and the plaintext of each API key, so a test can check that an upgraded store reads the
  same values back and still accepts the keys.

Usage (at commit 2a4cd5d): ``.venv/bin/python tests/store/legacy/make_fixture.py``
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
COMMIT = "2a4cd5d"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"

RUBRIC = """
id: heads-why
question: Why split attention into several heads?
max_points: 2
criteria:
  - id: patterns
    description: each head forms its own attention pattern
    points: 1
    concepts: ["different|several|multiple pattern*|relationship*"]
    feedback: {met: "Yes: several patterns at once.", missed: "Say what several heads buy you."}
  - id: subspaces
    description: heads work in different subspaces
    points: 1
    concepts: ["subspace*"]
    feedback: {met: "Yes: subspaces.", missed: "Mention the subspaces."}
"""


class Receiver:
    """Answers 200, or 500 to every request when ``failing``."""

    def __init__(self, failing: bool):
        receiver = self
        self.count = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.count += 1
                self.send_response(500 if failing else 200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def wait(client, sid):
    return client.get(f"/api/v1/submissions/{sid}?wait=30").get_json()


def fill(tmp: Path) -> tuple[str, dict]:
    from grader.app import create_app
    from grader.bootstrap import create_admin_key

    config = {"INSTANCE_PATH": str(tmp / "instance"), "DATABASE_URL": f"sqlite:///{tmp}/g.db",
              "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "legacy-fixture-secret",
              "SWEEP_INTERVAL_SECONDS": 3600, "WEBHOOK_BACKOFF_SECONDS": 3600}
    app = create_app(config)
    store = app.extensions["grader"].store
    keys = {"instructor:local": (tmp / "instance" / "local-instructor-key").read_text().strip()}
    keys["admin"] = create_admin_key(store, "fixture admin")
    admin = app.test_client()
    admin.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {keys['admin']}"
    admin.post("/api/v1/courses", json={"id": "cs401", "name": "CS 401"})
    keys["lms:cs401"] = admin.post("/api/v1/courses/cs401/keys",
                                   json={"role": "lms", "label": "moodle"}).get_json()["key"]
    revoked = admin.post("/api/v1/courses/cs401/keys", json={"role": "instructor"}).get_json()
    admin.delete(f"/api/v1/keys/{revoked['id']}")
    keys["revoked:cs401"] = revoked["key"]

    inst = app.test_client()
    inst.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {keys['instructor:local']}"
    lms = app.test_client()
    lms.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {keys['lms:cs401']}"

    inst.post("/api/v1/rubrics", data=RUBRIC, content_type="application/yaml")
    v2 = RUBRIC.replace("max_points: 2", "max_points: 3") + (
        "  - id: concatenated\n    description: outputs are concatenated\n    points: 1\n"
        "    concepts: [\"concatenat*\"]\n    feedback: {met: \"Yes.\", missed: \"How?\"}\n")
    assert inst.put("/api/v1/rubrics/heads-why", data=v2,
                    content_type="application/yaml").status_code == 200
    doc = {"id": "hw-heads", "title": "Heads", "due_at": "2030-01-01T00:00:00+00:00",
           "items": [{"id": "why-heads", "kind": "text", "points": 4, "rubric": "heads-why"},
                     {"id": "pick", "kind": "choice", "points": 1, "prompt": "Pick A",
                      "options": {"A": "yes", "B": "no"}, "answer": "A",
                      "explanation": "A is the key."}]}
    inst.post("/api/v1/assignments", json=doc)
    inst.put("/api/v1/assignments/hw-heads", json={**doc, "title": "Heads, version 2"})

    good, bad = Receiver(failing=False), Receiver(failing=True)
    ex = json.loads((ROOT / "examples/submission_correct.json").read_text())
    sids = []
    sids.append(inst.post("/api/v1/assignments/attention-basics/submissions",
                          json={**ex, "callback_url": good.url},
                          headers={"Idempotency-Key": "attempt-amy-1"}).get_json()["id"])
    sids.append(inst.post("/api/v1/assignments/attention-basics/submissions",
                          json={"learner_id": "ann", "responses": {"no-positions": {"choice": "B"}},
                                "callback_url": good.url}).get_json()["id"])
    sids.append(inst.post("/api/v1/assignments/attention-basics/submissions",
                          json={"learner_id": "bob", "responses": {"no-positions": {"choice": "A"}},
                                "callback_url": bad.url}).get_json()["id"])
    sids.append(inst.post("/api/v1/assignments/hw-heads/submissions",
                          json={"learner_id": "cyd", "responses": {
                              "why-heads": {"text": "Different patterns in different subspaces."},
                              "pick": {"choice": "B"}}}).get_json()["id"])
    sids.append(lms.post("/api/v1/assignments/attention-basics/submissions",
                         json={"learner_id": "dee", "responses": {"no-positions": {"choice": "B"}}}
                         ).get_json()["id"])
    for sid in sids[:4]:
        wait(inst, sid)
    wait(lms, sids[4])
    for _ in range(200):  # the first webhook delivered, the second tried once and pending
        if good.count >= 2 and bad.count >= 1:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    # a replayed delivery (main reopens it: pending again, delivered_at kept)
    delivered = store.webhooks.list("local", sids[0])[0]
    store.webhooks.reopen(delivered.id)
    # a failed submission and a dry-run regrade
    failed, _ = store.create_submission("attention-basics", "eve",
                                        {"no-positions": {"choice": "A"}}, course_id="local")
    store.fail(failed.id, "infrastructure fault after 3 attempt(s): sandbox unavailable")
    run = inst.post("/api/v1/assignments/hw-heads/regrades", json={"dry_run": True})
    for _ in range(200):
        if inst.get(run.headers["Location"]).get_json()["status"] == "done":
            break
        time.sleep(0.05)
    app.extensions["grader"].dispatcher.close()
    good.server.shutdown()
    bad.server.shutdown()
    return config["DATABASE_URL"], keys


def rows_of(url: str) -> dict:
    from sqlalchemy import create_engine, select

    from grader.store.models import Base

    def plain(value):
        if isinstance(value, datetime):
            return value.astimezone(timezone.utc).isoformat()
        return value

    engine = create_engine(url)
    out = {}
    with engine.connect() as conn:
        for name, table in sorted(Base.metadata.tables.items()):
            pk = list(table.primary_key.columns)
            rows = conn.execute(select(table).order_by(*pk)).mappings()
            out[name] = [{k: plain(v) for k, v in row.items()} for row in rows]
    engine.dispose()
    return out


def copy_to_postgres(sqlite_url: str) -> str:
    """A fresh PostgreSQL database with today's ``create_all`` and the same rows."""
    import psycopg
    from sqlalchemy import create_engine, select

    from grader.store import Store
    from grader.store.models import Base

    name = f"legacy_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    Store(url).create_all()
    source, target = create_engine(sqlite_url), Store(url).engine
    with source.connect() as src, target.begin() as dst:
        for table in Base.metadata.sorted_tables:
            rows = [dict(r) for r in src.execute(select(table)).mappings()]
            if rows:
                dst.execute(table.insert(), rows)
        for table in Base.metadata.sorted_tables:  # serial columns continue after the rows
            if "id" in table.c and table.c.id.autoincrement is True:
                dst.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)")
    return name


def main() -> int:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    if not head.startswith(COMMIT):
        print(f"refusing: this fixture is made at {COMMIT}, HEAD is {head}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp())
    url, keys = fill(tmp)
    rows = rows_of(url)
    import sqlite3  # the backup API folds the write-ahead log into one file

    target = HERE / f"main-{COMMIT}.sqlite3"
    target.unlink(missing_ok=True)
    with sqlite3.connect(tmp / "g.db") as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    dst.close()
    with sqlite3.connect(target) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    assert rows_of(f"sqlite:///{target}") == rows
    db = copy_to_postgres(url)
    dump = subprocess.run(["pg_dump", "--inserts", "--no-owner", "--no-privileges", "-U",
                           "postgres", "-h", "127.0.0.1", db], check=True, capture_output=True,
                          text=True).stdout
    (HERE / f"main-{COMMIT}.postgresql.sql").write_text(dump)
    pg_rows = rows_of(PG_ADMIN.rsplit("/", 1)[0] + "/" + db)
    assert pg_rows == rows, "the PostgreSQL copy reads back differently"
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')
    (HERE / f"main-{COMMIT}.json").write_text(json.dumps(
        {"commit": COMMIT, "keys": keys, "rows": rows}, indent=1, sort_keys=True))
    print({name: len(r) for name, r in rows.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
