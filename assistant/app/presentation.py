"""Labels the pages show: escaped Markdown, source and release lines, time left."""

from __future__ import annotations

import re
from pathlib import Path

from assistant.answering.citations import page_citation

# --------------------------------------------------------------------------------------------- presentation

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
RELEASE_SOURCES = {"named": "named in the question", "pinned": "pinned above", "history": "from the conversation",
                   "default_newest": "newest, none named", "timeline": "found in the release timeline", "none": "none"}


def product_line(trace: dict) -> str:
    """The product(s) searched and how the product was chosen ("etcd (inferred from the documents)")."""
    products = [trace.get("product")] if trace.get("product") else []
    products += [f"{a['product']} {a['release']}" for a in trace.get("also") or []]
    how = trace.get("product_chosen") or ""
    return f"**{md_escape(' + '.join(products) or 'none')}**" + (f" ({how})" if how else "")


def md_escape(text: str) -> str:
    """Text shown inside Markdown as itself (file names, queries, sections typed by strangers)."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def source_label(s: dict) -> str:
    where = md_escape(s["path"]) + (f" p.{md_escape(page_citation(s['page'], s.get('page_label')))}" if s.get("page") else "")
    if s.get("section"):
        where += f" § {md_escape(s['section'])}"
    cited = "" if s.get("cited") else " · *also retrieved*"
    what = f"{md_escape(s['product'])} {md_escape(s['release'])}"
    return f"**[{s['n']}]** {what} · {where} · score {s['score']:.3f}{cited}"


def md_escape_block(text: str) -> str:
    """Like md_escape, keeping line breaks (as Markdown hard breaks)."""
    return "  \n".join(_MD_SPECIAL.sub(r"\\\1", line) for line in str(text).splitlines())


def open_label(s: dict) -> str:
    """The primary action on a source: open it in the app where it cites."""
    if s.get("page"):
        return f"Open at page {page_citation(s['page'], s.get('page_label'))}"
    return "Open at section" if s.get("section") else "Open"


def download_label(s: dict) -> str:
    return f"Download {Path(s['path']).name}"


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"
