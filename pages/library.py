"""Library: products and releases with their files, chunks, last indexing and failures; describe, rename,
order, delete and re-index; what changed between two releases, and a term's timeline."""

import streamlit as st

from assistant import app as svc

services = svc.get_services()
st.title("Library")
overview = services.library_overview()
if overview.empty:
    st.info("The library is empty. Add documents in the sidebar, or copy folders into "
            f"`{services.settings.library_dir}/<product>/<release>/` and press *Rescan library*.")
    st.stop()
st.dataframe(overview, hide_index=True, column_config={
    "last indexed": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm")})

catalogue = services.catalogue()
product = st.selectbox("Product", list(catalogue), key="lib_product")
if product is None:
    st.stop()
releases = catalogue[product]
meta = services.library.meta(product)
describe, manage, changed, rename = st.tabs(["Describe", "Releases", "What changed", "Rename"])

with describe, st.form("meta"):
    display = st.text_input("Display name", meta.display_name)
    description = st.text_area("What these documents are (given to the LLM beside retrieved text)", meta.description)
    aliases = st.text_input("Aliases used in questions, comma-separated", ", ".join(meta.aliases))
    order = st.multiselect("Release order, oldest first (empty: natural version order)", releases,
                           default=[r for r in meta.release_order if r in releases])
    if st.form_submit_button("Save description"):
        services.set_product_meta(product, display_name=display, description=description, aliases=aliases,
                                  release_order=order)
        st.success("Saved.")

with manage:
    release = st.selectbox("Release", releases, key="lib_release")
    if release:
        failures, skipped = services.failures(product, release), services.skipped(product, release)
        failed_tab, skipped_tab = st.tabs([f"Failed ({len(failures)})", f"Skipped ({len(skipped)})"])
        with failed_tab:
            if failures:
                st.markdown(f"**{len(failures)} file(s) failed**: unreadable, corrupt or over a limit. "
                            "Fix or split them and re-index.")
                st.dataframe({"file": [f for f, _ in failures], "reason": [e for _, e in failures]}, hide_index=True,
                             key="failed_files")
            else:
                st.caption("No file failed.")
        with skipped_tab:
            if skipped:
                st.markdown(f"**{len(skipped)} file(s) skipped**: nothing wrong, nothing to index (front matter "
                            "only, another file type, hidden, or a link out of the library).")
                st.dataframe({"file": [s[0] for s in skipped], "reason": [s[1] for s in skipped],
                              "title kept": [s[2] for s in skipped], "description kept": [s[3] for s in skipped]},
                             hide_index=True, key="skipped_files")
            else:
                st.caption("No file skipped.")
        c1, c2 = st.columns(2)
        if c1.button("Re-index this release", icon=":material/refresh:",
                     help="Re-reads files that changed since the last indexing; unchanged files are skipped"):
            if not services.start_sync(product, release):
                st.warning("An ingestion is already running; see the sidebar.")
        confirm = c2.checkbox(f"Yes, delete {release} and its index")
        if c2.button("Delete release", disabled=not confirm, icon=":material/delete:"):
            try:
                services.delete_release(product, release)
                st.rerun()
            except svc.LibraryError as exc:
                st.error(str(exc))

with changed:
    term = st.text_input("Timeline of a term (a flag, key, metric, heading...)", key="timeline_term",
                         placeholder="--snapshot-count")
    if term.strip():
        st.dataframe(services.term_timeline(product, term), hide_index=True, key="term_timeline")
    if len(releases) < 2:
        st.caption("Two releases are needed to compare.")
    else:
        c1, c2, c3 = st.columns([1, 1, 2])
        old = c1.selectbox("From release", releases, index=len(releases) - 2, key="diff_old")
        new = c2.selectbox("To release", releases, index=len(releases) - 1, key="diff_new")
        where = c3.text_input("Only files or headings containing", key="diff_filter", placeholder="configuration")
        rows = services.what_changed(product, old, new) if old != new else []
        counts = {k: sum(r.kind == k for r in rows) for k in ("changed", "added", "removed", "renamed")}
        st.markdown(f"**{old} → {new}**: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + " sections "
                    "(release notes and upgrade guides first)")
        kinds = st.multiselect("Show", list(counts), default=list(counts), key="diff_kinds")
        shown = [r for r in rows if r.kind in kinds and where.lower() in r.label.lower()]
        for r in shown[:60]:
            with st.expander(("release notes · " if r.release_notes else "") + r.label):
                if r.kind in ("changed", "renamed"):
                    left, right = st.columns(2)
                    left.caption(f"{old}: {r.old_heading}")
                    left.markdown(svc.display_markdown(r.old_text))
                    right.caption(f"{new}: {r.heading}")
                    right.markdown(svc.display_markdown(r.new_text))
                else:
                    st.caption(old if r.kind == "removed" else new)
                    st.markdown(svc.display_markdown(r.old_text or r.new_text))
        if len(shown) > 60:
            st.caption(f"… and {len(shown) - 60} more: narrow them with the filter above.")

with rename, st.form("rename"):
    new = st.text_input("New folder name", product)
    st.caption("The index is keyed by folder name: renaming re-indexes the product "
               "(unchanged text is not embedded again).")
    if st.form_submit_button("Rename") and new != product:
        try:
            services.rename_product(product, new)
            st.rerun()
        except svc.LibraryError as exc:
            st.error(str(exc))
