"""The embedder: bfloat16 where the CPU has it, vectors that still agree with float32, chunks that fit the model, and
token counting that is safe beside a concurrent embedding."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from conftest import run_in_threads
from pydantic import ValidationError

from assistant.backends.embedder import cpu_has_native_bf16, resolve_precision
from assistant.components import get_embedder
from assistant.settings import PROJECT_ROOT, Settings

ZEN4 = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu vme avx2 avx512f avx512dq avx512_bf16 avx512_vnni
"""
SKYLAKE = """processor\t: 0
model name\t: Intel(R) Xeon(R)
flags\t\t: fpu vme avx2 avx512f avx512dq avx512_vnni
"""
SAPPHIRE_RAPIDS = "flags\t\t: fpu avx512f amx_tile amx_bf16 amx_int8\n"
GRAVITON3 = "processor\t: 0\nFeatures\t: fp asimd sve bf16 i8mm\n"


@pytest.mark.parametrize(("cpuinfo", "native"), [
    (ZEN4, True), (SAPPHIRE_RAPIDS, True), (GRAVITON3, True), (SKYLAKE, False), ("", False),
    ("flags : avx512_bf16_emulated\n", False),
])
def test_native_bf16_is_read_from_the_cpu_flags(cpuinfo, native):
    assert cpu_has_native_bf16(cpuinfo) is native


def test_precision_auto_follows_the_cpu_and_bad_values_are_refused():
    assert resolve_precision("auto") == ("bfloat16" if cpu_has_native_bf16() else "float32")
    assert resolve_precision("float32") == "float32"
    with pytest.raises(ValueError, match="float32 or bfloat16"):
        resolve_precision("int8")
    with pytest.raises(ValidationError):
        Settings(embedding_precision="fp8")


PASSAGES = [
    "etcd --snapshot-count: number of committed transactions to trigger a snapshot to disk.",
    "Prometheus remote write queue_config max_shards sets the maximum number of shards, i.e. concurrency.",
    "To resize an Amazon RDS DB instance, modify the instance class, for example to db.m5.large.",
    "The OTLP receiver accepts metrics on /api/v1/otlp when the feature flag is enabled.",
    "SSL_ERROR_SYSCALL usually means the TCP connection was reset during the TLS handshake.",
] * 3
QUERIES = ["how often does etcd snapshot", "remote write concurrency", "change RDS instance size",
           "where do I send OTLP metrics", "TLS handshake connection reset error"]


def test_bfloat16_vectors_agree_with_float32():
    """Measured on 1,500 AWS passages: cosine 0.99998 on average, top-10 neighbours 99.4% the same. Here: every
    vector within 0.999 cosine, unit length, and each query finds the same passage first."""
    fp32 = get_embedder(Settings(models_dir=PROJECT_ROOT / "models", embedding_precision="float32"))
    bf16 = get_embedder(Settings(models_dir=PROJECT_ROOT / "models", embedding_precision="bfloat16"))
    assert (fp32.precision, bf16.precision) == ("float32", "bfloat16")
    assert "bfloat16" in bf16.description
    a, b = fp32.embed(PASSAGES + QUERIES), bf16.embed(PASSAGES + QUERIES)
    assert b.dtype == np.float32 and b.shape == a.shape
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert float((a * b).sum(axis=1).min()) > 0.999
    n = len(PASSAGES)
    assert list((a[n:] @ a[:5].T).argmax(axis=1)) == list((b[n:] @ b[:5].T).argmax(axis=1)) == [0, 1, 2, 3, 4]


def test_search_chunks_fit_the_model_even_under_a_very_long_heading():
    """A heading of ~150 word pieces (the AWS guides have some) is shortened to MAX_PREFIX_TOKENS with "…", and runs
    without spaces are cut by tokens: every search chunk, prefix included, stays within the 200-word-piece budget and
    so within the model's 256, and no text is lost."""
    from assistant.library.chunking import (
        MAX_PREFIX_TOKENS,
        DualChunkParser,
        embed_text,
        section_documents,
    )
    from assistant.library.documents import ParsedDocument, Section

    embedder = get_embedder(Settings(models_dir=PROJECT_ROOT / "models"))
    heading = " ".join(f"aws_resource_{i}.property_name_{i}" for i in range(12))  # identifiers: many word pieces
    body = " ".join(f"The parameter param_{i} controls replication of shard {i}." for i in range(300))
    body += "\n\n" + "|---" * 500 + "\n\n" + "=+" * 400  # runs without spaces, a token per character or two
    doc = ParsedDocument(title="RDS guide", sections=[Section(text=body, section_path=["Limits", heading])], kind="markdown")
    parser = DualChunkParser(embedder.count_tokens, search_tokens=200, context_tokens=700, padding_tokens=80)
    searches = [n for n in parser.get_nodes_from_documents(section_documents(doc, product="p", release="r", path="a.md"))
                if n.metadata["kind"] == "search"]
    full_prefix = embedder.count_tokens([f"RDS guide\nLimits > {heading}\n\n"])[0]
    assert full_prefix > 100 and len(searches) > 20
    prefixes = {n.metadata["prefix"] for n in searches}
    assert len(prefixes) == 1
    [prefix] = prefixes
    assert prefix.startswith("RDS guide\n") and prefix.endswith(" …\n\n")
    assert embedder.count_tokens([prefix])[0] <= MAX_PREFIX_TOKENS
    assert max(embedder.count_tokens([embed_text(n) for n in searches])) <= 200
    assert "".join("".join(n.get_content().split()) for n in searches) == "".join(body.split())


def test_counting_tokens_while_another_thread_embeds_breaks_neither():
    """The sync's chunker counts tokens while a question's query is embedded (the app's chat thread), through one
    tokenizer. Unlocked, the count cleared the padding that encode had just set, and the embedding failed within a
    second with "Unable to create tensor"."""
    embedder = get_embedder(Settings())
    long = "etcd stores keys in a b-tree and answers range requests " * 60
    expected = embedder.count_tokens([long, "x y"])
    reference = embedder.embed(["lease?", long, "b"])
    done = threading.Event()
    rounds = [0, 0]

    def count() -> None:
        while not done.is_set():
            assert embedder.count_tokens([long, "x y"]) == expected
            rounds[0] += 1

    def embed() -> None:
        try:
            t0 = time.monotonic()
            while time.monotonic() - t0 < 4:
                assert np.allclose(embedder.embed(["lease?", long, "b"]), reference, atol=1e-4)
                rounds[1] += 1
        finally:
            done.set()

    assert run_in_threads(count, embed) == []
    assert min(rounds) > 0


def test_a_question_is_encoded_once_however_many_stages_embed_it(monkeypatch):
    from assistant.backends import embedder as module

    emb = get_embedder(Settings())
    encoded: list[list[str]] = []
    real = emb._encode
    monkeypatch.setattr(emb, "_encode", lambda texts: encoded.append(list(texts)) or real(texts))
    question = "How do I rotate the access keys of an IAM user? (memo test)"
    first = emb.embed([question])
    again = emb.embed([question, "a rewrite of it (memo test)"])  # the retrieval stage's batch: one new text
    assert encoded == [[question], ["a rewrite of it (memo test)"]]
    assert np.array_equal(first[0], again[0])
    again[0, 0] = 9.0  # what a caller gets is its own copy
    assert emb.embed([question])[0, 0] != 9.0
    chunks = [f"chunk {i} of a sync (memo test)" for i in range(module.QUERY_BATCH + 1)]
    emb.embed(chunks)
    emb.embed(chunks)
    assert encoded[-2:] == [chunks, chunks]  # a sync's batches are not remembered
    for i in range(module.QUERY_MEMO):  # questions asked since, the question itself now the oldest
        emb._memo[f"filler {i}"] = first[0]
    emb.embed(["the newest question (memo test)"])
    assert len(emb._memo) == module.QUERY_MEMO and question not in emb._memo  # the oldest went first
    emb.embed([question])
    assert encoded[-1] == [question]
