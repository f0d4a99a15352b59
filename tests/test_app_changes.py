"""The Library page's "What changed" view (issue 16), driven headlessly with AppTest over a real index: etcd's
configuration page in v3.5 and v3.6."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from assistant.app.changes import display_markdown
from assistant.components import build_indexer
from assistant.settings import PROJECT_ROOT, Settings

pytestmark = pytest.mark.usefixtures("navigation_mode")

APP = Path(__file__).resolve().parents[1] / "app.py"
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def test_what_changed_view_lists_sections_old_beside_new_and_a_term_timeline(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path, models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    for release in ("v3.5", "v3.6"):
        folder = tmp_path / "src" / release / "op-guide"
        folder.mkdir(parents=True)
        shutil.copy(CORPORA / "etcd" / release / "op-guide" / "configuration.md", folder / "configuration.md")
        indexer.library.add(folder.parent, "etcd", release)
    indexer.sync()
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ASSISTANT_LLM_BACKEND", "none")
    at = AppTest.from_file(str(APP), default_timeout=300).run()
    at.switch_page("pages/library.py").run()
    assert not at.exception, at.exception
    assert "What changed" in [t.label for t in at.tabs]
    assert any("v3.5 → v3.6" in m.value for m in at.markdown)
    labels = [e.label for e in at.expander]
    changed = [lab for lab in labels if lab.startswith("changed: op-guide/configuration.md")]
    assert changed, labels
    # Old beside new: the changed section holding --snapshot-count shows 100000 on the left and 10000 on the right.
    # Rendered as Markdown (not shown as raw source in a text box).
    shown_md = [m.value for m in at.markdown]
    assert any("--snapshot-count '100000'" in t for t in shown_md), shown_md[:5]
    assert any("--snapshot-count '10000'" in t for t in shown_md)
    assert not [t.value for t in at.text if "--snapshot-count" in t.value]
    at.multiselect(key="diff_kinds").set_value(["changed"]).run()
    shown = [e.label for e in at.expander if " › " in e.label]
    assert shown and all(lab.startswith("changed") for lab in shown), shown
    at.multiselect(key="diff_kinds").set_value(["renamed"]).run()
    assert [e.label for e in at.expander if " › " in e.label and not e.label.startswith("renamed")] == []
    at.text_input(key="timeline_term").set_value("--log-format").run()
    rows = next(d.value for d in at.dataframe if "present" in d.value.columns)
    assert rows[["release", "present"]].values.tolist() == [["v3.5", False], ["v3.6", True]]


def test_display_markdown_renders_doc_sections_safely():
    """Real sections: Prometheus' alerting rules text names `$labels` and $value (Streamlit would read a bare `$` as
    LaTeX), etcd's pages embed images (not fetched: the alt text stays) and link relative pages (no dead link:
    the text stays); code blocks are left as they are."""
    rules = (CORPORA / "prometheus" / "v3.5.0" / "configuration" / "alerting_rules.md").read_text()
    shown = display_markdown(rules)
    assert "`$labels`" in shown  # inline code untouched
    assert "{{ $labels.<labelname> }}" in shown  # inside a code block: untouched
    security = display_markdown((CORPORA / "etcd" / "v3.6" / "op-guide" / "security.md").read_text())
    assert 'not \\$MY_IP"' in security  # a bare `$` in prose (a heading) is escaped
    setup = (CORPORA / "etcd" / "v3.6" / "tasks" / "operator" / "how-to-setup-cluster.md").read_text()
    shown = display_markdown(setup)
    assert "storage.googleapis.com" not in shown and "01_etcd_clustering_2016050601" in shown
    assert "](" not in security.split("**Basic setup**")[0]  # the relative link "(../authentication)" keeps its text
    assert "RBAC based authentication" in security and "## Basic setup" not in security  # a heading made bold
    monitoring = display_markdown((CORPORA / "etcd" / "v3.6" / "op-guide" / "monitoring.md").read_text())
    assert "etcd-sample-grafana.png" not in monitoring
