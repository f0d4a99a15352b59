"""Chat: ask, watch the answer stream in, see how it was found (intent, releases, queries, sources), open a source
where it cites, rate it. Conversations are stored; a reload or restart reopens the last one."""

import streamlit as st
from streamlit_pdf_viewer import pdf_viewer

from assistant import app as svc
from pages import conversations, watch

AUTO = "Detect from the question"
services = svc.get_services()
services.preload()  # search models (and the embedded model, if it answers) load in the background, not on a question
state = st.session_state
conversations.reopen_last(services)
state.setdefault("preset", services.settings.preset if services.settings.preset in svc.PRESETS else "default")

# -- choices ------------------------------------------------------------------------------------------------------
catalogue = services.catalogue()
c1, c2, c3, c4 = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
product = c1.selectbox("Product", [AUTO, *catalogue], key="product")
release = c2.selectbox("Release", [AUTO, *catalogue.get(product, [])], key="release", disabled=product == AUTO,
                       help="Detected from the question (newest when none is named) unless you pin one")
preset = c3.selectbox("Preset", list(svc.PRESETS), key="preset",
                      help="How the question is searched and answered (README: Presets)")
c4.button("New conversation", icon=":material/add_comment:", on_click=conversations.start_new)

llm = services.llm()
answers = llm.model is not None or llm.extractive
with st.sidebar:
    search_only = st.toggle("Search only", value=not answers, disabled=not answers, key="search_only",
                            help="Ranked sources without a generated answer")
    model = (llm.model.backend + " · " + llm.model.model if llm.model is not None
             else "quotes from the sources" if llm.extractive else "no language model")
    st.caption(f"Answers: {'search only' if search_only else svc.md_escape(model)}")
    conversations.sidebar(services)
    watch.warmup_line(services)
if llm.help:  # said once, here, not under every answer
    st.warning(f"{llm.notice}\n\n{llm.help}", icon=":material/power_off:")
    if st.button("Retry connection"):
        services.reconnect()
        st.rerun()


# -- one answer -----------------------------------------------------------------------------------------------------
def ask_later(question: str) -> None:
    state.pending = question


def on_feedback(answer: dict) -> None:
    rating = state.get(f"fb_{answer['id']}")
    if rating is not None:
        services.save_feedback(answer, rating, state.get(f"fbc_{answer['id']}", ""))


def on_intent(answer: dict) -> None:
    corrected, intent = state[f"intent_{answer['id']}"], answer["trace"]["intent"]
    if corrected and corrected != intent.get("label"):
        services.correct_intent(answer["trace"]["question"], intent.get("label"), corrected)
        intent.update(label=corrected, confidence=1.0, source="user")
        st.toast(f"Thanks: questions like this one now count as {corrected}.")


def render_answer(a: dict) -> None:
    t, aid = a["trace"], a["id"]
    knowledge = t.get("knowledge") or {}
    if t["knowledge_missing"]:
        st.warning(f"**The documents do not cover this.** {svc.md_escape(knowledge.get('reason', ''))}",
                   icon=":material/report:")
        if knowledge.get("suggestion"):
            st.button(f"Ask instead: {knowledge['suggestion']}", key=f"sugg_{aid}", on_click=ask_later,
                      args=(knowledge["suggestion"],), icon=":material/help:")
    st.markdown(t["answer"] or ("_Stopped before any text was written._" if t.get("stopped")
                                else "_Search only: the ranked sources are below._"))
    if t.get("stopped"):
        st.info(svc.STOPPED_NOTICE, icon=":material/stop_circle:")
    elif t["incomplete"]:  # the model failed mid-answer: say why, under the partial text
        for notice in t["notices"]:
            st.error(svc.md_escape(notice))
    intent, releases = t["intent"], ", ".join(t["releases"])
    line = [f"Intent: **{intent.get('label') or 'n/a'}** ({intent.get('confidence', 0):.0%})"]
    if t.get("product") or t.get("product_chosen"):
        line.append(f"Product: {svc.product_line(t)}")
    if releases:
        line.append(f"Release: **{releases}** ({svc.RELEASE_SOURCES.get(t['release_source'], t['release_source'])})")
    if t["rewritten"]:
        line.append(f"Rewritten: “{svc.md_escape(t['rewritten'])}”")
    st.caption(" · ".join(line))
    for s in t["sources"]:
        label, action = st.columns([3, 1], vertical_alignment="center")
        label.markdown(svc.source_label(s))
        action.button(svc.open_label(s), key=f"open_{aid}_{s['n']}", on_click=view_source, args=(aid, s["n"]),
                      icon=":material/open_in_new:", help="Open the document where this source cites it")
    viewing = state.get("viewing")
    if viewing and viewing[0] == aid:
        source = next((s for s in t["sources"] if s["n"] == viewing[1]), None)
        if source is not None:
            render_source(aid, source, t["answer"] or "")
    if t["sources"]:
        with st.expander("Cited text and documents"):
            for s in t["sources"]:
                st.markdown(svc.source_label(s))
                st.text(s["text"])
                path = services.document(s)
                if path is not None:
                    st.download_button(svc.download_label(s), data=path.read_bytes, file_name=path.name,
                                       mime="application/pdf" if path.suffix.lower() == ".pdf" else None,
                                       key=f"dl_{aid}_{s['n']}", on_click="ignore", icon=":material/download:",
                                       type="tertiary")
    with st.expander("How this answer was found"):
        label = intent.get("label")
        st.selectbox("Intent (correct it if it is wrong)", svc.INTENTS, key=f"intent_{aid}", on_change=on_intent,
                     args=(a,), index=svc.INTENTS.index(label) if label in svc.INTENTS else None)
        st.markdown(f"**Product** {svc.product_line(t)} · **releases** {releases or 'none'} "
                    f"({svc.RELEASE_SOURCES.get(t['release_source'], t['release_source'] or 'n/a')})")
        if t["standalone"]:
            st.markdown(f"**Standalone question** {svc.md_escape(t['standalone'])}")
        if t["queries"]:
            st.dataframe({"kind": t["query_kinds"], "query": t["queries"]}, hide_index=True)
        if knowledge:
            st.markdown(f"**Knowledge check** relevance {knowledge.get('relevance', 0):.3f}: "
                        f"{svc.md_escape(knowledge.get('reason', ''))}")
        st.dataframe({"stage": list(t["timings_ms"]), "ms": list(t["timings_ms"].values())}, hide_index=True)
        for notice in t["notices"]:
            st.caption(svc.md_escape(notice))
        backend = t["llm"].get("backend")
        st.caption((f"Answered by {backend} · {svc.md_escape(t['llm'].get('model'))}" if backend
                    else "Search only: no language model called") + f" · models on {t.get('device') or 'n/a'}")
        st.caption(watch.live_timings(t))
    total = sum(t["timings_ms"].values()) / 1000
    st.caption(f"{total:.1f} s · {svc.md_escape(t['llm'].get('model') or 'search only')} · preset {t['preset']}")
    if st.feedback("thumbs", key=f"fb_{aid}", default=a.get("rating"), on_change=on_feedback, args=(a,)) is not None:
        st.text_input("Comment (optional)", value=a.get("comment", ""), key=f"fbc_{aid}", on_change=on_feedback,
                      args=(a,), placeholder="What was good, wrong or missing?")


def view_source(aid: str, n: int) -> None:
    state.viewing = (aid, n)


def render_source(aid: str, source: dict, answer: str = "") -> None:
    view = services.open_source(source, answer)
    with st.container(border=True):
        head, close = st.columns([6, 1], vertical_alignment="center")
        head.markdown(f"**[{source['n']}]** {svc.md_escape(source['path'])}")
        close.button("Close", key=f"close_{aid}", on_click=state.pop, args=("viewing", None), icon=":material/close:")
        if isinstance(view, svc.Unavailable):
            st.warning(svc.md_escape(view.reason))
        elif isinstance(view, svc.PdfView):
            st.caption(f"Page {view.page}" + (", the cited passage outlined" if view.boxes else
                                              " (the passage could not be located on it)"))
            pdf_viewer(view.data, height=720, annotations=view.annotations(), annotation_outline_size=2,
                       # the viewer takes one target: the passage's first box (on the page) or else the page
                       scroll_to_page=None if view.boxes else view.page, scroll_to_annotation=1 if view.boxes else None,
                       scroll_behavior="instant", render_text=True, key=f"pdf_{aid}_{source['n']}")
        else:
            crumbs = " › ".join(view.section_path) or view.title
            st.caption(f"{svc.md_escape(view.title)} · § {svc.md_escape(crumbs)}")
            if view.before.strip():
                st.text(view.before.strip())
            if view.found:
                st.success(svc.md_escape_block(view.passage), icon=":material/format_quote:")
            else:
                st.caption("The cited passage is no longer in this section (the file changed since indexing).")
            if view.after.strip():
                st.text(view.after.strip())


# -- the conversation -------------------------------------------------------------------------------------------------
for msg in state.messages:
    with st.chat_message(msg["role"]):
        if msg["role"] == "user":
            st.markdown(svc.md_escape(msg["content"]))
        elif "error" in msg:
            st.error(svc.md_escape(msg["error"]))
        else:
            render_answer(msg)

question = st.chat_input("Ask about your documentation") or state.pop("pending", None)
if question and state.get("live") is None:
    # The question is stored before it is answered (a failed or stopped answer loses nothing); the history is the
    # stored conversation's, so a reopened conversation's follow-ups read it.
    state.conversation_id, earlier = services.begin_turn(state.conversation_id, question, preset)
    state.messages.append({"role": "user", "content": question})
    with st.chat_message("user"):
        st.markdown(svc.md_escape(question))
    state.live = services.start_answer(question, history=earlier, product=None if product == AUTO else product,
                                       release=None if release == AUTO else release, preset=preset,
                                       search_only=search_only, deferred=True)
elif question:  # asked while an answer is still being made: it is asked once that one ends
    state.pending = question
elif not state.messages:
    st.info("Ask a question about your documentation. Name a release (\"in v3.5\") or pin one above; "
            "add documents in the sidebar.", icon=":material/lightbulb:")


def watch_answer() -> None:
    """Redrawn every quarter second while the answer is made: stage line, sources, streamed text, Stop."""
    live = state.get("live")
    if live is None:
        return
    view = live.view()
    if view.finished:
        state.live = None
        if view.answer is not None:
            services.end_turn(state.conversation_id, view.answer, preset)
            state.messages.append({"role": "assistant", "content": "", **view.answer})
        else:
            state.messages.append({"role": "assistant", "content": "", "id": "failed", "error": view.error})
        st.rerun()
    watch.render_live(view, stopping=live.stopping)
    live.begin()  # after the stage line is drawn (a no-op once started)
    if not live.stopping:
        st.button("Stop", key="stop_answer", on_click=live.stop, icon=":material/stop_circle:")


if state.get("live") is not None:
    with st.chat_message("assistant"):
        st.fragment(run_every=0.25)(watch_answer)()
