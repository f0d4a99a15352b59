"""Chat-model seam: OllamaChat against a fake Ollama server, the embedded model for real, the fake, secrets."""

from __future__ import annotations

import time

import keyring
import keyring.errors
import pytest
from keyring.backends import chainer, fail
from memory_keyring import MemoryKeyring

from assistant import secrets
from assistant.backends.chat import (
    ChatModel,
    FakeChat,
    LLMError,
    Usage,
    parse_json_reply,
)
from assistant.backends.embedded_llm import EmbeddedChat, _StopFilter, finalize_text
from assistant.backends.ollama import OllamaChat, PullProgress
from assistant.components import build_chat_model
from assistant.settings import Settings

QUESTION = [{"role": "user", "content": "What is etcd?"}]
MODEL = "llama3.1:8b"


def client(server, **kwargs) -> OllamaChat:
    return OllamaChat(server.url, kwargs.pop("model", MODEL), **kwargs)


# ------------------------------------------------------------------------------------------- Ollama


def test_chat_returns_the_reply_and_counts_usage(ollama_server):
    llm = client(ollama_server)
    assert llm.chat(QUESTION) == "Canned answer to: What is etcd?"
    assert llm.chat(QUESTION) == "Canned answer to: What is etcd?"
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (2, 6, 12)


def test_stream_yields_the_pieces_as_they_arrive(ollama_server):
    pieces = list(client(ollama_server).stream(QUESTION))
    assert pieces == ["Canned ", "answer ", "to: ", "What is etcd?"]


def test_request_shape_with_json_mode(ollama_server):
    reply = client(ollama_server).chat(QUESTION, temperature=0.2, max_tokens=64, json_mode=True)
    assert parse_json_reply(reply) == {"answer": "canned", "question": "What is etcd?"}
    body = ollama_server.requests[-1]["json"]
    assert ollama_server.requests[-1]["path"] == "/api/chat"
    assert body["model"] == MODEL
    assert body["messages"] == QUESTION
    assert body["format"] == "json"
    assert body["options"] == {"temperature": 0.2, "num_predict": 64}
    assert body["stream"] is True


def test_no_format_field_without_json_mode(ollama_server):
    client(ollama_server).chat(QUESTION)
    assert "format" not in ollama_server.requests[-1]["json"]


def test_tags_list_models_and_presence(ollama_server):
    ollama_server.models.append("qwen2.5:latest")
    llm = client(ollama_server)
    assert llm.list_models() == [MODEL, "qwen2.5:latest"]
    assert llm.has_model()
    assert llm.has_model("qwen2.5")  # Ollama's implicit ":latest"
    assert not llm.has_model("mistral")


def test_bearer_token_is_sent_only_when_given(ollama_server):
    client(ollama_server, token="s3cret").chat(QUESTION)
    client(ollama_server).list_models()
    with_token, without = ollama_server.requests
    assert with_token["headers"].get("Authorization") == "Bearer s3cret"
    assert "Authorization" not in without["headers"]


def test_pull_streams_progress(ollama_server):
    seen: list[PullProgress] = []
    client(ollama_server).pull("mistral:7b", seen.append)
    assert seen[0].status == "pulling manifest"
    assert [p.completed for p in seen if p.total] == [0, 2_000_000, 4_000_000]
    assert seen[-1].status == "success"
    assert "mistral:7b" in client(ollama_server).list_models()


def test_ping(ollama_server):
    client(ollama_server).ping()  # the official client has no version call; the model list proves an Ollama answers
    assert ollama_server.requests[-1]["path"] == "/api/tags"


def test_unknown_model_says_how_to_pull_it(ollama_server):
    with pytest.raises(LLMError) as err:
        client(ollama_server, model="mistral:7b").chat(QUESTION)
    assert err.value.kind == "model_missing"
    assert "`ollama pull mistral:7b`" in err.value.message


def test_unknown_model_mode(ollama_server):
    ollama_server.mode = "unknown_model"
    with pytest.raises(LLMError) as err:
        list(client(ollama_server).stream(QUESTION))
    assert err.value.kind == "model_missing"
    assert "ollama pull" in str(err.value)


def test_server_not_running_says_how_to_start_it(ollama_server):
    ollama_server.mode = "refuse"
    llm = client(ollama_server)
    for call in (llm.ping, lambda: llm.chat(QUESTION), llm.list_models):
        with pytest.raises(LLMError) as err:
            call()
        assert err.value.kind == "unreachable"
        assert "`ollama serve`" in err.value.message
        assert ollama_server.url in err.value.message


def test_slow_server_times_out(ollama_server):
    ollama_server.mode = "slow"
    started = time.monotonic()
    with pytest.raises(LLMError) as err:
        client(ollama_server, timeout_s=0.3).chat(QUESTION)
    assert time.monotonic() - started < 2.5  # the server would have answered after 3 s
    assert err.value.kind == "timeout"
    assert "did not answer within 0.3 s" in err.value.message


def test_connection_dropped_mid_stream_keeps_partial_text(ollama_server):
    ollama_server.mode = "die_mid_stream"
    received: list[str] = []
    with pytest.raises(LLMError) as err:
        for piece in client(ollama_server).stream(QUESTION):
            received.append(piece)
    assert received == ["Canned ", "answer "]
    assert err.value.kind == "interrupted"
    assert err.value.partial == "Canned answer "
    assert "dropped mid-answer" in err.value.message


def test_chat_interrupted_also_carries_partial(ollama_server):
    ollama_server.mode = "die_mid_stream"
    with pytest.raises(LLMError) as err:
        client(ollama_server).chat(QUESTION)
    assert (err.value.kind, err.value.partial) == ("interrupted", "Canned answer ")


def test_malformed_reply(ollama_server):
    ollama_server.mode = "malformed"
    with pytest.raises(LLMError) as err:
        client(ollama_server).chat(QUESTION)
    assert err.value.kind == "malformed"
    assert "this is not json" in err.value.message
    with pytest.raises(LLMError) as err:
        client(ollama_server).list_models()
    assert err.value.kind == "malformed"


def test_reply_line_without_content_is_malformed(ollama_server, monkeypatch):
    import ollama_server as fake_module

    # Valid JSON, but not an Ollama chat line: no message.content.
    monkeypatch.setattr(fake_module, "_chat_line", lambda *a, **k: {"done": False})
    with pytest.raises(LLMError) as err:
        client(ollama_server).chat(QUESTION)
    assert err.value.kind == "malformed"

# ---------------------------------------------------------------------------------------- JSON replies


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here is the JSON:\n```json\n{"verdict": "yes", "score": 0.8}\n```\nHope it helps.', {"verdict": "yes", "score": 0.8}),
        ('```\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('The answer is {"a": {"b": "c}"}} and then {"x": 2}', {"a": {"b": "c}"}}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ('junk {not json} then {"ok": true}', {"ok": True}),
        ("[1, 2, 3]", None),
        ("no json here", None),
        ('{"unterminated": ', None),
        ("", None),
    ],
)
def test_parse_json_reply(text, expected):
    assert parse_json_reply(text) == expected


# ------------------------------------------------------------------------------------------------ Fake


def test_fake_chat_records_prompts_and_replies_from_queue():
    fake = FakeChat(default_reply="(default)")
    fake.enqueue(["first", '{"x": 1}'])
    assert isinstance(fake, ChatModel)
    assert fake.chat(QUESTION) == "first"
    assert fake.chat([{"role": "user", "content": "json please"}], json_mode=True) == '{"x": 1}'
    assert fake.chat(QUESTION) == "(default)"
    assert list(fake.stream(QUESTION)) == ["(default)"]
    assert fake.history[1] == [{"role": "user", "content": "json please"}]
    assert fake.calls[1]["json_mode"] is True
    assert len(fake.history) == 4


def test_usage_snapshots_subtract_per_question():
    fake = FakeChat(["one two"])
    before = fake.usage.snapshot()
    fake.chat(QUESTION)
    delta = fake.usage.snapshot() - before
    assert (delta.calls, delta.prompt_tokens, delta.completion_tokens) == (1, 3, 2)
    assert isinstance(delta, Usage)


# ----------------------------------------------------------------------------------- Backend choice


def settings_for(url: str, backend: str, tmp_path, offline: str = "embedded") -> Settings:
    return Settings(ollama_host=url, ollama_model=MODEL, llm_backend=backend, models_dir=tmp_path,
                    offline_answer=offline)


def test_auto_uses_ollama_when_running_with_model(ollama_server, tmp_path):
    choice = build_chat_model(settings_for(ollama_server.url, "auto", tmp_path), token="t")
    assert isinstance(choice.model, OllamaChat)
    assert MODEL in choice.notice
    assert ollama_server.requests[-1]["headers"]["Authorization"] == "Bearer t"


def test_auto_falls_back_to_embedded_when_ollama_is_down(ollama_server, tmp_path):
    ollama_server.mode = "refuse"
    choice = build_chat_model(settings_for(ollama_server.url, "auto", tmp_path), None)
    assert isinstance(choice.model, EmbeddedChat)
    assert choice.model._hf_model is None  # chosen, not loaded: loading waits for the first question
    assert "not running" in choice.notice and "`ollama serve`" in choice.notice
    assert "embedded" in choice.notice
    assert list(tmp_path.iterdir()) == []


def test_auto_without_ollama_quotes_the_sources_by_default(ollama_server, tmp_path):
    ollama_server.mode = "refuse"
    assert Settings().offline_answer == "extractive"
    choice = build_chat_model(settings_for(ollama_server.url, "auto", tmp_path, offline="extractive"))
    assert (choice.model, choice.extractive) == (None, True)
    assert "`ollama serve`" in choice.notice and "quote the sentences of the sources" in choice.notice
    explicit = build_chat_model(settings_for(ollama_server.url, "extractive", tmp_path))
    assert (explicit.model, explicit.extractive) == (None, True)


def test_auto_falls_back_when_model_not_pulled(ollama_server, tmp_path):
    ollama_server.models = ["other:1b"]
    choice = build_chat_model(settings_for(ollama_server.url, "auto", tmp_path))
    assert isinstance(choice.model, EmbeddedChat)
    assert f"`ollama pull {MODEL}`" in choice.notice


def test_explicit_backends(ollama_server, tmp_path):
    assert build_chat_model(settings_for(ollama_server.url, "none", tmp_path)).model is None
    assert isinstance(build_chat_model(settings_for(ollama_server.url, "embedded", tmp_path)).model, EmbeddedChat)
    ollama_server.mode = "refuse"
    choice = build_chat_model(settings_for(ollama_server.url, "ollama", tmp_path))
    assert isinstance(choice.model, OllamaChat)  # chosen explicitly, so kept, with the reason it will fail
    assert "`ollama serve`" in choice.notice
    with pytest.raises(ValueError, match="llm_backend"):
        build_chat_model(settings_for(ollama_server.url, "gpt", tmp_path))


# -------------------------------------------------------------------------------------- Embedded model


def test_stop_filter_streams_exactly_what_finalize_keeps():
    raw = ["  The", " port", " is", " 2379", ".\n", "\nQues", "tion:", " what", " else"]
    f = _StopFilter()
    streamed = "".join(f.feed(p) for p in raw) + f.flush()
    assert streamed == finalize_text("".join(raw)) == "The port is 2379."
    f = _StopFilter()
    assert "".join(f.feed(p) for p in ["\nQ", "uick answer  "]) + f.flush() == "Quick answer"


@pytest.fixture(scope="module")
def embedded() -> EmbeddedChat:
    # The real models_dir, so the converted-model cache is shared by every test run.
    return EmbeddedChat(Settings().models_dir)


ETCD_PROMPT = [
    {"role": "system", "content": "etcd stores data in a key-value store. The default client port is 2379."},
    {"role": "user", "content": "What is the default client port of etcd?"},
]


def test_embedded_model_generates_and_streams_the_same_text(embedded):
    start = time.perf_counter()
    text = embedded.chat(ETCD_PROMPT, max_tokens=12)
    elapsed = time.perf_counter() - start
    assert embedded.loaded_from in ("gguf", "cache")
    assert (embedded.models_dir / "gemma3-270m-hf" / "model.safetensors").is_file()
    assert text.strip()
    assert "2379" in text
    assert embedded.usage.calls == 1
    assert 0 < embedded.usage.completion_tokens <= 12
    print(
        f"\nembedded: loaded from {embedded.loaded_from} in {embedded.load_seconds:.1f} s; "
        f"{embedded.usage.completion_tokens} tokens in {elapsed - embedded.load_seconds:.1f} s: {text!r}"
    )

    pieces = list(embedded.stream(ETCD_PROMPT, max_tokens=12))
    assert len(pieces) >= 1
    assert "".join(pieces) == text
    assert embedded.usage.calls == 2


def test_embedded_model_in_float32_answers_as_in_bfloat16(embedded):
    """Both precisions load from the same float32 cache and find the fact. Greedy text can diverge on long prompts
    (benchmarks/precision_bench.py --llm prints both), so only the fact is asserted."""
    import torch

    fp32 = EmbeddedChat(Settings().models_dir, precision="float32")
    a = fp32.chat(ETCD_PROMPT, max_tokens=12)
    bf16 = EmbeddedChat(Settings().models_dir, precision="bfloat16")
    b = bf16.chat(ETCD_PROMPT, max_tokens=12)
    assert (fp32._hf_model.dtype, bf16._hf_model.dtype) == (torch.float32, torch.bfloat16)
    assert "2379" in a and "2379" in b


def test_fake_ollama_answers_with_the_embedded_model(ollama_server, embedded):
    def responder(request):
        options = request.get("options", {})
        return embedded.stream(
            request["messages"], temperature=options.get("temperature", 0.0), max_tokens=options["num_predict"]
        )

    ollama_server.responder = responder
    expected = embedded.chat(ETCD_PROMPT, max_tokens=8)
    reply = client(ollama_server).chat(ETCD_PROMPT, max_tokens=8)
    assert reply == expected
    assert reply.strip() and "Canned" not in reply


# ------------------------------------------------------------------------------------------- Secrets


@pytest.fixture
def use_keyring():
    previous = keyring.get_keyring()

    def use(backend):
        keyring.set_keyring(backend)
        return backend

    yield use
    keyring.set_keyring(previous)


def test_secrets_round_trip_in_the_keyring(use_keyring):
    store = use_keyring(MemoryKeyring())
    assert secrets.get_secret("ollama-token") is None
    secrets.set_secret("ollama-token", "abc123")
    assert store.entries == {("docs-assistant", "ollama-token"): "abc123"}
    assert secrets.get_secret("ollama-token") == "abc123"
    secrets.delete_secret("ollama-token")
    secrets.delete_secret("ollama-token")  # already gone: still fine
    assert secrets.get_secret("ollama-token") is None
    with pytest.raises(ValueError):
        secrets.set_secret("ollama-token", "")


class EmptyChainer(chainer.ChainerBackend):
    backends = []


@pytest.mark.parametrize("backend", [fail.Keyring(), EmptyChainer()], ids=["fail", "empty-chainer"])
def test_no_usable_keyring_is_a_clear_error(use_keyring, backend):
    use_keyring(backend)
    for call in (lambda: secrets.get_secret("x"), lambda: secrets.set_secret("x", "v"), lambda: secrets.delete_secret("x")):
        with pytest.raises(secrets.KeyringUnavailable) as err:
            call()
        assert "No usable system keyring" in str(err.value)
        assert "never writes them to files" in str(err.value)
