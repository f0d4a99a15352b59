"""Evaluate: run presets over a question set (uploaded, the feedback golden set, or a file path) and compare them:
the ablation table, per-intent and per-kind breakdowns, charts, and the worst questions with their traces."""

import json

import streamlit as st

from assistant import app as svc

services = svc.get_services()
st.title("Evaluate")

source = st.radio("Questions", ["Upload a file", "Feedback golden set", "File path"], horizontal=True)
dataset = None
try:
    if source == "Upload a file":
        upload = st.file_uploader("JSONL or CSV: question, answer, gold, release, intent, kind, must_contain, turns",
                                  type=["jsonl", "csv"])
        if upload is not None:
            dataset = svc.views.dataset_from_upload(upload.name, upload.getvalue())
    elif source == "Feedback golden set":
        dataset = svc.views.dataset_from_feedback(services.db)
    else:
        path = st.text_input("Dataset file or folder", placeholder="/path/to/questions.jsonl")
        if path.strip():
            dataset = svc.views.dataset_from_path(path)
except (svc.DatasetError, OSError, UnicodeDecodeError, ValueError) as exc:
    st.error(f"Cannot read the questions: {exc}")
if dataset is not None:
    st.caption(f"{len(dataset.items)} question(s)")

c1, c2, c3 = st.columns([3, 1, 1])
presets = c1.multiselect("Presets", list(svc.PRESETS), default=[services.settings.preset])
k = c2.number_input("k", min_value=1, max_value=20, value=3)
search_only = c3.checkbox("Search only", value=True, help="retrieval and routing only; no LLM, no answer metrics")
products = list(services.catalogue())
product = st.selectbox("Product (optional pin)", [""] + products)

if st.button("Run evaluation", type="primary", disabled=not (dataset and dataset.items and presets)):
    bar = st.progress(0.0, text="starting")
    total = len(dataset.items) * len(presets)
    done = {"n": 0}

    def progress(preset, i, n, item):
        done["n"] += 1
        bar.progress(done["n"] / total, text=f"{preset}: {i}/{n} {item.id}")

    try:
        st.session_state["eval_report"] = svc.views.evaluate(services, dataset, presets, k=int(k), search_only=search_only,
                                                         product=product or None, progress=progress)
    except Exception as exc:  # shown to the user; the page stays usable
        st.error(f"The evaluation stopped: {exc}")
    bar.empty()

report = st.session_state.get("eval_report")
if report is not None:
    st.subheader("Presets side by side")
    st.dataframe(svc.views.ablation_frame(report))
    st.download_button("Report (JSON)", json.dumps(report.to_json(), default=str), file_name="eval_report.json")

    st.subheader("Charts")
    st.pyplot(svc.charts.quality_chart(report))
    st.pyplot(svc.charts.latency_chart(report))

    st.subheader("Breakdowns")
    b1, b2 = st.columns(2)
    metric = b1.selectbox("Metric", ["hit@k", "mrr", "context_recall@k", "contamination@k", "release_correct",
                                     "intent_correct", "knowledge_correct", "must_contain"])
    by = b2.radio("By", ["by_kind", "by_intent"], horizontal=True, format_func=lambda s: s.replace("_", " "))
    frame = svc.views.breakdown_frame(report, by, metric)
    st.dataframe(frame) if not frame.empty else st.caption("No question of this set has that metric.")

    chosen = st.selectbox("Preset", list(report.presets))
    conf = svc.views.confusion_frame(report, chosen)
    if not conf.empty:
        st.caption("Intent confusion (rows: expected, columns: predicted)")
        st.dataframe(conf)

    st.subheader("Worst questions")
    table, worst = svc.views.worst_frame(report, chosen)
    st.dataframe(table, hide_index=True)
    for r in worst:
        with st.expander(f"{r['id']} · {r['question'][:80]}"):
            st.json({"metrics": r.get("metrics"), "ranked": r.get("ranked", [])[:k], "trace": r.get("trace")},
                    expanded=False)
