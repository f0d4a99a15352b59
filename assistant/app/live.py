"""An answer you can watch: the question runs in a worker thread while the chat page polls a snapshot of it.

The snapshot holds the stage being run, said the way a user thinks of it ("Searching 1 release of etcd…"), the
sources and the intent/release line as soon as retrieval has ended (before any token is generated), the text
streamed so far, and the moments sources and the first token arrived. `stop()` ends the answer at the next token
(or the next stage): the partial text and the sources are kept and the answer is marked stopped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from assistant.answering.state import AskResult, StageEvent
from assistant.app.jobs import track
from assistant.backends.chat import ChatModel, LLMError

EMBEDDED_FIRST_LOAD_S = 90  # measured on two cores: the GGUF is dequantised and cached once, later loads take seconds
STOPPED_NOTICE = "Stopped by you: the partial answer and its sources are kept."


class AnswerStopped(Exception):
    """Raised inside the worker at the next stage boundary after stop()."""


class _StoppedByUser(LLMError):
    """Raised from the token callback: the generation stage keeps the partial text, as for any broken stream."""

    def __init__(self) -> None:
        super().__init__(STOPPED_NOTICE, "interrupted")


@dataclass(frozen=True)
class LiveView:
    """What the page draws, copied under the lock."""

    stage: str  # the line shown while the answer is made
    done_stages: list[tuple[str, float]]  # (stage line, ms) of the stages already run
    partial: str
    sources: list[dict] | None  # None until retrieval has ended
    header: dict | None  # intent, product, releases, release_source, rewritten: with the sources
    state: str  # running | done | stopped | failed
    answer: dict | None = None  # Services.ask's {"id", "trace", "trace_id"} once finished
    error: str = ""
    seconds: float = 0.0  # since the question was asked
    to_sources_s: float | None = None
    to_first_token_s: float | None = None

    @property
    def finished(self) -> bool:
        return self.state != "running"


HEADER_KEYS = ("intent", "product", "releases", "release_source", "rewritten")  # the line shown above the sources


def loading_line(llm: ChatModel | None, extractive: bool) -> str:
    """What the generation stage is doing before its first token."""
    if llm is None:
        return "Quoting the sentences that answer the question…" if extractive else "Listing the sources…"
    if llm.backend == "embedded" and not getattr(llm, "loaded", True):
        return (f"Loading the embedded model {llm.model} (the first load takes about {EMBEDDED_FIRST_LOAD_S} s; "
                "it stays loaded)…")
    return f"Waiting for {llm.model} to start writing…"


@dataclass
class LiveAnswer:
    llm: ChatModel | None = None
    extractive: bool = False
    started: float = field(default_factory=time.perf_counter)
    _stage: str = "Starting…"
    _done: list[tuple[str, float]] = field(default_factory=list)
    _pieces: list[str] = field(default_factory=list)
    _sources: list[dict] | None = None
    _header: dict | None = None
    _state: str = "running"
    _answer: dict | None = None
    _error: str = ""
    _to_sources: float | None = None
    _to_token: float | None = None
    _result: AskResult | None = None
    _generating: bool = False
    _thread: threading.Thread | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- what the worker calls ---------------------------------------------------------------------------------------
    def observe(self, event: StageEvent) -> None:
        """The pipeline's observer: one line per stage, sources published when the generation stage starts."""
        res = event.result
        with self._lock:
            self._result = res
            if event.phase == "end":
                self._done.append((self._stage, event.ms or 0.0))
                if event.stage == "retrieval":
                    passages = len({c.context_id for c in res.candidates})
                    self._stage = f"Reading {passages} passage{'s' * (passages != 1)}…"
                return
        if self._cancel.is_set() and not self._generating:
            raise AnswerStopped  # from generation on, the token callback stops it and the citations still run
        self._generating = self._generating or event.stage == "generation"
        line = self._stage_line(event.stage, res)
        with self._lock:
            if line:
                self._stage = line
            if event.stage == "generation" and self._sources is None:
                self._publish_sources(res.to_json())

    def _stage_line(self, stage: str, res: AskResult) -> str:
        if stage == "query_check":
            return "Checking the question…"
        if stage == "timeline":
            return "Looking the question up in the release timeline…"
        if stage == "routing":
            return "Choosing the product and release…"
        if stage == "intent":
            return "Recognising what kind of question this is…"
        if stage == "rewrite":
            return "Rewriting the question for search…"
        if stage == "retrieval":
            n = len(res.releases)
            return f"Searching {n} release{'s' * (n != 1)} of {res.product}: {', '.join(res.releases)}…"
        if stage == "knowledge":
            return "Checking that the documents cover the question…"
        if stage == "generation":
            return loading_line(self.llm if not res.search_only else None, self.extractive)
        if stage == "citations":
            return "Checking the citations…"
        return ""  # rerank, select, reduce: still "Reading K passages…"

    def _publish_sources(self, trace: dict) -> None:
        """Sources and the intent/release line from a trace (AskResult.to_json()), timed as they arrive."""
        self._sources = trace["sources"]
        self._header = {k: trace[k] for k in HEADER_KEYS}
        self._to_sources = time.perf_counter() - self.started

    def on_token(self, piece: str) -> None:
        if self._cancel.is_set():
            raise _StoppedByUser()
        with self._lock:
            if self._to_token is None:
                self._to_token = time.perf_counter() - self.started
                self._stage = f"Writing the answer with {self.llm.model if self.llm else 'the model'}…"
            self._pieces.append(piece)

    def finish(self, answer: dict) -> None:
        with self._lock:
            trace = answer["trace"]
            stopped = self._cancel.is_set() and STOPPED_NOTICE in trace.get("notices", [])
            trace["stopped"] = stopped
            trace["time_to_sources_s"] = self._to_sources
            trace["time_to_first_token_s"] = self._to_token
            if self._sources is None:
                self._publish_sources(trace)
            self._answer, self._state = answer, "stopped" if stopped else "done"

    def fail(self, message: str) -> None:
        with self._lock:
            self._error, self._state = message, "failed"

    def stopped_early(self) -> AskResult | None:
        """The result as it stood when a stop ended the pipeline between stages."""
        with self._lock:
            return self._result

    # -- what the page calls -------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Start the worker (once). The page calls it after drawing the stage line, so that line is on screen
        before the work competes with the page for the interpreter."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.start()
            track(thread, self.stop)

    def stop(self) -> None:
        self._cancel.set()

    @property
    def stopping(self) -> bool:
        return self._cancel.is_set()

    def view(self) -> LiveView:
        with self._lock:
            return LiveView(
                stage=self._stage, done_stages=list(self._done), partial="".join(self._pieces),
                sources=None if self._sources is None else list(self._sources),
                header=None if self._header is None else dict(self._header), state=self._state, answer=self._answer,
                error=self._error, seconds=time.perf_counter() - self.started, to_sources_s=self._to_sources,
                to_first_token_s=self._to_token)


def start_answer(services, question: str, *, deferred: bool = False, **ask_kwargs) -> LiveAnswer:
    """Run `services.ask` (an app.services.Services) in a daemon thread; returns at once with the answer to watch."""
    state = services.llm()
    search_only = ask_kwargs.get("search_only", False)
    live = LiveAnswer(llm=None if search_only else state.model, extractive=state.extractive and not search_only)
    if not services.ready:
        live._stage = "Loading the search models (embedder, intent examples; once per start)…"

    def work() -> None:
        try:
            answer = services.ask(question, observer=live.observe, on_token=live.on_token, **ask_kwargs)
        except AnswerStopped:
            res = live.stopped_early()
            if res is None:
                live.fail(STOPPED_NOTICE)
                return
            res.incomplete = True
            res.notices.append(STOPPED_NOTICE)
            answer = services.record(res, ask_kwargs.get("history"))
        except Exception as exc:  # shown under the question instead of dying with the thread
            live.fail(str(exc) or type(exc).__name__)
            return
        live.finish(answer)

    live._thread = threading.Thread(target=work, name="live-answer", daemon=True)
    if not deferred:
        live.begin()
    return live


__all__ = ["AnswerStopped", "LiveAnswer", "LiveView", "STOPPED_NOTICE", "loading_line", "start_answer"]
