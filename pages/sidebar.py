"""The documents sidebar, on every page: ingestion progress, upload into a product and release, rescan."""

import streamlit as st

from assistant import app as svc

NEW = "New…"


def documents(services: svc.Services) -> None:
    st.subheader("Documents")
    running = services.ingest.snapshot().running
    st.fragment(run_every=1.0 if running else None)(_progress)(services)
    catalogue = services.catalogue()
    with st.expander("Add documents", expanded=not catalogue, icon=":material/upload_file:"):
        _upload(services, catalogue)
    if st.button("Rescan library", help="Index folders copied into the library folder by hand",
                 icon=":material/sync:"):
        services.start_sync()
        st.rerun()


def _upload(services: svc.Services, catalogue: dict[str, list[str]]) -> None:
    state = st.session_state
    n = state.setdefault("upload_round", 0)  # a new round after each upload: fresh, empty widgets
    files = st.file_uploader("Files or a .zip", accept_multiple_files=True, key=f"upload_{n}",
                             help="PDF, Word (.docx), HTML, Markdown, reStructuredText or text; a zip keeps its folders.")
    products = [*catalogue, NEW]
    last = state.get("upload_report")
    product = st.selectbox("Into product", products, key=f"up_product_{n}",
                           index=products.index(last.product) if last and last.product in products else 0)
    if product == NEW:
        product = st.text_input("New product name", key=f"up_new_product_{n}", placeholder="e.g. etcd").strip()
    releases = [*catalogue.get(product, []), NEW]
    release = st.selectbox("Release", releases, key=f"up_release_{n}",
                           index=releases.index(last.release) if last and last.release in releases else 0)
    if release == NEW:
        release = st.text_input("New release name", key=f"up_new_release_{n}", placeholder="e.g. v3.5").strip()
    if st.button("Add and index", type="primary", disabled=not (files and product and release)):
        try:
            state.upload_report = services.add_uploads(product, release, [(f.name, f.getvalue()) for f in files])
            state.upload_round += 1
            st.rerun()
        except svc.LibraryError as exc:
            st.error(str(exc))
    if last is not None:
        if last.saved:
            where = f"{svc.md_escape(last.product)} {svc.md_escape(last.release)}"
            st.caption(f"Added {len(last.saved)} file(s) to {where}.")
            if not last.started:
                st.info("Another ingestion was running: press *Rescan library* when it has finished.")
        for name, reason in last.refused:
            st.warning(f"Refused {svc.md_escape(name)}: {reason}")


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
        st.button("Cancel", on_click=services.ingest.cancel, key="cancel_ingest", icon=":material/cancel:")
        return
    if state.pop("ingest_seen_running", False):
        st.rerun(scope="app")  # finished: refresh the selectors everywhere and stop polling
    if not s.label:
        return
    if s.error:
        st.error(f"{s.label} failed: {svc.md_escape(s.error)}")
        return
    reports = s.reports
    indexed = sum(r["files_indexed"] for r in reports)
    removed = sum(r["files_removed"] for r in reports)
    failed = [(r["release"], f["path"], f["error"]) for r in reports for f in r["files_failed"]]
    skipped = [(r["release"], f["path"], f["reason"]) for r in reports for f in r["files_skipped"]]
    text = (f"{'Cancelled' if s.cancelled else 'Indexed'}: {indexed} file(s) indexed, {len(skipped)} skipped, "
            f"{len(failed)} failed, {removed} removed.")
    (st.warning if s.cancelled or failed else st.success)(text)
    # Skipped files are not errors (front matter only, other types, hidden, links out): listed apart from failures.
    for title, rows, icon in (("Failed", failed, ":material/error:"), ("Skipped", skipped, ":material/block:")):
        if rows:
            with st.expander(f"{title} ({len(rows)})", icon=icon, expanded=title == "Failed" and len(rows) <= 5):
                st.text("\n".join(f"{release}/{path}: {reason}" for release, path, reason in rows[:500]))
