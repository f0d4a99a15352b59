"""Docs Assistant: `streamlit run app.py`. Registers the pages, draws the documents sidebar, runs the chosen page.

Every page only gathers input, calls `assistant/` (mostly `assistant.app_services`) and renders.
"""

from pathlib import Path

import streamlit as st

from assistant.app import get_services
from pages import sidebar

st.set_page_config(page_title="Docs Assistant", page_icon=":material/menu_book:", layout="wide")

pages = [
    st.Page("pages/chat.py", title="Chat", icon=":material/chat:", default=True),
    st.Page("pages/library.py", title="Library", icon=":material/folder:"),
    st.Page("pages/insights.py", title="Insights", icon=":material/insights:"),
]
if (Path(__file__).parent / "pages" / "evaluate.py").exists():
    pages.append(st.Page("pages/evaluate.py", title="Evaluate", icon=":material/checklist:"))
pages.append(st.Page("pages/settings.py", title="Settings", icon=":material/settings:"))

page = st.navigation(pages)
with st.sidebar:
    sidebar.documents(get_services())
page.run()
