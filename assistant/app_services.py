"""What the Streamlit pages do, without Streamlit: services built once from Settings, questions with traces,
feedback, intent corrections, background ingestion and model pulls, safe uploads, insights and saved settings.

The pages (`pages/*.py`) gather input, call this module and render; `get_services()` at the bottom is the one
place where Streamlit keeps the services (`st.cache_resource`), so reruns never rebuild models or reopen Qdrant.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import uuid
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from assistant.components import build_indexer, build_pipeline
from assistant.ingest import index_recipe
from assistant.library import Library, LibraryError, ProductMeta, safe_name
from assistant.llm import ChatModel, LLMError, OllamaChat, build_chat_model
from assistant.presets import PRESETS, get_preset, with_overrides
from assistant.secrets import KeyringUnavailable, get_secret, set_secret
from assistant.settings import Settings
from assistant.store_db import AppDB

# ------------------------------------------------------------------------------------------- settings on disk

SETTINGS_FILE = "settings.json"
# What the Settings page may change. Secrets are never among them: only keyring entry *names* are saved.
EDITABLE = ("ollama_host", "ollama_model", "ollama_timeout_s", "ollama_token_name", "llm_backend",
            "embedding_model", "reranker_model", "preset", "top_k")
_LLM_FIELDS = {"ollama_host", "ollama_model", "ollama_timeout_s", "ollama_token_name", "llm_backend", "preset", "top_k"}
BACKENDS = ("auto", "ollama", "embedded", "none")
DEFAULT_TOKEN_NAME = "ollama-token"


def env_fixed() -> set[str]:
    """Editable settings that an ASSISTANT_* environment variable fixes; the environment wins over the file."""
    return {f for f in EDITABLE if f"ASSISTANT_{f.upper()}" in os.environ}


def _read_saved(data_dir: Path) -> dict:
    try:
        raw = json.loads((data_dir / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in raw.items() if k in EDITABLE} if isinstance(raw, dict) else {}


def load_settings() -> Settings:
    """Defaults, then data/settings.json (saved from the Settings page), then ASSISTANT_* variables."""
    base = Settings()
    fixed = env_fixed()
    saved = {k: v for k, v in _read_saved(base.data_dir).items() if k not in fixed}
    return Settings(**saved) if saved else base


def save_settings(data_dir: Path, changes: dict) -> Settings:
    """Validate and write the editable, non-secret settings; returns the settings now in force."""
    changes = {k: v for k, v in changes.items() if k in EDITABLE}
    if changes.get("preset", "default") not in PRESETS:
        raise ValueError(f"unknown preset {changes['preset']!r}")
    if changes.get("llm_backend", "auto") not in BACKENDS:
        raise ValueError(f"unknown LLM backend {changes['llm_backend']!r}")
    data = {**_read_saved(data_dir), **changes}
    checked = Settings(**data).model_dump(mode="json")  # raises pydantic's ValidationError on bad values
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / (SETTINGS_FILE + ".tmp")
    tmp.write_text(json.dumps({k: checked[k] for k in data}, indent=2), encoding="utf-8")
    tmp.replace(data_dir / SETTINGS_FILE)
    return load_settings()


def store_secret(name: str, value: str) -> None:
    """Into the OS keyring only; raises KeyringUnavailable (with a message for the user) when there is none."""
    set_secret(name, value)


# ------------------------------------------------------------------------------------------------ the LLM


@dataclass
class LLMState:
    model: ChatModel | None
    notice: str  # which model answers, or why none does
    help: str = ""  # when Ollama is not usable: how to start it and pull the model


def _ollama_problem(settings: Settings, token: str | None) -> str:
    with OllamaChat(settings.ollama_host, settings.ollama_model, timeout_s=min(5.0, settings.ollama_timeout_s),
                    token=token) as client:
        try:
            client.ping()
            if not client.has_model():
                return f"Model '{settings.ollama_model}' is not pulled on {settings.ollama_host}."
        except LLMError as exc:
            return exc.message
    return ""


def connect_llm(settings: Settings) -> LLMState:
    backend = settings.llm_backend.lower()
    token, problem = None, ""
    if settings.ollama_token_name and backend in ("ollama", "auto"):
        try:
            token = get_secret(settings.ollama_token_name)
        except KeyringUnavailable as exc:
            problem = exc.message
    if backend in ("ollama", "auto"):
        problem = problem or _ollama_problem(settings, token)
    how = ""
    if problem:
        how = (f"Start Ollama with `ollama serve`, pull the model with `ollama pull {settings.ollama_model}`, then "
               "press *Retry connection*; or pick another model or the embedded one on the Settings page.")
    if backend == "ollama" and problem:
        return LLMState(None, f"No language model is reachable: {problem} Answers show ranked sources only "
                              "(search-only).", how)
    choice = build_chat_model(settings, token)
    return LLMState(choice.model, choice.notice, how)


def model_status(settings: Settings) -> list[str]:
    """Where the embedding model and the reranker come from (or why there is no reranker)."""
    from assistant.components import build_reranker, resolve_embedding_model

    return [resolve_embedding_model(settings)[1].capitalize() + ".", build_reranker(settings).notice]


def check_connection(host: str, token_name: str | None, timeout_s: float = 5.0) -> tuple[bool, str, list[str]]:
    """(reachable, message, models) for the Settings page."""
    token = None
    if token_name:
        try:
            token = get_secret(token_name)
        except KeyringUnavailable as exc:
            return False, exc.message, []
    with OllamaChat(host, "", timeout_s=timeout_s, token=token) as client:
        try:
            client.ping()
            models = client.list_models()
        except LLMError as exc:
            return False, exc.message, []
    return True, f"Ollama answers at {host} with {len(models)} model(s).", models


# ------------------------------------------------------------------------------------------ background work


@dataclass
class JobState:
    running: bool = False
    label: str = ""
    product: str = ""
    release: str = ""
    files_done: int = 0
    files_total: int = 0
    current: str = ""
    eta_s: float | None = None
    elapsed_s: float = 0.0
    chunks: int = 0
    done_files: list[str] = field(default_factory=list)  # "release/path", newest last
    reports: list[dict] = field(default_factory=list)
    error: str = ""
    cancelled: bool = False
    status: str = ""  # model pulls: Ollama's status line
    completed: int | None = None
    total: int | None = None


class Job:
    """One background thread at a time with a state the pages poll; the page itself never blocks on it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = JobState()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def snapshot(self) -> JobState:
        with self._lock:
            return copy.deepcopy(self._state)

    def update(self, done_file: str | None = None, **changes) -> None:
        with self._lock:
            for k, v in changes.items():
                setattr(self._state, k, v)
            if done_file:
                self._state.done_files.append(done_file)

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> JobState:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.snapshot()

    def start(self, label: str, work) -> bool:
        """Run `work(job, cancel_event)` in a thread; False when a job is already running."""
        with self._lock:
            if self._state.running:
                return False
            self._state = JobState(running=True, label=label)
            self._cancel = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(work, self._cancel), daemon=True, name=label)
        self._thread.start()
        return True

    def _run(self, work, cancel: threading.Event) -> None:
        try:
            work(self, cancel)
        except (LLMError, KeyringUnavailable) as exc:
            self.update(error=exc.message)
        except Exception as exc:  # shown in the page; the app must outlive a failed job
            self.update(error=f"{type(exc).__name__}: {exc}")
        finally:
            self.update(running=False, cancelled=cancel.is_set(), current="")


# --------------------------------------------------------------------------------------------- the services


class Services:
    """Everything the pages need, for one data folder. Heavy parts come from the composition root (components.py),
    which keeps one embedder, reranker and Qdrant client per process."""

    def __init__(self, settings: Settings) -> None:
        settings.ensure_dirs()
        self.settings = settings
        self.db = AppDB(settings.db_path)
        self.ingest = Job()
        self.pull = Job()
        self._lock = threading.RLock()  # one question at a time: the pipeline's caches are not thread-safe
        self._llm: LLMState | None = None
        self._pipeline = None
        self._indexer = None

    def refresh(self, settings: Settings) -> None:
        """Settings saved since the last run: reconnect the LLM, and rebuild the pipeline if retrieval changed."""
        old, new = self.settings.model_dump(), settings.model_dump()
        if old == new:
            return
        with self._lock:
            changed = {k for k in new if new[k] != old[k]}
            recipe_changed = index_recipe(self.settings) != index_recipe(settings)
            self.settings = settings
            self._llm = None
            if changed - _LLM_FIELDS:
                self._pipeline = self._indexer = None
        if recipe_changed:  # e.g. another embedding model: re-index what was made the old way, in the background
            self.start_sync()

    # -- components -----------------------------------------------------------------------------------------
    @property
    def library(self) -> Library:
        return Library(self.settings.library_dir)

    @property
    def indexer(self):
        if self._indexer is None:
            self._indexer = build_indexer(self.settings)
        return self._indexer

    def llm(self) -> LLMState:
        if self._llm is None:
            self._llm = connect_llm(self.settings)
        return self._llm

    def reconnect(self) -> LLMState:
        self._llm = None
        return self.llm()

    def pipeline(self):
        """Raises components.StoreLocked when another process holds the index folder."""
        with self._lock:
            if self._pipeline is None:
                pipeline = build_pipeline(self.settings, llm=None)
                pipeline.warm_up()  # under the "Loading the assistant" spinner, not in the first answer
                self._pipeline = pipeline
            return self._pipeline

    def preset(self, name: str | None):
        p = get_preset(name or self.settings.preset)
        if "top_k" in self.settings.model_fields_set:  # the user chose how many sources an answer gets
            p = with_overrides(p, retrieval=replace(p.retrieval, contexts=self.settings.top_k))
        return p

    # -- questions -----------------------------------------------------------------------------------------
    def ask(self, question: str, *, history: list[dict] | None = None, product: str | None = None,
            release: str | None = None, preset: str | None = None, search_only: bool = False,
            on_token=None) -> dict:
        """Answer and trace one question. Returns {"id", "trace", "trace_id"} (plain data for the session)."""
        llm = None if search_only else self.llm().model
        with self._lock:
            pipeline = self.pipeline()
            pipeline.llm = llm
            res = pipeline.ask(question, history=history or None, product=product, release=release,
                               preset=self.preset(preset), search_only=llm is None, on_token=on_token)
        trace = res.to_json()
        trace["history"] = list(history or [])
        trace["search_only"] = res.search_only
        return {"id": uuid.uuid4().hex, "trace": trace, "trace_id": self.db.add_trace(trace)}

    def save_feedback(self, answer: dict, rating: int, comment: str = "") -> int:
        """rating: 1 thumbs up, 0 thumbs down (st.feedback's values). One row per answer, updated on change."""
        if answer.get("feedback_id"):
            self.db.update_feedback(answer["feedback_id"], rating, comment)
        else:
            answer["feedback_id"] = self.db.add_feedback(rating, answer["trace"], comment, answer.get("trace_id"))
        return answer["feedback_id"]

    def correct_intent(self, question: str, predicted: str | None, corrected: str) -> None:
        """Stored (the classifier is built with every correction) and applied to the live classifier at once."""
        self.db.add_intent_correction(question, predicted, corrected)
        with self._lock:
            if self._pipeline is not None:
                self._pipeline.intent.add_example(question, corrected)

    def document(self, source: dict) -> Path | None:
        """The file a source came from, only if it lies inside its release folder."""
        try:
            base = self.library.release_dir(source["product"], source["release"]).resolve()
            path = (base / source["path"]).resolve()
        except (KeyError, OSError):
            return None
        return path if path.is_relative_to(base) and path.is_file() else None

    # -- library ---------------------------------------------------------------------------------------------
    def catalogue(self) -> dict[str, list[str]]:
        lib = self.library
        return {p: lib.releases(p) for p in lib.products()}

    def start_sync(self, product: str | None = None, release: str | None = None) -> bool:
        indexer = self.indexer
        label = f"Indexing {product or 'the library'}" + (f" {release}" if release else "")

        def work(job: Job, cancel: threading.Event) -> None:
            def progress(p) -> None:
                job.update(product=p.product, release=p.release, files_done=p.files_done, files_total=p.files_total,
                           current=p.current, eta_s=p.eta_s, elapsed_s=p.elapsed_s, chunks=p.chunks,
                           done_file=f"{p.release}/{p.current}")

            reports = indexer.sync(product, release, progress=progress, cancel=cancel)
            job.update(reports=[r.to_json() for r in reports])

        return self.ingest.start(label, work)

    def add_uploads(self, product: str, release: str, files: list[tuple[str, bytes]],
                    limits: UploadLimits | None = None) -> UploadReport:
        report = save_uploads(self.library, product, release, files, limits or UploadLimits())
        if report.saved:
            report.started = self.start_sync(report.product, report.release)
        return report

    def library_overview(self) -> pd.DataFrame:
        lib, manifest = self.library, self.indexer.manifest
        stats = {(r["product"], r["release"]): r for r in manifest.stats(self.indexer.recipe)}
        rows = []
        for product in lib.products():
            name = lib.meta(product).display_name
            for release in lib.releases(product):
                s = stats.pop((product, release), {})
                # Stale: indexed before the embedding model, chunk sizes or a reader changed (see ingest.index_recipe).
                state = f"rescan: {s['stale']} files indexed with old settings" if s.get("stale") else "on disk"
                rows.append(_overview_row(product, name, release, len(lib.files(product, release)), s, state))
        for (product, release), s in stats.items():
            rows.append(_overview_row(product, product, release, 0, s, "folder gone: rescan removes it"))
        return pd.DataFrame(rows, columns=["product", "name", "release", "files", "indexed", "failed", "chunks",
                                           "last indexed", "state"])

    def failures(self, product: str, release: str) -> list[tuple[str, str]]:
        return self.indexer.manifest.failures(product, release)

    def set_product_meta(self, product: str, *, display_name: str, description: str, aliases: str,
                         release_order: list[str]) -> None:
        meta = ProductMeta(display_name=display_name.strip() or product, description=description.strip(),
                           aliases=[a.strip() for a in aliases.split(",") if a.strip()],
                           release_order=[r for r in release_order if r])
        self.library.set_meta(product, meta)

    def rename_product(self, old: str, new: str) -> str:
        """The index is keyed by folder name, so a rename re-indexes (the embedding cache makes that cheap)."""
        if self.ingest.snapshot().running:
            raise LibraryError("Wait for the running ingestion to finish (or cancel it) before renaming.")
        new = self.library.rename_product(old, new)
        self.start_sync()
        return new

    def delete_release(self, product: str, release: str) -> None:
        if self.ingest.snapshot().running:
            raise LibraryError("Wait for the running ingestion to finish (or cancel it) before deleting.")
        self.library.delete_release(product, release)
        self.start_sync(product, release)  # drops the release's index

    def start_pull(self, model: str, host: str | None = None) -> bool:
        settings = self.settings

        def work(job: Job, cancel: threading.Event) -> None:
            token = get_secret(settings.ollama_token_name) if settings.ollama_token_name else None
            # A long read timeout: Ollama may stay silent for minutes while it verifies a multi-gigabyte layer.
            with OllamaChat(host or settings.ollama_host, model, timeout_s=3600.0, token=token) as client:
                client.pull(model, lambda p: job.update(status=p.status, completed=p.completed, total=p.total))
            job.update(status=f"{model} is ready")
            self._llm = None

        return self.pull.start(f"Pulling {model}", work)


def _overview_row(product, name, release, files, s: dict, state: str) -> dict:
    last = pd.to_datetime(s["last_indexed"], unit="s") if s.get("last_indexed") else None
    return {"product": product, "name": name, "release": release, "files": files, "indexed": s.get("indexed") or 0,
            "failed": s.get("failed") or 0, "chunks": s.get("chunks") or 0, "last indexed": last, "state": state}


# --------------------------------------------------------------------------------------------------- uploads


@dataclass(frozen=True)
class UploadLimits:
    max_file_bytes: int = 200 * 2**20
    max_zip_members: int = 20_000
    max_zip_bytes: int = 2 * 2**30  # expanded size of one zip
    # Expanded/compressed size of one member. Documentation compresses 3-10x; zip bombs 1000x and more.
    max_zip_ratio: float = 200.0


@dataclass
class UploadReport:
    product: str
    release: str
    saved: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    started: bool = False


class _ZipBomb(Exception):
    pass


def clean_name(part: str) -> str:
    """One path component: letters, digits and . _ + - only; no leading dots (no hidden files, no '..')."""
    return re.sub(r"[^\w.+-]+", "-", part, flags=re.ASCII).strip(".- ")[:150]


def clean_relpath(name: str) -> str | None:
    """A zip member's path made safe, or None when it tries to leave its folder (zip slip)."""
    parts = [p for p in re.split(r"[\\/]+", name) if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    cleaned = [clean_name(p) for p in parts]
    return "/".join(cleaned) if cleaned and all(cleaned) else None


def save_uploads(library: Library, product: str, release: str, files: list[tuple[str, bytes]],
                 limits: UploadLimits) -> UploadReport:
    """Write uploads (zips expanded) into product/release. Everything is staged first in a hidden folder of the
    library, so a refused zip leaves nothing behind and the index never sees half an upload."""
    report = UploadReport(safe_name(product), safe_name(release))
    staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=library.root))
    try:
        for name, data in files:
            base = clean_name(re.split(r"[\\/]", name)[-1])
            if len(data) > limits.max_file_bytes:
                report.refused.append((name, f"larger than {limits.max_file_bytes // 2**20} MB"))
            elif not base:
                report.refused.append((name, "no usable file name"))
            elif base.lower().endswith(".zip"):
                _expand_zip(name, data, staging, report, limits)
            else:
                (staging / base).write_bytes(data)
                report.saved.append(base)
        dest = library.release_dir(report.product, report.release)
        for path in sorted(p for p in staging.rglob("*") if p.is_file()):
            target = dest / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), str(target))
        dest.mkdir(parents=True, exist_ok=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _expand_zip(name: str, data: bytes, staging: Path, report: UploadReport, limits: UploadLimits) -> None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        report.refused.append((name, "not a valid zip file"))
        return
    members = [i for i in zf.infolist() if not i.is_dir()]
    declared = sum(i.file_size for i in members)
    if len(members) > limits.max_zip_members or declared > limits.max_zip_bytes:
        report.refused.append((name, f"too large: {len(members)} files, {declared // 2**20} MB expanded"))
        return
    root = staging.resolve()
    written: list[Path] = []
    saved: list[str] = []
    total = 0
    try:
        for info in members:
            rel = clean_relpath(info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                report.refused.append((f"{name}:{info.filename}", "symbolic link"))
                continue
            if rel is None:
                report.refused.append((f"{name}:{info.filename}", "path leaves the release folder (zip slip)"))
                continue
            target = (staging / rel).resolve()
            if not target.is_relative_to(root):
                report.refused.append((f"{name}:{info.filename}", "path leaves the release folder (zip slip)"))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written.append(target)
            size = 0
            try:
                with zf.open(info) as src, target.open("wb") as out:
                    # Count real bytes: the sizes in the zip's headers can lie.
                    while chunk := src.read(1 << 16):
                        size += len(chunk)
                        total += len(chunk)
                        if total > limits.max_zip_bytes or (
                                size > 2**20 and size > limits.max_zip_ratio * max(info.compress_size, 1)):
                            raise _ZipBomb
                        out.write(chunk)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError) as exc:
                target.unlink(missing_ok=True)
                report.refused.append((f"{name}:{info.filename}", f"unreadable ({exc})"))
                continue
            saved.append(rel)
    except _ZipBomb:
        for path in written:
            path.unlink(missing_ok=True)
        report.refused.append((name, "expands far beyond its size (zip bomb?): nothing from it was kept"))
        return
    report.saved.extend(saved)


# -------------------------------------------------------------------------------------------------- insights


def _traces(db: AppDB) -> list[dict]:
    return [{**row, "trace": json.loads(row["trace"])} for row in db.traces()]


def feedback_frame(db: AppDB) -> pd.DataFrame:
    rows = db.feedback()
    df = pd.DataFrame(rows, columns=["id", "created_at", "rating", "comment", "question", "product", "releases",
                                     "intent", "preset", "knowledge_missing", "answer", "trace"])
    df["day"] = pd.to_datetime(df["created_at"], unit="s").dt.floor("D")
    df["vote"] = df["rating"].map({1: "thumbs up", 0: "thumbs down"})
    df["intent"] = df["intent"].fillna("(none)")
    return df


def feedback_over_time(db: AppDB) -> pd.DataFrame:
    df = feedback_frame(db)
    out = df.pivot_table(index="day", columns="vote", values="id", aggfunc="count", fill_value=0)
    return out.reindex(columns=["thumbs up", "thumbs down"], fill_value=0)


def feedback_by_intent(db: AppDB) -> pd.DataFrame:
    df = feedback_frame(db)
    out = df.pivot_table(index="intent", columns="vote", values="id", aggfunc="count", fill_value=0)
    return out.reindex(columns=["thumbs up", "thumbs down"], fill_value=0)


def intent_mix(db: AppDB) -> pd.DataFrame:
    labels = [(t["intent"] or "(none)") for t in db.traces()]
    return pd.Series(labels, dtype="object").value_counts().rename("questions").rename_axis("intent").to_frame()


def latency_by_stage(db: AppDB) -> pd.DataFrame:
    rows = [{"stage": k, "ms": v} for t in _traces(db) for k, v in (t["trace"].get("timings_ms") or {}).items()]
    df = pd.DataFrame(rows, columns=["stage", "ms"])
    out = df.groupby("stage", sort=False)["ms"].agg(median="median", p90=lambda s: s.quantile(0.9))
    return out.rename(columns={"median": "median ms", "p90": "p90 ms"})


def unanswered(db: AppDB) -> pd.DataFrame:
    """Questions the documents could not answer, per release: the documentation to write."""
    rows = []
    for t in _traces(db):
        tr = t["trace"]
        if tr.get("knowledge_missing") or tr.get("status") not in ("ok", None):
            reason = (tr.get("knowledge") or {}).get("reason") or tr.get("status") or ""
            rows.append({"product": tr.get("product") or "(none)",
                         "release": ", ".join(tr.get("releases") or []) or "(none)",
                         "question": tr.get("question", ""), "reason": reason,
                         "asked": pd.to_datetime(t["created_at"], unit="s")})
    df = pd.DataFrame(rows, columns=["product", "release", "question", "reason", "asked"])
    return df.sort_values(["product", "release", "asked"]).reset_index(drop=True)


def golden_set(db: AppDB) -> list[dict]:
    """Thumbs-up answers in the evaluation format; gold = the cited files, relative to the product folder."""
    by_question: dict[str, dict] = {}
    for row in db.feedback():
        if row["rating"] != 1:
            continue
        tr = json.loads(row["trace"])
        if not tr.get("answer") or tr.get("knowledge_missing"):
            continue
        gold = list(dict.fromkeys(f"{s['release']}/{s['path']}" for s in tr.get("sources", []) if s.get("cited")))
        releases = tr.get("releases") or []
        by_question[tr["question"]] = {"question": tr["question"], "answer": tr["answer"], "gold": gold,
                                       "product": tr.get("product"),
                                       "release": releases[0] if len(releases) == 1 else releases}
    return list(by_question.values())


def golden_set_jsonl(db: AppDB) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in golden_set(db))


# --------------------------------------------------------------------------------------------- presentation

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
RELEASE_SOURCES = {"named": "named in the question", "pinned": "pinned above", "history": "from the conversation",
                   "default_newest": "newest, none named", "none": "none"}


def md_escape(text: str) -> str:
    """Text shown inside Markdown as itself (file names, queries, sections typed by strangers)."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def source_label(s: dict) -> str:
    where = md_escape(s["path"]) + (f" p.{s['page']}" if s.get("page") else "")
    if s.get("section"):
        where += f" § {md_escape(s['section'])}"
    cited = "" if s.get("cited") else " · *also retrieved*"
    what = f"{md_escape(s['product'])} {md_escape(s['release'])}"
    return f"**[{s['n']}]** {what} · {where} · score {s['score']:.3f}{cited}"


def open_label(s: dict) -> str:
    name = Path(s["path"]).name
    return f"Open {name} at page {s['page']}" if s.get("page") else f"Open {name}"


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


# ------------------------------------------------------------------------------------------ Streamlit cache


def get_services() -> Services:
    """The services for the configured data folder: built once per process, refreshed when settings change."""
    settings = load_settings()
    services = _cached_services(str(settings.data_dir.resolve()), settings)
    services.refresh(settings)
    return services


def _build(data_dir: str, _settings: Settings) -> Services:
    return Services(_settings)


def _cached_services(data_dir: str, settings: Settings) -> Services:
    import streamlit as st

    global _cached_services_impl
    if _cached_services_impl is None:
        # The leading underscore keeps Streamlit from hashing the settings: one Services per data folder.
        _cached_services_impl = st.cache_resource(show_spinner="Loading the assistant…")(_build)
    return _cached_services_impl(data_dir, settings)


_cached_services_impl = None
