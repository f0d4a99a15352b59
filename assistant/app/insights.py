"""Frames for the Insights page and the golden set, read from the feedback and trace database."""

from __future__ import annotations

import json

import pandas as pd

from assistant.app.db import AppDB

# -------------------------------------------------------------------------------------------------- insights


def _traces(db: AppDB) -> list[dict]:
    return [{**row, "trace": json.loads(row["trace"])} for row in db.traces()]


def feedback_frame(db: AppDB) -> pd.DataFrame:
    rows = db.feedback()
    df = pd.DataFrame(rows, columns=["id", "created_at", "rating", "comment", "question", "product", "releases",
                                     "intent", "preset", "knowledge_missing", "answer", "trace"])
    df["day"] = pd.to_datetime(df["created_at"], unit="s").dt.floor("D")
    df["vote"] = df["rating"].map({1: "thumbs up", 0: "thumbs down"})
    df["intent"] = df["intent"].fillna("(none)")
    return df


def feedback_over_time(db: AppDB) -> pd.DataFrame:
    df = feedback_frame(db)
    out = df.pivot_table(index="day", columns="vote", values="id", aggfunc="count", fill_value=0)
    return out.reindex(columns=["thumbs up", "thumbs down"], fill_value=0)


def feedback_by_intent(db: AppDB) -> pd.DataFrame:
    df = feedback_frame(db)
    out = df.pivot_table(index="intent", columns="vote", values="id", aggfunc="count", fill_value=0)
    return out.reindex(columns=["thumbs up", "thumbs down"], fill_value=0)


def intent_mix(db: AppDB) -> pd.DataFrame:
    labels = [(t["intent"] or "(none)") for t in db.traces()]
    return pd.Series(labels, dtype="object").value_counts().rename("questions").rename_axis("intent").to_frame()


def latency_by_stage(db: AppDB) -> pd.DataFrame:
    rows = [{"stage": k, "ms": v} for t in _traces(db) for k, v in (t["trace"].get("timings_ms") or {}).items()]
    df = pd.DataFrame(rows, columns=["stage", "ms"])
    out = df.groupby("stage", sort=False)["ms"].agg(median="median", p90=lambda s: s.quantile(0.9))
    return out.rename(columns={"median": "median ms", "p90": "p90 ms"})


def unanswered(db: AppDB) -> pd.DataFrame:
    """Questions the documents could not answer, per release: the documentation to write."""
    rows = []
    for t in _traces(db):
        tr = t["trace"]
        if tr.get("knowledge_missing") or tr.get("status") not in ("ok", None):
            reason = (tr.get("knowledge") or {}).get("reason") or tr.get("status") or ""
            rows.append({"product": tr.get("product") or "(none)",
                         "release": ", ".join(tr.get("releases") or []) or "(none)",
                         "question": tr.get("question", ""), "reason": reason,
                         "asked": pd.to_datetime(t["created_at"], unit="s")})
    df = pd.DataFrame(rows, columns=["product", "release", "question", "reason", "asked"])
    return df.sort_values(["product", "release", "asked"]).reset_index(drop=True)


def golden_set(db: AppDB) -> list[dict]:
    """Thumbs-up answers in the evaluation format; gold = the cited files, relative to the product folder."""
    by_question: dict[str, dict] = {}
    for row in db.feedback():
        if row["rating"] != 1:
            continue
        tr = json.loads(row["trace"])
        if not tr.get("answer") or tr.get("knowledge_missing"):
            continue
        gold = list(dict.fromkeys(f"{s['release']}/{s['path']}" for s in tr.get("sources", []) if s.get("cited")))
        releases = tr.get("releases") or []
        by_question[tr["question"]] = {"question": tr["question"], "answer": tr["answer"], "gold": gold,
                                       "product": tr.get("product"),
                                       "release": releases[0] if len(releases) == 1 else releases}
    return list(by_question.values())


def golden_set_jsonl(db: AppDB) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in golden_set(db))
