"""The chat-model seam: one narrow abstract class every backend implements, its errors and usage, a test fake,
and the JSON helper the stages use for structured verdicts."""

from __future__ import annotations

import abc
import json
import re
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

ErrorKind = Literal["unreachable", "model_missing", "timeout", "malformed", "interrupted", "rejected"]


class LLMError(Exception):
    """A chat-model failure whose message tells the user what to do.

    `kind` is one of: unreachable, model_missing, timeout, malformed, interrupted, and `rejected` for any
    other error the server answered with (a bad token, out of memory). `partial` holds the text received
    before an interrupted or timed-out stream stopped.
    """

    def __init__(self, message: str, kind: ErrorKind, *, partial: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.partial = partial


@dataclass
class Usage:
    """Running totals; evaluation subtracts two snapshots to report calls and tokens per question."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def snapshot(self) -> Usage:
        with self._lock:
            return Usage(self.calls, self.prompt_tokens, self.completion_tokens)

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.calls - other.calls,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
        )


Messages = list[dict[str, str]]


class ChatModel(abc.ABC):
    """What every stage needs from an LLM: one reply to a list of {"role", "content"} messages."""

    backend: str = ""
    model: str = ""

    def __init__(self) -> None:
        self.usage = Usage()

    @abc.abstractmethod
    def chat(
        self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512, json_mode: bool = False
    ) -> str: ...

    def stream(self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512) -> Iterator[str]:
        yield self.chat(messages, temperature=temperature, max_tokens=max_tokens)


# ------------------------------------------------------------------------------------------------ Fake


class FakeChat(ChatModel):
    """Test double: records every message list in `history` and replies from a queue."""

    backend = "fake"

    def __init__(self, replies: Iterable[str] = (), *, default_reply: str = "", model: str = "fake") -> None:
        super().__init__()
        self.model = model
        self.default_reply = default_reply
        self.history: list[Messages] = []
        self.calls: list[dict[str, Any]] = []
        self._queue: deque[str] = deque(replies)

    def enqueue(self, replies: Iterable[str]) -> None:
        self._queue.extend(replies)

    def chat(
        self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512, json_mode: bool = False
    ) -> str:
        self.history.append([dict(m) for m in messages])
        self.calls.append({"temperature": temperature, "max_tokens": max_tokens, "json_mode": json_mode})
        reply = self._queue.popleft() if self._queue else self.default_reply
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in messages)
        self.usage.record(prompt_words, len(reply.split()))
        return reply


# ---------------------------------------------------------------------------------------------- JSON


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def ask_json(llm: ChatModel, system: str, user: str, max_tokens: int) -> dict | None:
    """One JSON-mode call for a stage's structured verdict; None when the model fails or replies unusably,
    so the stage keeps its deterministic result."""
    try:
        return parse_json_reply(llm.chat([{"role": "system", "content": system}, {"role": "user", "content": user}],
                                         json_mode=True, max_tokens=max_tokens))
    except LLMError:
        return None


def parse_json_reply(text: str) -> dict | None:
    """Return the first JSON object in a chatty reply (fenced or preceded by prose), or None."""
    if not text:
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            for attempt in (candidate[start:], _TRAILING_COMMA.sub(r"\1", candidate[start:])):
                try:
                    value, _ = decoder.raw_decode(attempt)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    return value
    return None
