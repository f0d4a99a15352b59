"""Issue 18: text in Latin-1, cp1252 and UTF-16 and a real Word specification are indexed, their encoding recorded,
and each answers a question (the real pipeline, search only: the ranked first source is the file)."""

from hostile_files import make_docx

from assistant.components import build_indexer, build_pipeline
from assistant.settings import Settings

FILES = {
    "pump-notes.txt": ("latin-1", "Pump notes\n\nThe pl\u00f6ver pump on the caf\u00e9 floor primes in 45 seconds; "
                       "prime it again after a power cut.\n"),
    "valve-guide.md": ("cp1252", "# Valve guide\n\n## Pressure\n\nThe kestrel valve\u2019s \u201crelief\u201d "
                       "setting opens it at 42 kPa \u2014 not lower.\n"),
    "heron-manual.txt": ("utf-16", "Heron manual\n\nThe heron gauge is recalibrated every 30 days with "
                         "heronctl calibrate.\n"),
}
QUESTIONS = {
    "pump-notes.txt": "How long does the plöver pump take to prime?",
    "valve-guide.md": "At what pressure does the kestrel valve open?",
    "heron-manual.txt": "How often is the heron gauge recalibrated?",
    "spec.docx": "How often must the signing key be rotated?",
}


def test_files_in_other_encodings_and_a_word_spec_are_indexed_and_answer(tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("plant", "1.0")
    folder.mkdir(parents=True)
    for name, (encoding, text) in FILES.items():
        (folder / name).write_bytes(text.encode(encoding))
    make_docx(folder / "spec.docx")

    [report] = indexer.sync()
    assert (report.files_indexed, report.files_failed, report.files_skipped) == (4, [], [])
    rows = indexer.manifest.files("plant", "1.0")
    assert {rel: row.encoding for rel, row in rows.items()} == {
        "pump-notes.txt": "latin-1", "valve-guide.md": "cp1252", "heron-manual.txt": "utf-16", "spec.docx": None}
    assert rows["spec.docx"].title == "Key service specification"

    pipeline = build_pipeline(settings, llm=None)
    for name, question in QUESTIONS.items():
        result = pipeline.ask(question, search_only=True).to_json()
        first = result["sources"][0]
        assert first["path"] == name, (question, [s["path"] for s in result["sources"]])
    docx = pipeline.ask(QUESTIONS["spec.docx"], search_only=True).to_json()["sources"][0]
    assert docx["page"] is None and docx["section"] == "Key service specification > Key rotation"
    assert "every 90 days" in docx["text"]
    valve = pipeline.ask(QUESTIONS["valve-guide.md"], search_only=True).to_json()["sources"][0]
    assert "kestrel valve\u2019s \u201crelief\u201d" in valve["text"], "cp1252 punctuation decoded, not mangled"
