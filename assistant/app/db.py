"""The app's own database (SQLite under data/): feedback with full traces, and intent corrections.

Storage evolves through numbered migrations recorded in a table (as simonw/llm does); WAL mode and a busy timeout
let two browser tabs (two threads or processes) write at once without losing a row.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = []


def migration(fn: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    db.execute("""CREATE TABLE feedback (
        id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, rating INTEGER NOT NULL,
        comment TEXT, question TEXT NOT NULL, product TEXT, releases TEXT, intent TEXT, preset TEXT,
        knowledge_missing INTEGER, answer TEXT, trace TEXT NOT NULL)""")
    db.execute("""CREATE TABLE intent_corrections (
        id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, text TEXT NOT NULL,
        predicted TEXT, corrected TEXT NOT NULL)""")


@migration
def m002_traces(db: sqlite3.Connection) -> None:
    # Every answer is traced (not only rated ones) so Insights can chart latency and unanswered questions.
    db.execute("""CREATE TABLE traces (
        id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, question TEXT NOT NULL, product TEXT,
        releases TEXT, intent TEXT, preset TEXT, knowledge_missing INTEGER, status TEXT, trace TEXT NOT NULL)""")
    db.execute("ALTER TABLE feedback ADD COLUMN trace_id INTEGER")


class AppDB:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        with self._connect() as db:
            self._migrate(db)

    def _connect(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(str(self.path), timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    def _migrate(self, db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        done = {r[0] for r in db.execute("SELECT name FROM _migrations")}
        for name, fn in MIGRATIONS:
            if name in done:
                continue
            db.execute("BEGIN IMMEDIATE")
            try:
                if not db.execute("SELECT 1 FROM _migrations WHERE name=?", (name,)).fetchone():
                    fn(db)
                    db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def _write(self, sql: str, params: tuple) -> int:
        db = self._connect()
        for attempt in range(20):
            try:
                with db:
                    cur = db.execute(sql, params)
                return int(cur.lastrowid or 0)
            except sqlite3.OperationalError as exc:  # "database is locked" beyond the busy timeout: retry
                if "locked" not in str(exc) or attempt == 19:
                    raise
                time.sleep(0.05 * (attempt + 1))
        return 0

    # -- traces and feedback ------------------------------------------------------------------------------------------
    def add_trace(self, trace: dict) -> int:
        return self._write(
            "INSERT INTO traces (created_at, question, product, releases, intent, preset, knowledge_missing, status, trace) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            (time.time(), trace.get("question", ""), trace.get("product"), json.dumps(trace.get("releases", [])),
             (trace.get("intent") or {}).get("label"), trace.get("preset"), int(bool(trace.get("knowledge_missing"))),
             trace.get("status"), json.dumps(trace)),
        )

    def add_feedback(self, rating: int, trace: dict, comment: str = "", trace_id: int | None = None) -> int:
        return self._write(
            "INSERT INTO feedback (created_at, rating, comment, question, product, releases, intent, preset, "
            "knowledge_missing, answer, trace, trace_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (time.time(), int(rating), comment, trace.get("question", ""), trace.get("product"),
             json.dumps(trace.get("releases", [])), (trace.get("intent") or {}).get("label"), trace.get("preset"),
             int(bool(trace.get("knowledge_missing"))), trace.get("answer", ""), json.dumps(trace), trace_id),
        )

    def update_feedback(self, feedback_id: int, rating: int, comment: str = "") -> None:
        """The user changed their rating or added a comment after rating: one row per answer, not one per click."""
        self._write("UPDATE feedback SET rating=?, comment=? WHERE id=?", (int(rating), comment, feedback_id))

    def feedback(self) -> list[dict]:
        rows = self._connect().execute(
            "SELECT id, created_at, rating, comment, question, product, releases, intent, preset, knowledge_missing, "
            "answer, trace FROM feedback ORDER BY id")
        keys = ("id", "created_at", "rating", "comment", "question", "product", "releases", "intent", "preset",
                "knowledge_missing", "answer", "trace")
        return [dict(zip(keys, r)) for r in rows]

    def traces(self) -> list[dict]:
        rows = self._connect().execute(
            "SELECT id, created_at, question, product, releases, intent, preset, knowledge_missing, status, trace "
            "FROM traces ORDER BY id")
        keys = ("id", "created_at", "question", "product", "releases", "intent", "preset", "knowledge_missing", "status", "trace")
        return [dict(zip(keys, r)) for r in rows]

    # -- intent corrections ----------------------------------------------------------------------------------------
    def add_intent_correction(self, text: str, predicted: str | None, corrected: str) -> int:
        return self._write("INSERT INTO intent_corrections (created_at, text, predicted, corrected) VALUES (?,?,?,?)",
                           (time.time(), text, predicted, corrected))

    def intent_corrections(self) -> list[tuple[str, str]]:
        return [(t, c) for t, c in self._connect().execute("SELECT text, corrected FROM intent_corrections ORDER BY id")]
