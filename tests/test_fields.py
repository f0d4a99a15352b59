"""The search fields of issue 15 (library/fields.py, store.SearchSpec.probes): pure decisions on real corpus text."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.library import fields as fl
from assistant.library.lexical import term_index
from assistant.library.store import ALL_VECTORS, DENSE, SPARSE, SearchSpec

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def test_identifiers_are_kept_whole_and_normalised():
    text = ("Use --snapshot-count or `max-request-bytes`; see storage.tsdb.retention.time, "
            "prometheus_tsdb_head_series, PutObject, dbSizeQuota and metadata-wal-records. A read-only e.g. -v flag.")
    assert fl.identifiers(text) == ["snapshot-count", "max-request-bytes", "storage.tsdb.retention.time",
                                    "prometheus_tsdb_head_series", "putobject", "dbsizequota", "metadata-wal-records"]
    assert fl.query_identifiers("Which flag, --enable-feature=metadata-wal-records?") == [
        "enable-feature", "metadata-wal-records"]
    assert fl.query_identifiers("How do I back up a cluster?") == []


def test_the_chunk_that_defines_an_identifier_outweighs_one_that_mentions_it():
    # etcd v3.5's configuration reference lists each flag at the start of its line (a definition) ...
    text = (CORPORA / "etcd" / "v3.5" / "op-guide" / "configuration.md").read_text()
    assert "snapshot-count" in fl.defined_identifiers(text, "Configuration flags")
    indices, values = fl.ident_sparse(text, "Configuration flags")
    weight = dict(zip(indices, values))[term_index("snapshot-count")]
    # ... while a narrative sentence only mentions it.
    prose = "Raise --snapshot-count when the cluster writes many keys."
    mention = dict(zip(*fl.ident_sparse(prose, "Tuning")))[term_index("snapshot-count")]
    assert weight == fl.DEFINED_WEIGHT and mention == 1.0


def test_a_heading_defines_what_it_names():
    assert fl.defined_identifiers("The number of revisions to keep.", "Flags > --auto-compaction-retention") == {
        "auto-compaction-retention"}


def test_short_fields_come_from_metadata_and_file_names_lose_their_extension():
    md = {"title": "Configuration flags", "section": "Clustering > --initial-cluster", "path": "op-guide/configuration.md"}
    assert fl.field_texts(md) == {fl.TITLE: "Configuration flags", fl.HEADING: "Clustering > --initial-cluster",
                                  fl.FILE: "op-guide/configuration"}
    assert fl.heading_text(md) == "Configuration flags\nClustering > --initial-cluster"
    assert set(fl.sparse_fields(md, "text")) == set(fl.SPARSE_FIELDS)


def test_probes_add_each_field_only_where_it_can_search():
    vec = np.ones(4, dtype=np.float32)
    fields = {fl.TITLE: 1.0, fl.IDENT: 2.0, fl.HEADING_DENSE: 1.0, fl.FILE: 0.3}
    spec = SearchSpec([vec], ["snapshot count"], fields=fields, field_query="default --snapshot-count",
                      identifiers=["snapshot-count"])
    # A weight is a number of votes: the identifier list is fused twice, the file name (0.3) not at all.
    assert [(p.using, p.limit) for p in spec.probes()] == [
        (DENSE, 20), (SPARSE, 20), (fl.TITLE, 20), (fl.IDENT, 3), (fl.IDENT, 3), (fl.HEADING_DENSE, 20)]
    # No identifier in the question: no identifier prefetch. An index made before the fields: body only.
    no_ident = SearchSpec([vec], ["backup"], fields=fields, field_query="backup")
    assert fl.IDENT not in [p.using for p in no_ident.probes()]
    assert [p.using for p in spec.probes({DENSE, SPARSE})] == [DENSE, SPARSE]
    # Unfused searches return each list whole: the fields are a fused search's only.
    unfused = SearchSpec([vec], ["backup"], fuse=False, fields=fields, field_query="backup")
    assert [p.using for p in unfused.probes(set(ALL_VECTORS))] == [DENSE, SPARSE]
