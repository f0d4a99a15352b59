"""The release timeline (issue 16), built at index time: every section of every indexed file per release (heading
path, content digest, text) and every identifier (terms.py) with the release, file and section it appears in.

It is made from what the manifest holds once a release is synced (the sections' text as the readers gave it, the
context cores in order), file by file: a file whose manifest hash differs from the one recorded here is redone, a
file the manifest no longer lists leaves, a release the manifest lost is dropped. Each file's rows change in one
SQLite transaction together with the hash that says they are current, so a kill at any moment leaves every file
either old or new, and the next refresh (every sync runs one) finishes the rest.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from assistant.library.manifest import Transaction
from assistant.library.terms import identifiers, is_identifier, normal_term, qualified_pattern, token_pattern
from assistant.library.versions import sort_releases

__all__ = ["SectionRow", "Occurrence", "Timeline", "build_sections", "file_key", "like_literal", "TIMELINE_VERSION"]

# Bump when what is drawn from a file changes (terms.py's rules, how sections are cut): every file is redone once.
TIMELINE_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS tl_files (
    product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (product, release, path)
);
CREATE TABLE IF NOT EXISTS tl_sections (
    product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL,
    heading TEXT NOT NULL, digest TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (product, release, path, ord)
);
CREATE TABLE IF NOT EXISTS tl_terms (
    product TEXT NOT NULL, release TEXT NOT NULL, term TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tl_terms_by_term ON tl_terms (product, term);
CREATE INDEX IF NOT EXISTS tl_terms_by_file ON tl_terms (product, release, path);
"""


@dataclass(frozen=True)
class SectionRow:
    release: str
    path: str
    ord: int
    heading: str  # the breadcrumb, "Configuration flags > Member flags"
    digest: str   # of the text with whitespace normalised: a re-wrapped paragraph is no change
    text: str


@dataclass(frozen=True)
class Occurrence:
    release: str
    path: str
    ord: int
    heading: str


def file_key(row) -> str:
    """What the timeline's rows of a file were drawn from: its content, how it was read and chunked (the manifest's
    recipe: a new reader may cut other headings from the same bytes) and this module's own version."""
    return f"{row.hash}:{row.recipe}:{TIMELINE_VERSION}"


def _digest(text: str) -> str:
    return hashlib.sha1(re.sub(r"\s+", " ", text).strip().encode()).hexdigest()[:16]


def build_sections(release: str, path: str, cores: Iterable[tuple[str, str]]) -> list[SectionRow]:
    """(section breadcrumb, core text) in context order -> one row per run of the same breadcrumb."""
    out: list[SectionRow] = []
    heading, parts = None, []

    def close() -> None:
        if heading is not None:
            text = "\n\n".join(parts)
            out.append(SectionRow(release, path, len(out), heading, _digest(text), text))

    for section, core in cores:
        if section != heading:
            close()
            heading, parts = section, []
        parts.append(core)
    close()
    return out


class Timeline:
    """Its own SQLite file beside the manifest (WAL, a connection per thread, as the manifest does)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    @property
    def db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    # -- keeping it in line with the manifest -------------------------------------------------------------------
    def refresh(self, product: str, release: str, manifest) -> int:
        """Bring one release in line with the manifest; returns the number of files redone or removed."""
        indexed = {p: file_key(r) for p, r in manifest.files(product, release).items() if r.status == "indexed"}
        have = dict(self.db.execute("SELECT path, hash FROM tl_files WHERE product=? AND release=?",
                                    (product, release)).fetchall())
        gone = [p for p in have if p not in indexed]
        todo = [p for p, h in indexed.items() if have.get(p) != h]
        for path in gone:
            with Transaction(self.db):
                self._delete(product, release, path)
        for path in todo:
            sections = build_sections(release, path, manifest.section_cores(product, release, path))
            with Transaction(self.db):
                self._delete(product, release, path)
                self.db.executemany(
                    "INSERT INTO tl_sections (product, release, path, ord, heading, digest, text) VALUES (?,?,?,?,?,?,?)",
                    [(product, release, path, s.ord, s.heading, s.digest, s.text) for s in sections])
                self.db.executemany(
                    "INSERT INTO tl_terms (product, release, term, path, ord) VALUES (?,?,?,?,?)",
                    [(product, release, t, path, s.ord) for s in sections for t in _section_terms(s)])
                self.db.execute("INSERT INTO tl_files (product, release, path, hash) VALUES (?,?,?,?)",
                                (product, release, path, indexed[path]))
        return len(gone) + len(todo)

    def _delete(self, product: str, release: str, path: str) -> None:
        for table in ("tl_files", "tl_sections", "tl_terms"):
            self.db.execute(f"DELETE FROM {table} WHERE product=? AND release=? AND path=?", (product, release, path))

    def drop_missing(self, releases: set[tuple[str, str]]) -> None:
        """Forget releases the manifest no longer has (deleted from the library)."""
        held = set(self.db.execute("SELECT DISTINCT product, release FROM tl_files").fetchall())
        for product, release in held - releases:
            with Transaction(self.db):
                for table in ("tl_files", "tl_sections", "tl_terms"):
                    self.db.execute(f"DELETE FROM {table} WHERE product=? AND release=?", (product, release))

    # -- reading ----------------------------------------------------------------------------------------------------
    def releases(self, product: str) -> list[str]:
        rows = self.db.execute("SELECT DISTINCT release FROM tl_files WHERE product=?", (product,)).fetchall()
        return sort_releases(r[0] for r in rows)

    def page_releases(self, product: str, name: str) -> list[str]:
        """The releases with a page whose file is named `name` ("bashcomplete" for bashcomplete.rst): a page is
        asked about by its file's name as by its title."""
        like = "%" + like_literal(normal_term(name)) + ".%"
        rows = self.db.execute("SELECT DISTINCT release, path FROM tl_files WHERE product=? AND path LIKE ? ESCAPE "
                               "'\\'", (product, like)).fetchall()
        return sort_releases({r for r, path in rows
                              if path.rsplit("/", 1)[-1].split(".")[0].lower() == normal_term(name)})

    def products(self) -> list[str]:
        return sorted(r[0] for r in self.db.execute("SELECT DISTINCT product FROM tl_files"))

    def sections(self, product: str, release: str, path: str | None = None) -> list[SectionRow]:
        sql = "SELECT release, path, ord, heading, digest, text FROM tl_sections WHERE product=? AND release=?"
        args: tuple = (product, release)
        if path is not None:
            sql, args = sql + " AND path=?", args + (path,)
        return [SectionRow(*r) for r in self.db.execute(sql + " ORDER BY path, ord", args)]

    def section(self, product: str, release: str, path: str, ord_: int) -> SectionRow | None:
        row = self.db.execute("SELECT release, path, ord, heading, digest, text FROM tl_sections WHERE product=? "
                              "AND release=? AND path=? AND ord=?", (product, release, path, ord_)).fetchone()
        return SectionRow(*row) if row else None

    def occurrences(self, product: str, term: str, *, scan: bool = True) -> list[Occurrence]:
        """Where a term appears, oldest release first: the identifier index, else a whole-token scan of the text
        (a prose word such as a tool's name is no identifier but can still be asked about), else, for a bare name,
        the identifiers that qualify it (`Group.result_callback` for "result_callback")."""
        key = normal_term(term)
        rows = self.db.execute(
            "SELECT t.release, t.path, t.ord, s.heading FROM tl_terms t JOIN tl_sections s ON s.product=t.product AND "
            "s.release=t.release AND s.path=t.path AND s.ord=t.ord WHERE t.product=? AND t.term=?",
            (product, key)).fetchall()
        if not rows and scan:
            pattern = token_pattern(key)
            like = "%" + like_literal(key) + "%"
            rows = [(r, p, o, h) for r, p, o, h, text in self.db.execute(
                "SELECT release, path, ord, heading, text FROM tl_sections WHERE product=? AND text LIKE ? ESCAPE '\\'",
                (product, like)) if pattern.search(text) or pattern.search(h)]
        if not rows and scan:
            return self.qualifying(product, term)
        return _in_order(rows)

    def qualifying(self, product: str, term: str) -> list[Occurrence]:
        """Where a bare API name appears qualified ("resultcallback": `MultiCommand.resultcallback`), oldest release
        first; [] for a term no qualified name stands for (terms.qualified_pattern)."""
        key = normal_term(term)
        if not qualified_pattern(key):
            return []
        return _in_order(self.db.execute(
            "SELECT t.release, t.path, t.ord, s.heading FROM tl_terms t JOIN tl_sections s ON s.product=t.product "
            "AND s.release=t.release AND s.path=t.path AND s.ord=t.ord WHERE t.product=? AND t.term LIKE ? "
            "ESCAPE '\\'", (product, "%." + like_literal(key))).fetchall())

    def holding(self, products: list[str], terms: list[str], *, stop_at: int | None = None) -> set[str]:
        """The products in which any of the terms occurs as `occurrences` finds it (the identifier index, else a
        whole-token scan): one index query for all of them, then at most one scan per product not found there,
        smallest first, each ending at its first hit; it stops once `stop_at` products are found (routing asks
        whether one product alone holds a question's names, issue 15: a lookup per name and product cost 14 ms)."""
        keys = list(dict.fromkeys(normal_term(t) for t in terms))
        if not keys or not products:
            return set()
        marks = ",".join("?" * len(products)), ",".join("?" * len(keys))
        found = {r[0] for r in self.db.execute(
            f"SELECT DISTINCT product FROM tl_terms WHERE product IN ({marks[0]}) AND term IN ({marks[1]})",
            [*products, *keys])}
        # The scan's filter is occurrences' LIKE on the text; the token must then be whole in the text or heading.
        plain = [k.replace("%", "") for k in keys]
        likes = ["%" + k.replace("_", "\\_") + "%" for k in plain]
        checks = [(k.lower(), token_pattern(key)) for k, key in zip(plain, keys)]
        where = " OR ".join(["text LIKE ? ESCAPE '\\'"] * len(likes))
        sizes = self._sizes()
        for product in sorted(set(products) - found, key=lambda p: (sizes.get(p, 0), p)):
            if stop_at is not None and len(found) >= stop_at:
                break
            for heading, text in self.db.execute(
                    f"SELECT heading, text FROM tl_sections WHERE product=? AND ({where})", [product, *likes]):
                low = text.lower()
                if any(k in low and (p.search(text) or p.search(heading)) for k, p in checks):
                    found.add(product)
                    break
        return found

    def _sizes(self) -> dict[str, int]:
        """Sections per product, read once: it only orders the scans, so a stale count costs time, never a result."""
        if getattr(self, "_size_cache", None) is None:
            self._size_cache = dict(self.db.execute("SELECT product, COUNT(*) FROM tl_sections GROUP BY product"))
        return self._size_cache

    def terms_of(self, product: str, release: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT DISTINCT term FROM tl_terms WHERE product=? AND release=?",
                                              (product, release))}

    def terms_like(self, product: str, prefix: str, limit: int = 200) -> list[str]:
        """Terms starting with `prefix` (a question about "--experimental-*" flags)."""
        like = like_literal(normal_term(prefix)) + "%"
        return [r[0] for r in self.db.execute("SELECT DISTINCT term FROM tl_terms WHERE product=? AND term LIKE ? "
                                              "ESCAPE '\\' ORDER BY term LIMIT ?", (product, like, limit))]

    def terms_containing(self, product: str, word: str, release: str | None = None) -> list[str]:
        """Identifiers with the word inside (`--auto-gomemlimit` for "GOMEMLIMIT"), in one release or any."""
        like = "%" + like_literal(normal_term(word)) + "%"
        sql, args = "SELECT DISTINCT term FROM tl_terms WHERE product=? AND term LIKE ? ESCAPE '\\'", [product, like]
        if release is not None:
            sql, args = sql + " AND release=?", args + [release]
        return sorted(r[0] for r in self.db.execute(sql + " LIMIT 200", args) if is_identifier(r[0]))

    def titles(self, product: str, release: str) -> dict[str, str]:
        """Page titles by path, as the manifest beside this file records them (front matter's `title:`, kept also for
        a folder's `_index.md` that holds nothing else: "tasks/operator/_index.md" is "Operator Tasks"); {} when
        there is no manifest. Read only: the timeline stores no titles of its own."""
        manifest = self.path.parent / "manifest.sqlite"
        if not manifest.exists():
            return {}
        try:
            with closing(sqlite3.connect(f"file:{manifest}?mode=ro", uri=True, timeout=30)) as db:
                return {p: t for p, t in db.execute("SELECT path, title FROM files WHERE product=? AND release=? AND "
                                                    "title IS NOT NULL AND title != ''", (product, release))}
        except sqlite3.Error:
            return {}

    def counts(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(product, release) -> (sections, distinct terms): what the Library page shows."""
        out = {}
        for p, r, n in self.db.execute("SELECT product, release, COUNT(*) FROM tl_sections GROUP BY product, release"):
            out[(p, r)] = (n, 0)
        for p, r, n in self.db.execute("SELECT product, release, COUNT(DISTINCT term) FROM tl_terms "
                                       "GROUP BY product, release"):
            out[(p, r)] = (out.get((p, r), (0, 0))[0], n)
        return out

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


def like_literal(key: str) -> str:
    """A term as a LIKE pattern's literal part (ESCAPE '\\'): "%" dropped, "_" escaped."""
    return key.replace("%", "").replace("_", "\\_")


def _in_order(rows: list[tuple]) -> list[Occurrence]:
    order = {r: i for i, r in enumerate(sort_releases({row[0] for row in rows}))}
    return [Occurrence(*r) for r in sorted(rows, key=lambda r: (order[r[0]], r[1], r[2]))]


def _section_terms(s: SectionRow) -> set[str]:
    """The identifiers of a section, and its own heading (a renamed or new heading is a change to find)."""
    found = set(identifiers(s.text)) | set(identifiers(s.heading))
    leaf = s.heading.rsplit(" > ", 1)[-1].strip()
    if leaf:
        found.add(normal_term(leaf))
    return found
