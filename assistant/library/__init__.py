"""The offline half: from document folders on disk to a searchable index.

In: `data/library/<product>/<release>/` folders. Out: per-release vectors, lexical weights, the chunk manifest, the
release timeline (sections and identifiers per release, and their diffs) and the catalogue of products and releases
that the answering half searches.
"""
