"""The conversations sidebar of the chat page: most recent first, open one, start new, rename, export, delete."""

import re

import streamlit as st

from assistant import app as svc


def reopen_last(services: svc.Services) -> None:
    """A new session (a reload, a restart of the app) opens the conversation opened last."""
    state = st.session_state
    if "conversation_id" in state:
        return
    last = services.conversations.last_opened()
    state.conversation_id = None
    state.messages = []
    if last is not None:
        _open(services, last.id)


def _open(services: svc.Services, conversation_id: int) -> None:
    state = st.session_state
    state.conversation_id = conversation_id
    state.messages = services.conversations.open(conversation_id)
    state.pop("viewing", None)
    conversation = services.conversations.get(conversation_id)
    if conversation is not None and conversation.preset in svc.PRESETS:
        state.preset = conversation.preset  # its follow-ups are answered the way it was


def start_new() -> None:
    state = st.session_state
    state.conversation_id = None
    state.messages = []
    state.pop("viewing", None)


def sidebar(services: svc.Services) -> None:
    state = st.session_state
    st.subheader("Conversations")
    st.button("New conversation", on_click=start_new, icon=":material/add_comment:", key="new_conversation_side",
              disabled=state.conversation_id is None)
    conversations = services.conversations.list()
    for c in conversations[:100]:
        current = c.id == state.conversation_id
        st.button(svc.md_escape(c.title), key=f"conversation_{c.id}", type="primary" if current else "tertiary",
                  on_click=_open, args=(services, c.id), width="stretch")
    current = next((c for c in conversations if c.id == state.conversation_id), None)
    if current is None:
        return
    with st.expander("This conversation", icon=":material/edit_note:"):
        title = st.text_input("Title", value=current.title, key=f"conversation_title_{current.id}")
        if st.button("Rename", key="rename_conversation") and title.strip() != current.title:
            try:
                services.conversations.rename(current.id, title)
                st.rerun()
            except ValueError as exc:
                st.error(str(exc))
        st.download_button("Export as Markdown", data=services.conversations.export_markdown(current.id),
                           file_name=_file_name(current.title), mime="text/markdown", on_click="ignore",
                           icon=":material/download:", key="export_conversation")
        confirm = st.checkbox("Yes, delete this conversation", key=f"confirm_delete_{current.id}")
        if st.button("Delete conversation", disabled=not confirm, icon=":material/delete:", key="delete_conversation"):
            services.conversations.delete(current.id)
            start_new()
            st.rerun()


def _file_name(title: str) -> str:
    return (re.sub(r"[^\w.-]+", "-", title).strip("-")[:60] or "conversation") + ".md"
