"""Ollama: the chat model served by the workstation's GPU, over its HTTP API."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

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


