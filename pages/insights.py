"""Insights: feedback over time and by intent, the intent mix, latency per stage, unanswered questions per
release (the documentation to write), and thumbs-up answers exported as a golden question set."""

import streamlit as st

from assistant import app as svc

db = svc.get_services().db
VOTES = ["#2e7d32", "#c62828"]  # thumbs up, thumbs down


def chart(title: str, frame, empty: str, **options) -> None:
    st.subheader(title)
    if frame.empty:
        st.caption(empty)
    else:
        st.bar_chart(frame, **options)


st.title("Insights")
c1, c2 = st.columns(2)
with c1:
    chart("Feedback over time", svc.feedback_over_time(db), "No feedback yet.", color=VOTES)
with c2:
    chart("Feedback by intent", svc.feedback_by_intent(db), "No feedback yet.", color=VOTES)
c3, c4 = st.columns(2)
with c3:
    chart("Intent mix", svc.intent_mix(db), "No questions yet.", horizontal=True, sort=False)
with c4:
    chart("Latency per stage (ms)", svc.latency_by_stage(db), "No questions yet.", horizontal=True, stack=False,
          sort=False)

st.subheader("Questions the documents could not answer")
missing = svc.unanswered(db)
if missing.empty:
    st.caption("None so far.")
else:
    st.dataframe(missing, hide_index=True,
                 column_config={"asked": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm")})

st.subheader("Golden question set")
golden = svc.golden_set(db)
st.caption(f"{len(golden)} thumbs-up answer(s) with their cited files, in the evaluation format "
           "(question, answer, gold, product, release).")
st.download_button("Export golden set (JSONL)", data=svc.golden_set_jsonl(db), file_name="golden.jsonl",
                   mime="application/jsonl", disabled=not golden, icon=":material/download:")
