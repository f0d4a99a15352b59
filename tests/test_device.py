"""ASSISTANT_DEVICE: auto takes a GPU when there is one, a forced GPU that is absent is one clear error (CLI and
Settings page), the device is reported by `assistant ingest`, and half-precision vectors (what a GPU computes) agree
with float32 ones, so the index recipe leaves the device out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from assistant.backends.device import BATCH_SIZES, Device, DeviceUnavailable, resolve_device
from assistant.components import device_summary, get_embedder
from assistant.library.recipe import index_recipe
from assistant.settings import PROJECT_ROOT, Settings

ETCD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "etcd" / "v3.5"
HAS_CUDA = torch.cuda.is_available()
HAS_MPS = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
PASSAGES = [
    "--snapshot-count: number of committed transactions to trigger a snapshot to disk. Default: 100000.",
    "etcdctl defrag defragments the backend database file of each member to return space to the file system.",
    "Prometheus evaluates recording rules at the interval given by evaluation_interval, one minute by default.",
    "The lease keep-alive request refreshes the TTL of a lease so that its keys are not deleted.",
    "Elastic Load Balancing distributes incoming traffic across targets in one or more Availability Zones.",
]


def test_auto_takes_cuda_then_mps_then_the_cpu():
    expected = "cuda" if HAS_CUDA else "mps" if HAS_MPS else "cpu"
    device = resolve_device("auto")
    assert device.name == expected
    assert resolve_device("cpu") == Device("cpu")
    assert Settings().device == "auto"


def test_batches_and_precision_follow_the_device():
    assert Device("cpu").batch_size() == BATCH_SIZES["cpu"] < Device("cuda", "x").batch_size() == BATCH_SIZES["cuda"]
    assert Device("cuda", "x").batch_size(32) == 32, "a batch size the user set wins"
    assert (Device("cpu").half, Device("cuda").half, Device("mps").half) == (None, "float16", "float16")
    assert device_summary(Settings(device="cpu")).startswith("cpu, ")


@pytest.mark.skipif(HAS_CUDA, reason="this machine has a CUDA GPU")
def test_forced_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(DeviceUnavailable) as err:
        resolve_device("cuda")
    assert "ASSISTANT_DEVICE=cuda" in str(err.value) and "finds no CUDA GPU" in str(err.value)
    assert "ASSISTANT_DEVICE=auto" in str(err.value), "the message says what to set instead"
    with pytest.raises(DeviceUnavailable):
        resolve_device("tpu")


@pytest.mark.skipif(HAS_CUDA, reason="this machine has a CUDA GPU")
def test_forced_cuda_in_the_cli_is_a_message_and_exit_code_2_not_a_traceback(tmp_path):
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(tmp_path / "data"), "ASSISTANT_DEVICE": "cuda"}
    for args in (["ingest", str(ETCD / "demo.md"), "--product", "etcd", "--release", "v3.5"], ["ask", "what is etcd?"]):
        done = subprocess.run([sys.executable, "-m", "assistant", *args], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("error: ASSISTANT_DEVICE=cuda, but PyTorch"), done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "data" / "library" / "etcd").exists(), "nothing was copied before the refusal"


def test_ingest_reports_the_device_in_text_and_json(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ETCD / "demo.md", src / "demo.md")
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(tmp_path / "data"), "ASSISTANT_MODELS_DIR": str(PROJECT_ROOT / "models")}
    env.pop("ASSISTANT_DEVICE", None)
    base = [sys.executable, "-m", "assistant", "ingest", str(src), "--product", "etcd"]
    text = subprocess.run([*base, "--release", "v3.5"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert text.returncode == 0, text.stderr
    device = resolve_device("auto").label()
    assert f"embedding on {device}, " in text.stdout
    as_json = subprocess.run([*base, "--release", "v3.6", "--json"], cwd=PROJECT_ROOT, env=env, capture_output=True,
                             text=True, timeout=600)
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["device"].startswith(f"{device}, ") and report["files_indexed"] == 1


def test_half_precision_vectors_agree_with_float32_and_the_recipe_ignores_the_device():
    """A GPU embeds in float16; the same arithmetic on this CPU must give the float32 vectors back (cosine >= 0.999),
    or an index built on one could not be searched from the other."""
    settings = Settings(device="cpu", embedding_precision="float32")
    reference = get_embedder(settings)
    assert reference.device == Device("cpu") and "on cpu, float32" in reference.description
    reference_vectors = reference.embed(PASSAGES)

    from sentence_transformers import SentenceTransformer

    half = SentenceTransformer(str(reference.path), device="cpu").half()  # what Embedder does on a GPU
    half_vectors = half.encode(PASSAGES, normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)
    cosines = np.sum(reference_vectors * half_vectors, axis=1) / np.linalg.norm(half_vectors, axis=1)
    assert cosines.min() >= 0.999, cosines
    assert index_recipe(Settings(device="cpu")) == index_recipe(Settings(device="cuda")) == index_recipe(Settings())


def test_a_float16_checkpoint_embeds_on_the_cpu_in_float32(tmp_path):
    """A model saved in float16 (as it comes off a GPU) loads on a CPU in float32: without the cast its first layer
    norm stops with "mixed dtype (CPU)", and it was seen doing so on the GPU machine's processor."""
    from safetensors.torch import load_file, save_file

    from assistant.backends.embedder import Embedder

    reference = get_embedder(Settings(device="cpu", embedding_precision="float32"))
    halved = tmp_path / "half-model"
    shutil.copytree(reference.path, halved)
    weights = load_file(halved / "model.safetensors")
    save_file({name: tensor.half().contiguous() for name, tensor in weights.items()}, halved / "model.safetensors",
              metadata={"format": "pt"})

    embedder = Embedder(halved, device=Device("cpu"))
    assert next(embedder.model.parameters()).dtype == torch.float32
    cosines = np.sum(embedder.embed(PASSAGES) * reference.embed(PASSAGES), axis=1)
    assert cosines.min() >= 0.999, cosines
