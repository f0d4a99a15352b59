"""Drawing an answer while it is made (the chat page's live part): the stage line, the intent/release line and the
sources once retrieval has ended, the text streamed so far; and the background loading line in the sidebar."""

import streamlit as st

from assistant import app as svc


def render_live(view: "svc.LiveView", *, stopping: bool) -> None:
    stage = "Stopping…" if stopping else view.stage
    # One status box, always drawn: its label is the stage being run, its body the stages already run.
    with st.status(f"{stage} ({view.seconds:.0f} s)", state="running", expanded=False):
        for line, ms in view.done_stages:
            st.caption(f"{svc.md_escape(line)} {ms:.0f} ms")
    if view.partial:
        st.markdown(view.partial.rstrip() + " ▌")
    if view.header is not None:
        h = view.header
        intent, releases = h["intent"], ", ".join(h["releases"])
        line = [f"Intent: **{intent.get('label') or 'n/a'}** ({intent.get('confidence', 0):.0%})"]
        if releases:
            line.append(f"Release: **{releases}** "
                        f"({svc.RELEASE_SOURCES.get(h['release_source'], h['release_source'])})")
        st.caption(" · ".join(line))
    for s in view.sources or []:
        st.markdown(svc.source_label(s))


def warmup_line(services: "svc.Services") -> None:
    """What is still loading in the background, redrawn each second until everything is ready."""
    def line() -> None:
        job = services.warmup.snapshot()
        if job.error:
            st.caption(f"Loading failed: {svc.md_escape(job.error)}")
        elif job.running:
            st.caption(svc.md_escape(job.status or job.label))
        elif job.status == "ready":
            st.caption("Search models ready.")

    running = services.warmup.snapshot().running
    st.fragment(run_every=1.0 if running else None)(line)()


def live_timings(trace: dict) -> str:
    to_sources, to_token = trace.get("time_to_sources_s"), trace.get("time_to_first_token_s")
    parts = []
    if to_sources is not None:
        parts.append(f"sources after {to_sources:.1f} s")
    if to_token is not None:
        parts.append(f"first token after {to_token:.1f} s")
    return " · ".join(parts) or "no generated text"
