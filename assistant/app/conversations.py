"""Conversations kept in the app database: listed most recent first, titled by their first question, renamed,
deleted, reopened after a reload or a restart, exported as Markdown with each answer's sources.

A message in the session is plain data: {"role": "user", "content"} or {"role": "assistant", "content": "", "id",
"trace", "trace_id", "rating", "comment"}; the chat page renders those and this module stores and reloads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from assistant.answering.citations import page_citation
from assistant.app.db import AppDB

TITLE_CHARS = 80


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    created_at: float
    updated_at: float
    preset: str | None
    messages: int


def title_from(question: str) -> str:
    """The first question on one line, cut at a word near TITLE_CHARS."""
    text = " ".join(question.split())
    if len(text) <= TITLE_CHARS:
        return text or "New conversation"
    cut = text[:TITLE_CHARS].rsplit(" ", 1)[0] or text[:TITLE_CHARS]
    return cut + "…"


def history(messages: list[dict]) -> list[dict]:
    """What the pipeline reads as the conversation so far: questions and the answers given (a question left
    without an answer, e.g. the index was busy, is kept: it is part of what the user asked)."""
    out = []
    for m in messages:
        if m["role"] == "user":
            out.append({"role": "user", "content": m["content"]})
        elif m.get("trace"):
            out.append({"role": "assistant", "content": m["trace"].get("answer") or ""})
    return out


class Conversations:
    def __init__(self, db: AppDB) -> None:
        self.db = db

    def list(self) -> list[Conversation]:
        return [Conversation(r["id"], r["title"], r["created_at"], r["updated_at"], r["preset"], r["messages"])
                for r in self.db.conversations()]

    def get(self, conversation_id: int) -> Conversation | None:
        return next((c for c in self.list() if c.id == conversation_id), None)

    def last_opened(self) -> Conversation | None:
        """The conversation a reload or a restart reopens."""
        cid = self.db.last_opened_conversation()
        return self.get(cid) if cid is not None else None

    def start(self, first_question: str, preset: str | None) -> int:
        return self.db.add_conversation(title_from(first_question), preset)

    def open(self, conversation_id: int) -> list[dict]:
        self.db.touch_conversation(conversation_id, active=False)
        return self.messages(conversation_id)

    def messages(self, conversation_id: int) -> list[dict]:
        out = []
        for row in self.db.messages(conversation_id):
            if row["role"] == "user":
                out.append({"role": "user", "content": row["content"]})
            elif row["trace"] is not None:
                out.append({"role": "assistant", "content": "", "id": row["answer_id"], "trace": row["trace"],
                            "trace_id": row["trace_id"], "feedback_id": row["feedback_id"],
                            "rating": row["rating"], "comment": row["comment"] or ""})
        return out

    def add_question(self, conversation_id: int, question: str) -> None:
        self.db.add_message(conversation_id, "user", question)
        self.db.touch_conversation(conversation_id, active=True)

    def add_answer(self, conversation_id: int, answer: dict, preset: str | None) -> None:
        self.db.add_message(conversation_id, "assistant", answer["trace"].get("answer") or "", answer["id"],
                            answer["trace_id"])
        self.db.touch_conversation(conversation_id, active=True, preset=preset)

    def rename(self, conversation_id: int, title: str) -> str:
        title = " ".join(title.split())[:200]
        if not title:
            raise ValueError("A conversation needs a title.")
        self.db.rename_conversation(conversation_id, title)
        return title

    def delete(self, conversation_id: int) -> None:
        self.db.delete_conversation(conversation_id)

    def export_markdown(self, conversation_id: int) -> str:
        conversation = self.get(conversation_id)
        title = conversation.title if conversation else "Conversation"
        return conversation_markdown(title, self.messages(conversation_id))


def conversation_markdown(title: str, messages: list[dict]) -> str:
    """The conversation as Markdown: each question, each answer, and under each answer its numbered sources."""
    lines = [f"# {title}", ""]
    for m in messages:
        if m["role"] == "user":
            lines += ["## Question", "", m["content"], ""]
            continue
        t = m["trace"]
        when = datetime.fromtimestamp(t["asked_at"]).strftime("%Y-%m-%d %H:%M") if t.get("asked_at") else ""
        lines += ["## Answer", ""]
        lines += [t.get("answer") or "_Search only: no answer was generated._", ""]
        meta = [f"preset {t.get('preset')}"] + ([f"releases {', '.join(t['releases'])}"] if t.get("releases") else [])
        lines += [f"*{' · '.join(meta + ([when] if when else []))}*", ""]
        if t.get("sources"):
            lines += ["Sources:", ""]
            for s in t["sources"]:
                where = s["path"] + (f", page {page_citation(s['page'], s.get('page_label'))}" if s.get("page") else "")
                where += f", § {s['section']}" if s.get("section") else ""
                mark = "" if s.get("cited") else " (retrieved, not cited)"
                lines.append(f"- [{s['n']}] {s['product']} {s['release']}: {where}{mark}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
