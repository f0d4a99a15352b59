"""Background work the pages start and watch: one sync or one model pull at a time, cancellable."""

from __future__ import annotations

import atexit
import copy
import threading
import time
from dataclasses import dataclass, field

from assistant.backends.chat import LLMError
from assistant.secrets import KeyringUnavailable

# ------------------------------------------------------------------------------------------ background work
# Threads doing background work, each with what asks it to stop. Python kills daemon threads at exit only when they
# next need the interpreter lock; one inside torch at that moment (the model warm-up, an answer's embedding) aborts
# the whole process ("terminate called without an active exception", exit 134). So at exit each is asked to stop
# and given a bounded time to reach a point where it can: a stop is checked between files and between stages.
EXIT_WAIT_S = 30.0
_live: dict[threading.Thread, object] = {}
_live_lock = threading.Lock()


def track(thread: threading.Thread, stop) -> None:
    """Register a started background thread and the callable that asks it to stop (waited for at exit). Finished
    threads are dropped here, so a long session does not keep every answer it ever gave."""
    with _live_lock:
        for done in [t for t in _live if not t.is_alive()]:
            del _live[done]
        _live[thread] = stop


@atexit.register
def _finish() -> None:
    finish_at_exit()


def finish_at_exit(timeout: float = EXIT_WAIT_S) -> list[str]:
    """Ask every tracked thread to stop and wait for them together, at most `timeout` seconds. Returns the names of
    those still running after it (they are then left to the interpreter)."""
    with _live_lock:
        threads = [(t, stop) for t, stop in _live.items() if t.is_alive()]
        _live.clear()
    for _, stop in threads:
        try:
            stop()
        except Exception:  # best effort at shutdown
            pass
    end = time.monotonic() + timeout
    for thread, _ in threads:
        thread.join(max(0.0, end - time.monotonic()))
    return [t.name for t, _ in threads if t.is_alive()]


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
        track(self._thread, self._cancel.set)
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
