"""Evaluation datasets: JSONL or CSV rows -> typed `EvalItem`s, whatever the shape of the dev sets.

Accepted fields (all optional but the question): `question` (or `query`, or the last user turn of `turns`),
`answer`, `gold` (paths, or {"file", "page"} objects), `product`, `release`, `target_release` (one release or a
list), `intent`, `kind`, `must_contain`, `turns`, `yes_no`, `id`. In CSV, list fields are JSON or `|`-separated.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

DECLINED = ("out_of_scope", "invalid")


class DatasetError(ValueError):
    """A dataset file that cannot be read, with the line that failed."""


@dataclass(frozen=True)
class Gold:
    file: str
    page: int | None = None


@dataclass
class EvalItem:
    id: str
    question: str
    history: list[dict] = field(default_factory=list)
    answer: str | None = None
    gold: list[Gold] = field(default_factory=list)
    product: str | None = None
    release: str | list[str] | None = None  # how the user named it (not pinned: routing is measured)
    target_releases: list[str] = field(default_factory=list)
    intent: str | None = None
    kind: str = ""
    must_contain: list[str] = field(default_factory=list)
    yes_no: str | None = None
    dataset: str = ""
    extra: dict = field(default_factory=dict)  # anything else on the row (e.g. a regression's bad answer)

    @property
    def answerable(self) -> bool:
        return bool(self.gold) and self.kind != "missing"

    def to_json(self) -> dict:
        d = asdict(self)
        d["gold"] = [g.file if g.page is None else {"file": g.file, "page": g.page} for g in self.gold]
        return d


@dataclass
class Dataset:
    items: list[EvalItem]
    sources: list[dict]  # {"path", "sha256", "items"} per file read, recorded in the report

    @property
    def name(self) -> str:
        return "+".join(Path(s["path"]).stem for s in self.sources)


def _listify(value) -> list:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                return list(json.loads(text))
            except ValueError:
                pass
        return [p.strip() for p in text.split("|") if p.strip()]
    return [value]


def _gold(value) -> list[Gold]:
    out = []
    for g in _listify(value):
        if isinstance(g, dict):
            f = g.get("file") or g.get("path")
            if f:
                page = g.get("page")
                out.append(Gold(str(f), int(page) if page not in (None, "") else None))
        elif isinstance(g, str) and g.strip():
            out.append(Gold(g.strip()))
    return out


def _turns(value) -> list[dict]:
    if isinstance(value, str) and value.strip():
        value = json.loads(value)
    return [t for t in (value or []) if isinstance(t, dict) and "content" in t]


def item_from_row(row: dict, *, index: int, dataset: str = "") -> EvalItem:
    """One dataset row -> EvalItem. A conversation's question is its last user turn; the turns before are history."""
    turns = _turns(row.get("turns"))
    question = row.get("question") or row.get("query") or ""
    history: list[dict] = []
    if turns:
        last_user = max((i for i, t in enumerate(turns) if t.get("role", "user") == "user"), default=len(turns) - 1)
        question = question or turns[last_user]["content"]
        history = [{"role": t.get("role", "user"), "content": t["content"]} for t in turns[:last_user]]
    if not str(question).strip() and row.get("intent") not in DECLINED:
        raise DatasetError(f"{dataset or 'dataset'} row {index + 1}: no question, query or turns")
    target = row.get("target_release")  # `release` is the user's spelling, not a folder: never a target
    release = row.get("release")
    kind = row.get("kind") or ("conversation" if turns else "")
    known = {"id", "question", "query", "turns", "answer", "gold", "product", "release", "target_release", "intent",
             "kind", "must_contain", "yes_no"}
    answer = row.get("answer")
    return EvalItem(
        id=str(row.get("id") or f"{dataset or 'item'}-{index + 1}"),
        question=str(question),
        history=history,
        answer=str(answer) if answer not in (None, "") else None,
        gold=_gold(row.get("gold")),
        product=row.get("product") or None,
        release=release if release not in ("", None) else None,
        target_releases=[str(t) for t in _listify(target)],
        intent=row.get("intent") or None,
        kind=str(kind or dataset or ""),
        must_contain=[str(m) for m in _listify(row.get("must_contain"))],
        yes_no=row.get("yes_no") or None,
        dataset=dataset,
        extra={k: v for k, v in row.items() if k not in known},
    )


def parse_rows(text: str, fmt: str, name: str = "dataset") -> list[dict]:
    """JSONL or CSV text -> rows. `fmt` is "jsonl" or "csv"."""
    if fmt == "csv":
        return [dict(r) for r in csv.DictReader(io.StringIO(text))]
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DatasetError(f"{name} line {n}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{name} line {n}: expected a JSON object")
        rows.append(row)
    return rows


def load_text(text: str, *, name: str, fmt: str | None = None) -> Dataset:
    """A dataset given as text (an upload in the app); `name` gives the format when `fmt` is None."""
    fmt = fmt or ("csv" if name.lower().endswith(".csv") else "jsonl")
    stem = Path(name).stem
    rows = parse_rows(text, fmt, name)
    items = [item_from_row(r, index=i, dataset=stem) for i, r in enumerate(rows)]
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Dataset(items, [{"path": name, "sha256": digest, "items": len(items)}])


def load_dataset(path: str | Path) -> Dataset:
    """A JSONL or CSV file, or a folder: every *.jsonl and *.csv in it, in name order."""
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".jsonl", ".csv"))
        if not files:
            raise DatasetError(f"{path} holds no .jsonl or .csv file")
    elif path.is_file():
        files = [path]
    else:
        raise DatasetError(f"{path} does not exist")
    items, sources = [], []
    for f in files:
        ds = load_text(f.read_text(encoding="utf-8"), name=str(f))
        items += ds.items
        sources += ds.sources
    return Dataset(items, sources)


def write_jsonl(items: list[EvalItem], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            row = {k: v for k, v in item.to_json().items() if v not in (None, [], "", {}) and k != "dataset"}
            row.update(row.pop("extra", {}) or {})
            if item.history:
                row["turns"] = item.history + [{"role": "user", "content": item.question}]
                row.pop("history", None)
            if item.target_releases:
                row["target_release"] = item.target_releases[0] if len(item.target_releases) == 1 else item.target_releases
                row.pop("target_releases", None)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
