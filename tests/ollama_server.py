"""A small Ollama-compatible HTTP server for tests, with switchable misbehaviour.

Speaks the parts of the Ollama API the assistant uses (/api/chat, /api/tags, /api/pull, /api/version) with
Ollama's NDJSON framing over chunked transfer encoding. Replies come from `responder(request) -> str |
Iterable[str]`; plug in `EmbeddedChat.stream` to have a real model answer.

Modes: "normal", "unknown_model", "slow", "die_mid_stream", "malformed", "refuse" (the server is stopped).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], "str | Iterable[str]"]


def canned_responder(request: dict[str, Any]) -> list[str]:
    """Deterministic reply that shows which question arrived."""
    question = next((m["content"] for m in reversed(request.get("messages", [])) if m.get("role") == "user"), "")
    if request.get("format") == "json":
        return [json.dumps({"answer": "canned", "question": question})]
    return ["Canned ", "answer ", "to: ", question]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out or hang up mid-reply are part of the tests, not server bugs.
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, socket.timeout)):
            super().handle_error(request, client_address)


class OllamaServer:
    def __init__(self, models: Iterable[str] = ("llama3.1:8b",), responder: Responder = canned_responder) -> None:
        self.models = list(models)
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.slow_seconds = 3.0
        self._mode = "normal"
        self._release = threading.Event()  # ends "slow" sleeps at shutdown
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}"
        # A short poll interval keeps stop(), run after every test, from costing half a second.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-ollama", daemon=True
        )
        self._running = False

    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in ("normal", "unknown_model", "slow", "die_mid_stream", "malformed", "refuse"):
            raise ValueError(f"unknown mode {value!r}")
        self._mode = value
        if value == "refuse":
            self.stop()

    def start(self) -> OllamaServer:
        self._thread.start()
        self._running = True
        return self

    def stop(self) -> None:
        self._release.set()
        if self._running:
            self._httpd.shutdown()
            self._running = False
        self._httpd.server_close()

    def __enter__(self) -> OllamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(server: OllamaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_OllamaHandler):
        fake = server

    return Handler


class _OllamaHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked replies, as Ollama streams them
    fake: OllamaServer

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    # -- plumbing

    def _record(self, body: Any) -> None:
        self.fake.requests.append(
            # Header names are case-insensitive; recorded in their usual spelling ("Authorization") whatever was sent.
            {"method": self.command, "path": self.path, "json": body,
             "headers": {"-".join(w.capitalize() for w in k.split("-")): v for k, v in self.headers.items()}}
        )

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_chunked(self, content_type: str = "application/x-ndjson") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop_connection(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _misbehave_before_reply(self) -> bool:
        """Apply modes that act before any reply; True when the request has been dealt with."""
        mode = self.fake.mode
        if mode == "slow":
            self.fake._release.wait(self.fake.slow_seconds)
        if mode == "malformed":
            self._start_chunked()
            self._chunk(b"this is not json\n")
            self._end_chunked()
            return True
        return False

    # -- routes

    def do_GET(self) -> None:
        self._record(None)
        if self._misbehave_before_reply():
            return
        if self.path == "/api/version":
            self._send_json(200, {"version": "0.6.0-fake"})
        elif self.path == "/api/tags":
            models = [{"name": m, "model": m, "size": 1, "digest": "0" * 64} for m in self.fake.models]
            self._send_json(200, {"models": models})
        else:
            self._send_json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        body = self._read_json()
        self._record(body)
        if self.path == "/api/chat":
            self._chat(body or {})
        elif self.path == "/api/pull":
            self._pull(body or {})
        else:
            self._send_json(404, {"error": "404 page not found"})

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        if self.fake.mode == "unknown_model" or model not in self.fake.models:
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        if self._misbehave_before_reply():
            return
        now = datetime.now(timezone.utc).isoformat()
        pieces = self.fake.responder(body)
        pieces = [pieces] if isinstance(pieces, str) else pieces
        if body.get("stream", True) is False:
            text = "".join(pieces)
            self._send_json(200, _chat_line(model, now, text, done=True, prompt=body, completion=text))
            return
        self._start_chunked()
        sent: list[str] = []
        for i, piece in enumerate(pieces):
            if self.fake.mode == "die_mid_stream" and i == 2:
                self._drop_connection()
                return
            sent.append(piece)
            self._chunk((json.dumps(_chat_line(model, now, piece, done=False)) + "\n").encode())
        final = _chat_line(model, now, "", done=True, prompt=body, completion="".join(sent))
        self._chunk((json.dumps(final) + "\n").encode())
        self._end_chunked()

    def _pull(self, body: dict[str, Any]) -> None:
        if self._misbehave_before_reply():
            return
        model = body.get("model", "")
        total = 4_000_000
        lines = [{"status": "pulling manifest"}]
        lines += [{"status": "pulling 0123abcd", "digest": "sha256:0123abcd", "total": total, "completed": c}
                  for c in (0, total // 2, total)]
        lines += [{"status": "verifying sha256 digest"}, {"status": "writing manifest"}, {"status": "success"}]
        self._start_chunked()
        for i, line in enumerate(lines):
            if self.fake.mode == "die_mid_stream" and i == 2:
                self._drop_connection()
                return
            self._chunk((json.dumps(line) + "\n").encode())
        self._end_chunked()
        if model not in self.fake.models:
            self.fake.models.append(model)


def _chat_line(
    model: str, created: str, content: str, *, done: bool, prompt: dict | None = None, completion: str = ""
) -> dict[str, Any]:
    line: dict[str, Any] = {
        "model": model,
        "created_at": created,
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    if done:
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in (prompt or {}).get("messages", []))
        line.update(done_reason="stop", prompt_eval_count=prompt_words, eval_count=len(completion.split()))
    return line
