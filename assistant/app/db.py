"""The app's own database (SQLite under data/): conversations, feedback with full traces, and intent corrections.

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


@migration
def m003_conversations(db: sqlite3.Connection) -> None:
    # A conversation's answers point at their traces (the full answer, sources and preset live there once) and at
    # their feedback row; deleting a conversation leaves traces and ratings to Insights.
    db.execute("""CREATE TABLE conversations (
        id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, updated_at REAL NOT NULL,
        opened_at REAL NOT NULL, title TEXT NOT NULL, preset TEXT)""")
    db.execute("""CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL, created_at REAL NOT NULL,
        role TEXT NOT NULL, content TEXT NOT NULL, answer_id TEXT, trace_id INTEGER, feedback_id INTEGER)""")
    db.execute("CREATE INDEX messages_by_conversation ON messages (conversation_id, id)")


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

    # -- conversations -------------------------------------------------------------------------------------------
    def add_conversation(self, title: str, preset: str | None) -> int:
        now = time.time()
        return self._write("INSERT INTO conversations (created_at, updated_at, opened_at, title, preset) "
                           "VALUES (?,?,?,?,?)", (now, now, now, title, preset))

    def conversations(self) -> list[dict]:
        """Most recently active first (ties: the newer conversation first)."""
        rows = self._connect().execute(
            "SELECT c.id, c.title, c.created_at, c.updated_at, c.opened_at, c.preset, COUNT(m.id) FROM conversations c "
            "LEFT JOIN messages m ON m.conversation_id = c.id GROUP BY c.id ORDER BY c.updated_at DESC, c.id DESC")
        keys = ("id", "title", "created_at", "updated_at", "opened_at", "preset", "messages")
        return [dict(zip(keys, r)) for r in rows]

    def last_opened_conversation(self) -> int | None:
        row = self._connect().execute("SELECT id FROM conversations ORDER BY opened_at DESC, id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def touch_conversation(self, conversation_id: int, *, active: bool, preset: str | None = None) -> None:
        """Opened now; `active`: a message was added now (the list's order)."""
        now = time.time()
        self._write("UPDATE conversations SET updated_at=CASE WHEN ? THEN ? ELSE updated_at END, opened_at=?, "
                    "preset=COALESCE(?, preset) WHERE id=?", (int(active), now, now, preset, conversation_id))

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        self._write("UPDATE conversations SET title=? WHERE id=?", (title, conversation_id))

    def delete_conversation(self, conversation_id: int) -> None:
        self._write("DELETE FROM messages WHERE conversation_id=?", (conversation_id,))
        self._write("DELETE FROM conversations WHERE id=?", (conversation_id,))

    def add_message(self, conversation_id: int, role: str, content: str, answer_id: str | None = None,
                    trace_id: int | None = None) -> int:
        return self._write("INSERT INTO messages (conversation_id, created_at, role, content, answer_id, trace_id) "
                           "VALUES (?,?,?,?,?,?)", (conversation_id, time.time(), role, content, answer_id, trace_id))

    def link_feedback(self, answer_id: str, feedback_id: int) -> None:
        self._write("UPDATE messages SET feedback_id=? WHERE answer_id=?", (feedback_id, answer_id))

    def messages(self, conversation_id: int) -> list[dict]:
        """In order, each assistant message with its trace (parsed) and its rating and comment, if any."""
        rows = self._connect().execute(
            "SELECT m.role, m.content, m.answer_id, m.trace_id, m.feedback_id, t.trace, f.rating, f.comment "
            "FROM messages m LEFT JOIN traces t ON t.id = m.trace_id LEFT JOIN feedback f ON f.id = m.feedback_id "
            "WHERE m.conversation_id=? ORDER BY m.id", (conversation_id,))
        keys = ("role", "content", "answer_id", "trace_id", "feedback_id", "trace", "rating", "comment")
        return [dict(zip(keys, r), trace=json.loads(r[5]) if r[5] else None) for r in rows]
