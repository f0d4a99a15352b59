"""Ollama: the chat model served by the workstation's GPU, through the official `ollama` Python client.

The client does the HTTP and the NDJSON framing; this module keeps what the assistant promises on top of it: one
`LLMError` kind per fault with a message that says what to do, the partial text of a stream that broke, the bearer
token from the keyring and separate connect and read timeouts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import ollama
from pydantic import ValidationError

from assistant.backends.chat import ChatModel, LLMError, Messages

if TYPE_CHECKING:
    from assistant.settings import Settings


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
        # Connecting to a local daemon is instant or refused; only reads may legitimately take long.
        timeout = httpx.Timeout(timeout_s, connect=min(5.0, timeout_s))
        # A proxy from the environment must not capture requests meant for the local daemon.
        local = urlsplit(self.host).hostname in ("127.0.0.1", "localhost", "::1")
        headers = {"Authorization": f"Bearer {token}"} if token else None
        self._client = ollama.Client(self.host, timeout=timeout, headers=headers, transport=transport,
                                     trust_env=not local)
        if not token:
            # The client would otherwise send OLLAMA_API_KEY from the environment; secrets come from the keyring only.
            self._client._client.headers.pop("authorization", None)

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
        received: list[str] = []
        done = False
        with self._faults(received):
            parts = self._client.chat(self.model, messages, stream=True, format="json" if json_mode else None,
                                      options={"temperature": temperature, "num_predict": max_tokens})
            for part in parts:
                if part.done is True:
                    self.usage.record(int(part.prompt_eval_count or 0), int(part.eval_count or 0))
                    done = True
                    break
                content = part.message.content
                if not isinstance(content, str):
                    raise LLMError(f"Ollama sent a malformed reply: no message content in {part!r:.200}", "malformed")
                received.append(content)
                yield content
        if not done:
            raise LLMError("The connection to Ollama dropped mid-answer.", "interrupted", partial="".join(received))

    # -- model management

    def ping(self) -> None:
        """Raise LLMError unless an Ollama server answers at host (its model list: the one call every version has)."""
        self.list_models()

    def list_models(self) -> list[str]:
        with self._faults([]):
            listed = self._client.list()
        return [m.model for m in listed.models if m.model]

    def has_model(self, name: str | None = None) -> bool:
        name = name or self.model
        # Ollama reports "llama3.1:latest" for a model pulled as "llama3.1".
        wanted = {name, f"{name}:latest"} if ":" not in name else {name}
        return any(m in wanted for m in self.list_models())

    def pull(self, model: str | None = None, progress_cb: Callable[[PullProgress], None] | None = None) -> None:
        model = model or self.model
        with self._faults([], model):
            for line in self._client.pull(model, stream=True):
                progress = PullProgress(str(line.status or ""), line.completed, line.total)
                if progress_cb:
                    progress_cb(progress)
                if progress.status == "success":
                    return
        raise LLMError(f"Pulling '{model}' stopped before Ollama reported success.", "interrupted")

    # -- error mapping

    def _faults(self, received: list[str], model: str | None = None) -> _Faults:
        return _Faults(self, received, model or self.model)

    def _error(self, exc: BaseException, partial: str, model: str) -> LLMError | None:
        """The user-facing error for whatever the client or its transport raised; None for anything else."""
        if isinstance(exc, ollama.ResponseError):
            return self._response_error(exc.status_code, str(exc.error), model)
        # The client turns a refused connection into the built-in ConnectionError.
        if isinstance(exc, (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)):
            return LLMError(f"Ollama is not running at {self.host}. Start it with `ollama serve`.", "unreachable")
        if isinstance(exc, httpx.TimeoutException):
            return LLMError(f"Ollama did not answer within {self.timeout_s:g} s.", "timeout", partial=partial)
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            return LLMError("The connection to Ollama dropped mid-answer.", "interrupted", partial=partial)
        if isinstance(exc, json.JSONDecodeError):  # the client parses each line itself
            return LLMError(f"Ollama sent a malformed reply: {exc.doc[:200]!r}", "malformed", partial=partial)
        if isinstance(exc, (ValueError, ValidationError, TypeError)):  # JSON, but not Ollama's shape
            return LLMError(f"Ollama sent a malformed reply: {str(exc)[:200]}", "malformed", partial=partial)
        if isinstance(exc, httpx.HTTPError):
            return LLMError(f"Talking to Ollama at {self.host} failed: {exc}", "unreachable", partial=partial)
        return None

    def _response_error(self, status: int, error: str, model: str) -> LLMError:
        if "not found" in error.lower() and status in (404, -1):
            return LLMError(f"Model '{model}' is not pulled. Run `ollama pull {model}`.", "model_missing")
        if status in (401, 403):
            return LLMError(
                f"Ollama at {self.host} refused the token (HTTP {status}). Check the bearer token in the keyring.",
                "rejected",
            )
        where = f"HTTP {status}" if status > 0 else "mid-stream"
        return LLMError(f"Ollama answered with an error ({where}): {error[:300]}", "rejected")


class _Faults:
    """Context manager turning the client's exceptions into LLMError, keeping the text a stream had delivered."""

    def __init__(self, chat: OllamaChat, received: list[str], model: str) -> None:
        self.chat, self.received, self.model = chat, received, model

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or isinstance(exc, (LLMError, GeneratorExit)):
            return False
        mapped = self.chat._error(exc, "".join(self.received), self.model)
        if mapped is None:
            return False
        raise mapped from exc
