"""The index manifest (SQLite): which file of which release is indexed with which content hash, and the texts of
its search and context chunks (for BM25 and for the answer step).

Crash safety rests on one rule: a file's row turns `dirty` (with the largest chunk count it may have in the
vector store) *before* any point is written or deleted, and turns `indexed` only after its points are all in.
A sync treats `dirty` rows as unfinished work, so a kill at any moment is repaired by the next sync.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL,
    hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    status TEXT NOT NULL,            -- indexed | dirty | failed | skipped
    n_chunks INTEGER NOT NULL DEFAULT 0,
    error TEXT, indexed_at REAL,
    recipe TEXT,                     -- how it was read, chunked and embedded (ingest.index_recipe)
    encoding TEXT,                   -- how a text file was decoded (utf-8, cp1252, ...)
    title TEXT, description TEXT,    -- kept for skipped front-matter pages too
    PRIMARY KEY (product, release, path)
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY, product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL,
    chunk_no INTEGER NOT NULL, context_id TEXT NOT NULL, text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (product, release, path);
CREATE TABLE IF NOT EXISTS contexts (
    id TEXT PRIMARY KEY, product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL,
    ctx_no INTEGER NOT NULL, title TEXT, section TEXT, page INTEGER, text TEXT NOT NULL, core TEXT NOT NULL,
    page_label TEXT                  -- a PDF page's printed label where it differs from its index
);
CREATE INDEX IF NOT EXISTS contexts_by_file ON contexts (product, release, path);
CREATE TABLE IF NOT EXISTS releases (
    product TEXT NOT NULL, release TEXT NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0,   -- bumped on every change; BM25 files record the one they match
    PRIMARY KEY (product, release)
);
"""


@dataclass
class FileRow:
    path: str
    hash: str
    size: int
    mtime_ns: int
    status: str
    n_chunks: int
    error: str | None = None
    indexed_at: float | None = None
    recipe: str | None = None  # None: indexed by a version that did not record it
    encoding: str | None = None
    title: str | None = None
    description: str | None = None


@dataclass
class ContextRow:
    id: str
    product: str
    release: str
    path: str
    ctx_no: int
    title: str
    section: str
    page: int | None
    text: str
    core: str
    page_label: str | None = None


class _Connection(sqlite3.Connection):
    """A plain connection that can be weakly referenced (the C type cannot), so Manifest.close can reach them all."""


class Manifest:
    """One SQLite connection per thread. The app reads (Library page, answers) while a background sync writes, and
    the ingestion's writer thread commits while its reader parses. Sharing one connection across those threads lets
    one thread's statements land inside another's transaction and, measured, fails within a second with "database
    disk image is malformed". Separate connections in WAL mode give each reader a committed snapshot and serialise
    the writers (BEGIN IMMEDIATE, 30 s busy timeout; every write transaction here lasts milliseconds)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._open: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._guard = threading.Lock()
        db = self.db
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        columns = {r[1] for r in db.execute("PRAGMA table_info(files)")}
        if "recipe" not in columns:  # a manifest from before recipes: its rows read as recipe None, so re-indexed
            db.execute("ALTER TABLE files ADD COLUMN recipe TEXT")
        for column in ("encoding", "title", "description"):  # added with issue 18; NULL until a file is re-read
            if column not in columns:
                db.execute(f"ALTER TABLE files ADD COLUMN {column} TEXT")
        if "page_label" not in {r[1] for r in db.execute("PRAGMA table_info(contexts)")}:  # issue 15
            db.execute("ALTER TABLE contexts ADD COLUMN page_label TEXT")

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use; closed when the thread ends or by close()."""
        db = getattr(self._local, "db", None)
        if db is None:
            # check_same_thread=False only so that close() may close connections of other threads; each is used
            # by the thread that opened it.
            db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False, isolation_level=None,
                                 factory=_Connection)
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
            with self._guard:
                self._open.add(db)
        return db

    def close(self) -> None:
        with self._guard:
            for db in list(self._open):
                db.close()
            self._open.clear()
        self._local = threading.local()

    # -- files --------------------------------------------------------------------------------------------------
    def files(self, product: str, release: str) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT path, hash, size, mtime_ns, status, n_chunks, error, indexed_at, recipe, encoding, title, description "
            "FROM files "
            "WHERE product=? AND release=?",
            (product, release),
        )
        return {r[0]: FileRow(*r) for r in rows}

    def releases(self) -> list[tuple[str, str]]:
        rows = self.db.execute("SELECT DISTINCT product, release FROM files UNION SELECT product, release FROM releases")
        return sorted(set(rows))

    def mark_dirty(self, product: str, release: str, items: Iterable[tuple[str, str, int, int, int]]) -> None:
        """items: (path, hash, size, mtime_ns, n_chunks_upper_bound)."""
        with self._tx():
            for path, digest, size, mtime_ns, n in items:
                self.db.execute(
                    "INSERT INTO files (product, release, path, hash, size, mtime_ns, status, n_chunks) "
                    "VALUES (?,?,?,?,?,?, 'dirty', ?) ON CONFLICT(product, release, path) DO UPDATE SET "
                    "hash=excluded.hash, size=excluded.size, mtime_ns=excluded.mtime_ns, status='dirty', "
                    "n_chunks=MAX(files.n_chunks, excluded.n_chunks), error=NULL",
                    (product, release, path, digest, size, mtime_ns, n),
                )
            self._bump(product, release)

    def commit_indexed(self, product: str, release: str, path: str, digest: str, size: int, mtime_ns: int,
                       chunks: list[tuple[str, int, str, str]], contexts: list[ContextRow], *, recipe: str,
                       encoding: str | None = None, title: str | None = None) -> None:
        """chunks: (id, chunk_no, context_id, embed_text). Replaces whatever the file had."""
        with self._tx():
            self._delete_texts(product, release, path)
            self.db.executemany(
                "INSERT OR REPLACE INTO chunks (id, product, release, path, chunk_no, context_id, text) VALUES (?,?,?,?,?,?,?)",
                [(cid, product, release, path, no, ctx, text) for cid, no, ctx, text in chunks],
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO contexts (id, product, release, path, ctx_no, title, section, page, text, core, "
                "page_label) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(c.id, product, release, path, c.ctx_no, c.title, c.section, c.page, c.text, c.core, c.page_label)
                 for c in contexts],
            )
            self.db.execute(
                "INSERT INTO files (product, release, path, hash, size, mtime_ns, status, n_chunks, indexed_at, recipe, "
                "encoding, title) VALUES (?,?,?,?,?,?, 'indexed', ?, ?, ?, ?, ?) "
                "ON CONFLICT(product, release, path) DO UPDATE SET "
                "hash=excluded.hash, size=excluded.size, mtime_ns=excluded.mtime_ns, status='indexed', "
                "n_chunks=excluded.n_chunks, error=NULL, indexed_at=excluded.indexed_at, recipe=excluded.recipe, "
                "encoding=excluded.encoding, title=excluded.title, description=NULL",
                (product, release, path, digest, size, mtime_ns, len(chunks), time.time(), recipe, encoding, title),
            )
            self._bump(product, release)

    def commit_failed(self, product: str, release: str, path: str, digest: str, size: int, mtime_ns: int, error: str,
                      *, recipe: str, status: str = "failed", title: str | None = None,
                      description: str | None = None) -> None:
        """A file that cannot be read (`failed`) or holds nothing to index (`skipped`, e.g. front matter only, with
        its title and description): remembered by hash so an unchanged file is not re-read every sync."""
        assert status in ("failed", "skipped")
        with self._tx():
            self._delete_texts(product, release, path)
            self.db.execute(
                "INSERT INTO files (product, release, path, hash, size, mtime_ns, status, n_chunks, error, indexed_at, "
                "recipe, encoding, title, description) VALUES (?,?,?,?,?,?,?, 0, ?, ?, ?, NULL, ?, ?) "
                "ON CONFLICT(product, release, path) DO UPDATE SET "
                "hash=excluded.hash, size=excluded.size, mtime_ns=excluded.mtime_ns, status=excluded.status, "
                "n_chunks=0, error=excluded.error, indexed_at=excluded.indexed_at, recipe=excluded.recipe, "
                "encoding=NULL, title=excluded.title, description=excluded.description",
                (product, release, path, digest, size, mtime_ns, status, error, time.time(), recipe, title, description),
            )
            self._bump(product, release)

    def forget(self, product: str, release: str, path: str) -> None:
        with self._tx():
            self._delete_texts(product, release, path)
            self.db.execute("DELETE FROM files WHERE product=? AND release=? AND path=?", (product, release, path))
            self._bump(product, release)

    def drop_release(self, product: str, release: str) -> None:
        with self._tx():
            for table in ("files", "chunks", "contexts", "releases"):
                self.db.execute(f"DELETE FROM {table} WHERE product=? AND release=?", (product, release))

    def touch_mtime(self, product: str, release: str, path: str, mtime_ns: int) -> None:
        self.db.execute("UPDATE files SET mtime_ns=? WHERE product=? AND release=? AND path=?", (mtime_ns, product, release, path))

    # -- texts ----------------------------------------------------------------------------------------------------
    def chunk_texts(self, product: str, release: str) -> tuple[list[str], list[str]]:
        rows = self.db.execute(
            "SELECT id, text FROM chunks WHERE product=? AND release=? ORDER BY path, chunk_no", (product, release)
        ).fetchall()
        return [r[0] for r in rows], [r[1] for r in rows]

    def chunk_rows(self, chunk_ids: list[str]) -> dict[str, dict]:
        """Search chunks with what a citation needs (for hits that come from BM25 rather than Qdrant)."""
        out: dict[str, dict] = {}
        for i in range(0, len(chunk_ids), 500):
            batch = chunk_ids[i : i + 500]
            q = ",".join("?" * len(batch))
            for r in self.db.execute(
                "SELECT c.id, c.product, c.release, c.path, c.chunk_no, c.context_id, c.text, x.title, x.section, x.page "
                f"FROM chunks c JOIN contexts x ON x.id = c.context_id WHERE c.id IN ({q})", batch
            ):
                out[r[0]] = dict(zip(("id", "product", "release", "path", "chunk_no", "context_id", "text", "title", "section", "page"), r))
        return out

    def chunk_contexts(self, chunk_ids: list[str]) -> dict[str, str]:
        return self._lookup("SELECT id, context_id FROM chunks WHERE id IN ({})", chunk_ids)

    def contexts(self, context_ids: list[str]) -> dict[str, ContextRow]:
        out: dict[str, ContextRow] = {}
        for i in range(0, len(context_ids), 500):
            batch = context_ids[i : i + 500]
            q = ",".join("?" * len(batch))
            for r in self.db.execute(
                f"SELECT id, product, release, path, ctx_no, title, section, page, text, core, page_label FROM contexts "
                f"WHERE id IN ({q})", batch
            ):
                out[r[0]] = ContextRow(*r)
        return out

    def section_cores(self, product: str, release: str, path: str) -> list[tuple[str, str]]:
        """(section breadcrumb, core text) of one file's context chunks in order: its sections' text, unpadded."""
        return self.db.execute("SELECT section, core FROM contexts WHERE product=? AND release=? AND path=? "
                               "ORDER BY ctx_no", (product, release, path)).fetchall()

    def generation(self, product: str, release: str) -> int:
        row = self.db.execute("SELECT generation FROM releases WHERE product=? AND release=?", (product, release)).fetchone()
        return row[0] if row else 0

    def stats(self, recipe: str | None = None) -> list[dict]:
        """Per release; `stale`: indexed or failed files whose recipe is not `recipe` (a sync will redo them)."""
        rows = self.db.execute(
            "SELECT product, release, COUNT(*), SUM(status='indexed'), SUM(status='failed'), SUM(status='skipped'), "
            "SUM(status='dirty'), SUM(n_chunks * (status='indexed')), MAX(indexed_at), "
            "SUM(status IN ('indexed', 'failed', 'skipped') AND ? IS NOT NULL AND recipe IS NOT ?) "
            "FROM files GROUP BY product, release", (recipe, recipe),
        )
        keys = ("product", "release", "files", "indexed", "failed", "skipped", "dirty", "chunks", "last_indexed",
                "stale")
        return [dict(zip(keys, r)) for r in rows]

    def files_by_other_model(self, product: str, release: str, model_tag: str) -> int:
        """Indexed files whose vectors another embedding model made (their recipe ends with another model tag).
        Files from before recipes were recorded count as made by the current model: nothing says otherwise."""
        return self.db.execute(
            "SELECT COUNT(*) FROM files WHERE product=? AND release=? AND status='indexed' AND recipe IS NOT NULL "
            "AND substr(recipe, -length(?) - 1) != '.' || ?", (product, release, model_tag, model_tag),
        ).fetchone()[0]

    def failures(self, product: str, release: str, status: str = "failed") -> list[tuple[str, str]]:
        """(path, reason) of the files that failed, or with status="skipped" of those read and set aside."""
        return list(self.db.execute(
            "SELECT path, error FROM files WHERE product=? AND release=? AND status=? ORDER BY path",
            (product, release, status),
        ))

    # -- internals --------------------------------------------------------------------------------------------------
    def _lookup(self, sql: str, keys: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(keys), 500):
            batch = keys[i : i + 500]
            out.update(dict(self.db.execute(sql.format(",".join("?" * len(batch))), batch).fetchall()))
        return out

    def _delete_texts(self, product: str, release: str, path: str) -> None:
        self.db.execute("DELETE FROM chunks WHERE product=? AND release=? AND path=?", (product, release, path))
        self.db.execute("DELETE FROM contexts WHERE product=? AND release=? AND path=?", (product, release, path))

    def _bump(self, product: str, release: str) -> None:
        self.db.execute(
            "INSERT INTO releases (product, release, generation) VALUES (?,?,1) "
            "ON CONFLICT(product, release) DO UPDATE SET generation=generation+1",
            (product, release),
        )

    def _tx(self):
        return Transaction(self.db)


class Transaction:
    """`with Transaction(db):` one SQLite write transaction, taken at once (BEGIN IMMEDIATE), rolled back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        return False
