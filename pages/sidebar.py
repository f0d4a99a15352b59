"""The documents sidebar, on every page: upload into a product and release, rescan, ingestion progress."""

import streamlit as st

from assistant import app_services as svc
from assistant.library import LibraryError

NEW = "New…"


def documents(services: svc.Services) -> None:
    state = st.session_state
    state.setdefault("upload_round", 0)
    st.subheader("Documents")
    catalogue = services.catalogue()
    files = st.file_uploader("Add files or a .zip", accept_multiple_files=True, key=f"upload_{state.upload_round}",
                             help="PDF, HTML, Markdown, reStructuredText or text; a zip keeps its folders.")
    product = st.selectbox("Into product", [*catalogue, NEW], key="up_product")
    if product == NEW:
        product = st.text_input("New product name", key="up_new_product", placeholder="e.g. etcd").strip()
    release = st.selectbox("Release", [*catalogue.get(product, []), NEW], key="up_release")
    if release == NEW:
        release = st.text_input("New release name", key="up_new_release", placeholder="e.g. v3.5").strip()
    if st.button("Add and index", type="primary", disabled=not (files and product and release)):
        try:
            state.upload_report = services.add_uploads(product, release, [(f.name, f.getvalue()) for f in files])
            state.upload_round += 1  # a fresh uploader: the same files are not added twice
            st.rerun()
        except LibraryError as exc:
            st.error(str(exc))
    report = state.get("upload_report")
    if report is not None:
        if report.saved:
            st.caption(f"Added {len(report.saved)} file(s) to {report.product} {report.release}.")
        for name, reason in report.refused:
            st.warning(f"Refused {svc.md_escape(name)}: {reason}")
    if st.button("Rescan library", help="Index folders copied into the library folder by hand"):
        services.start_sync()
    running = services.ingest.snapshot().running
    st.fragment(run_every=1.0 if running else None)(_progress)(services)


def _progress(services: svc.Services) -> None:
    s = services.ingest.snapshot()
    state = st.session_state
    if s.running:
        state.ingest_seen_running = True
        done = s.files_done / s.files_total if s.files_total else 0.0
        where = f"{s.product} {s.release}: " if s.product else ""
        st.progress(done, text=f"{where}{s.files_done}/{s.files_total} files · ETA {svc.format_eta(s.eta_s)}")
        st.caption(f"{s.label}… {s.chunks} chunks so far")
        if s.done_files:
            with st.expander(f"Files done ({len(s.done_files)})"):
                st.text("\n".join(s.done_files[-200:]))
        st.button("Cancel", on_click=services.ingest.cancel, key="cancel_ingest")
        return
    if state.pop("ingest_seen_running", False):
        st.rerun(scope="app")  # finished: refresh the selectors everywhere and stop polling
    if not s.label:
        return
    if s.error:
        st.error(f"{s.label} failed: {s.error}")
    reports = s.reports
    indexed = sum(r["files_indexed"] for r in reports)
    removed = sum(r["files_removed"] for r in reports)
    text = f"{'Cancelled' if s.cancelled else 'Indexed'}: {indexed} file(s) indexed, {removed} removed."
    (st.warning if s.cancelled else st.success)(text)
    for r in reports:
        for f in r["files_failed"]:
            st.error(svc.md_escape(f"{r['release']}/{f['path']}: {f['error']}"))
        for f in r["files_skipped"]:
            st.caption(svc.md_escape(f"Skipped {r['release']}/{f['path']}: {f['reason']}"))
