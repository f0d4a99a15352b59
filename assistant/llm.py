"""Chat-model seam: one narrow abstract class, an Ollama client, a test fake, and the backend choice.

The embedded fallback (Gemma 3 270M on CPU) lives in `llm_embedded.py`; it is imported lazily so that
choosing Ollama never pays for importing torch and transformers.
"""

from __future__ import annotations

import abc
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import httpx

if TYPE_CHECKING:
    from assistant.settings import Settings

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


# ---------------------------------------------------------------------------------------------- Ollama


@dataclass(frozen=True)
class PullProgress:
    status: str
    completed: int | None = None
    total: int | None = None


class OllamaChat(ChatModel):
    backend = "ollama"

    def __init__(
        self,
        host: str,
        model: str,
        *,
        timeout_s: float = 120.0,
        token: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__()
        self.host = host.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # Connecting to a local daemon is instant or refused; only reads may legitimately take long.
        timeout = httpx.Timeout(timeout_s, connect=min(5.0, timeout_s))
        # A proxy from the environment must not capture requests meant for the local daemon.
        local = urlsplit(self.host).hostname in ("127.0.0.1", "localhost", "::1")
        self._client = httpx.Client(
            base_url=self.host, headers=headers, timeout=timeout, transport=transport, trust_env=not local
        )

    @classmethod
    def from_settings(cls, settings: Settings, token: str | None = None) -> OllamaChat:
        return cls(settings.ollama_host, settings.ollama_model, timeout_s=settings.ollama_timeout_s, token=token)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OllamaChat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- chat

    def chat(
        self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512, json_mode: bool = False
    ) -> str:
        # Streamed even here: the read timeout then bounds silence between tokens, not the whole
        # generation, which on a CPU-only machine can take minutes for a long answer.
        return "".join(self._chat_stream(messages, temperature, max_tokens, json_mode))

    def stream(self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512) -> Iterator[str]:
        return self._chat_stream(messages, temperature, max_tokens, False)

    def _chat_stream(self, messages: Messages, temperature: float, max_tokens: int, json_mode: bool) -> Iterator[str]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "options": {"temperature": temperature, "num_predict": max_tokens},
        }
        if json_mode:
            body["format"] = "json"
        received: list[str] = []
        done = False
        for line in self._post_lines("/api/chat", body, received):
            if line.get("done") is True:
                self.usage.record(int(line.get("prompt_eval_count") or 0), int(line.get("eval_count") or 0))
                done = True
                break
            message = line.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, str):
                raise LLMError(f"Ollama sent a malformed reply: no message content in {line!r:.200}", "malformed")
            received.append(content)
            yield content
        if not done:
            raise LLMError("The connection to Ollama dropped mid-answer.", "interrupted", partial="".join(received))

    # -- model management

    def ping(self) -> None:
        """Raise LLMError unless an Ollama server answers at host."""
        self._get_json("/api/version", timeout=min(5.0, self.timeout_s))

    def list_models(self) -> list[str]:
        data = self._get_json("/api/tags", timeout=min(10.0, self.timeout_s))
        models = data.get("models")
        if not isinstance(models, list):
            raise LLMError("Ollama sent a malformed reply: /api/tags has no model list.", "malformed")
        return [m.get("name") or m.get("model") for m in models if isinstance(m, dict)]

    def has_model(self, name: str | None = None) -> bool:
        name = name or self.model
        # Ollama reports "llama3.1:latest" for a model pulled as "llama3.1".
        wanted = {name, f"{name}:latest"} if ":" not in name else {name}
        return any(m in wanted for m in self.list_models())

    def pull(self, model: str | None = None, progress_cb: Callable[[PullProgress], None] | None = None) -> None:
        model = model or self.model
        for line in self._post_lines("/api/pull", {"model": model, "stream": True}, []):
            progress = PullProgress(str(line.get("status", "")), line.get("completed"), line.get("total"))
            if progress_cb:
                progress_cb(progress)
            if progress.status == "success":
                return
        raise LLMError(f"Pulling '{model}' stopped before Ollama reported success.", "interrupted")

    # -- transport and error mapping

    def _get_json(self, path: str, *, timeout: float) -> dict[str, Any]:
        try:
            response = self._client.get(path, timeout=timeout)
        except httpx.HTTPError as exc:
            raise self._map_transport_error(exc, "", timeout) from exc
        self._raise_for_status(response.status_code, response.text)
        try:
            data = response.json()
        except ValueError as exc:
            raise LLMError(f"Ollama sent a malformed reply: {response.text[:200]!r}", "malformed") from exc
        if not isinstance(data, dict):
            raise LLMError(f"Ollama sent a malformed reply: {response.text[:200]!r}", "malformed")
        return data

    def _post_lines(self, path: str, body: dict[str, Any], received: list[str]) -> Iterator[dict[str, Any]]:
        """Yield each NDJSON object of a streamed reply; `received` lets errors carry the partial text."""
        try:
            with self._client.stream("POST", path, json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    self._raise_for_status(response.status_code, response.text, body.get("model"))
                for raw in response.iter_lines():
                    if not raw.strip():
                        continue
                    try:
                        line = json.loads(raw)
                    except ValueError as exc:
                        raise LLMError(f"Ollama sent a malformed reply: {raw[:200]!r}", "malformed") from exc
                    if not isinstance(line, dict):
                        raise LLMError(f"Ollama sent a malformed reply: {raw[:200]!r}", "malformed")
                    if "error" in line:
                        self._raise_for_status(500, json.dumps(line), body.get("model"))
                    yield line
        except httpx.HTTPError as exc:
            raise self._map_transport_error(exc, "".join(received)) from exc

    def _map_transport_error(self, exc: httpx.HTTPError, partial: str, timeout: float | None = None) -> LLMError:
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return LLMError(f"Ollama is not running at {self.host}. Start it with `ollama serve`.", "unreachable")
        if isinstance(exc, httpx.TimeoutException):
            waited = self.timeout_s if timeout is None else timeout
            return LLMError(f"Ollama did not answer within {waited:g} s.", "timeout", partial=partial)
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            return LLMError("The connection to Ollama dropped mid-answer.", "interrupted", partial=partial)
        return LLMError(f"Talking to Ollama at {self.host} failed: {exc}", "unreachable", partial=partial)

    def _raise_for_status(self, status: int, text: str, model: str | None = None) -> None:
        if status < 400:
            return
        try:
            error = str(json.loads(text).get("error", text))
        except (ValueError, AttributeError):
            error = text
        model = model or self.model
        if status == 404 and "not found" in error.lower():
            raise LLMError(f"Model '{model}' is not pulled. Run `ollama pull {model}`.", "model_missing")
        if status in (401, 403):
            raise LLMError(
                f"Ollama at {self.host} refused the token (HTTP {status}). Check the bearer token in the keyring.",
                "rejected",
            )
        raise LLMError(f"Ollama answered with an error (HTTP {status}): {error[:300]}", "rejected")


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


# ---------------------------------------------------------------------------------------------- Choice


@dataclass
class LLMChoice:
    model: ChatModel | None
    notice: str


def build_chat_model(settings: Settings, token: str | None = None) -> LLMChoice:
    """Pick the backend named by settings.llm_backend; "auto" prefers a running Ollama with the model pulled."""
    backend = settings.llm_backend.lower()
    if backend == "none":
        return LLMChoice(None, "No language model configured: answers show the retrieved passages only.")
    if backend == "embedded":
        return LLMChoice(_embedded(settings), "Using the embedded Gemma 3 270M model (small and slow, CPU only).")
    if backend not in ("ollama", "auto"):
        raise ValueError(f"Unknown llm_backend {settings.llm_backend!r}; use auto, ollama, embedded or none.")

    ollama = OllamaChat.from_settings(settings, token)
    try:
        ollama.ping()
        present = ollama.has_model()
    except LLMError as exc:
        if backend == "ollama":
            # Chosen explicitly: keep it, and each call will fail with the same actionable message.
            return LLMChoice(ollama, exc.message)
        ollama.close()
        return LLMChoice(
            _embedded(settings),
            f"{exc.message} Until then, answers come from the embedded Gemma 3 270M model, "
            "which is small and slow.",
        )
    if present:
        return LLMChoice(ollama, f"Using Ollama model '{ollama.model}' at {ollama.host}.")
    pull_hint = f"Model '{ollama.model}' is not pulled. Run `ollama pull {ollama.model}`."
    if backend == "ollama":
        return LLMChoice(ollama, pull_hint)
    ollama.close()
    return LLMChoice(_embedded(settings), f"{pull_hint} Until then, answers come from the embedded Gemma 3 270M model.")


def _embedded(settings: Settings) -> ChatModel:
    from assistant.llm_embedded import EmbeddedChat

    return EmbeddedChat(settings.models_dir, settings.embedded_llm_precision)


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
