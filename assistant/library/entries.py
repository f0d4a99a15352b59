"""Reference blocks split at their entries (issue 15, point 3): a section's text goes in, its blocks come out, and a
block that is a flag list, a configuration reference, an option list or a table carries its entries.

A long reference page packed into 200-token chunks puts five flags in one chunk, and that chunk loses to a narrative
page using the same words. The chunker makes each entry of a long reference block a search chunk of its own, under
the section's heading path; a table row keeps its header row, so "Default" still names the column it sits in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,3}[.)])\s+")
# An option list item names its option first: `--flag`, `key`, **name**, or a bare --flag.
_OPTION_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:`[^`\n]{1,80}`|\*\*[^*\n]{1,80}\*\*|--?[A-Za-z][\w.-]*)")
# A flag in a code block: `--name 'default'` at the block's left edge, its description indented below it.
_FLAG_TERM = re.compile(r"^ {0,2}--?[A-Za-z][\w.-]*")
# A YAML field, optionally in Prometheus' `[ key: <type> | default = x ]` notation, or a list element `- key:`.
_YAML_KEY = re.compile(r"^\s*(?:\[\s*)?(?:-\s+)?[A-Za-z_][\w.-]*\s*:(?:\s|$)")
_MIN_DESCRIPTION_WORDS = 3
MIN_ENTRIES = 3  # fewer is a short list or table that reads fine packed with its neighbours


@dataclass(frozen=True)
class Block:
    """A run of a section's lines. `entries` is non-empty for a reference block: each entry whole, in order (a table
    row prefixed with the table's header and rule lines)."""

    text: str
    entries: tuple[str, ...] = ()


def split_blocks(text: str) -> list[Block]:
    """The section's text as prose runs and reference blocks, in order; prose text is returned as it came."""
    lines = text.split("\n")
    blocks: list[Block] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            blocks.append(Block("\n".join(prose)))
            prose.clear()

    i = 0
    while i < len(lines):
        end, entries = _reference_at(lines, i)
        if entries:
            flush()
            blocks.append(Block("\n".join(lines[i:end]), tuple(entries)))
            i = end
        elif end > i + 1:  # a code block or table with too few entries: kept whole, as prose
            prose.extend(lines[i:end])
            i = end
        else:
            prose.append(lines[i])
            i += 1
    flush()
    return blocks


def _reference_at(lines: list[str], i: int) -> tuple[int, list[str]]:
    """(end, entries) of the block starting at line i; entries is empty when it is no reference block."""
    fence = _FENCE.match(lines[i])
    if fence:
        end = _fence_end(lines, i, fence.group(1))
        return end, code_entries(lines[i:end])
    if _TABLE_ROW.match(lines[i]) and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
        end = i + 2
        while end < len(lines) and _TABLE_ROW.match(lines[end]):
            end += 1
        return end, table_entries(lines[i:end])
    if _OPTION_ITEM.match(lines[i]):
        end = _list_end(lines, i)
        return end, option_entries(lines[i:end])
    return i + 1, []


def _fence_end(lines: list[str], i: int, fence: str) -> int:
    for j in range(i + 1, len(lines)):
        closer = lines[j].strip()
        if len(closer) >= len(fence) and set(closer) == {fence[0]}:
            return j + 1
    return len(lines)


def _list_end(lines: list[str], i: int) -> int:
    """A list runs over its items, their indented continuation lines and single blank lines between items."""
    j = i + 1
    while j < len(lines):
        line = lines[j]
        if _ITEM.match(line) or (line.strip() and line[:1] in " \t"):
            j += 1
        elif not line.strip() and j + 1 < len(lines) and (_ITEM.match(lines[j + 1]) or lines[j + 1][:1] in " \t"):
            j += 1
        else:
            break
    while j > i + 1 and not lines[j - 1].strip():
        j -= 1
    return j


def table_entries(rows: list[str]) -> list[str]:
    """One entry per body row, each under the header and rule lines."""
    head = "\n".join(rows[:2])
    body = [row for row in rows[2:] if row.strip()]
    # A reference table names something in its first column; a table of measurements (numbers first) is data.
    named = sum(bool(re.search(r"[A-Za-z]", row.strip().strip("|").split("|")[0])) for row in body)
    return [f"{head}\n{row}" for row in body] if len(body) >= MIN_ENTRIES and named * 2 > len(body) else []


def option_entries(lines: list[str]) -> list[str]:
    """One entry per item of a list whose items each start by naming an option."""
    starts = [k for k, line in enumerate(lines) if _ITEM.match(line) and not line.startswith("    ")]
    if len(starts) < MIN_ENTRIES or not all(_OPTION_ITEM.match(lines[k]) for k in starts):
        return []
    entries = _cut(lines, starts)
    # A list of bare names (Forecast's 400 reserved words) describes nothing: one chunk per word would only add chunks.
    described = sum(len(e[_OPTION_ITEM.match(e).end():].split()) >= _MIN_DESCRIPTION_WORDS for e in entries)
    return entries if described * 2 > len(entries) else []


def code_entries(lines: list[str]) -> list[str]:
    """A fenced flag list (etcd: `--flag 'default'` then an indented description) splits at each flag; a YAML
    configuration reference (Prometheus) at each blank-line-separated field with its comment lines. The fence lines
    stay with the first and last entries."""
    inner = lines[1:-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else lines[1:]
    flags = [k for k, line in enumerate(inner) if _FLAG_TERM.match(line)]
    described = [k for k in flags if k + 1 < len(inner) and inner[k + 1].strip() and _indent(inner[k + 1]) > _indent(inner[k])]
    # A shell command continued over lines (`etcd --name x \`) also starts lines with flags: it describes none.
    continued = any(line.rstrip().endswith("\\") for line in inner)
    if not continued and len(described) >= MIN_ENTRIES and len(described) * 2 >= len(flags) and all(
            not line.strip() or line[:1] in " \t" or k in flags for k, line in enumerate(inner[flags[0]:], flags[0])):
        starts = flags
    else:
        paragraphs = [k for k, line in enumerate(inner) if line.strip() and (k == 0 or not inner[k - 1].strip())]
        fields = [k for k in paragraphs if _has_yaml_key(inner, k)]
        if len(fields) < MIN_ENTRIES or len(fields) * 2 < len(paragraphs):
            return []
        starts = paragraphs
    entries = _cut(inner, starts)
    entries[0] = lines[0] + "\n" + entries[0]
    if len(lines) > len(inner) + 1:
        entries[-1] = entries[-1] + "\n" + lines[-1]
    return [e for e in entries if e.strip()]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _has_yaml_key(lines: list[str], k: int) -> bool:
    while k < len(lines) and lines[k].strip():
        if not lines[k].lstrip().startswith("#") and _YAML_KEY.match(lines[k]):
            return True
        k += 1
    return False


def _cut(lines: list[str], starts: list[int]) -> list[str]:
    """The lines cut at each start (the first start takes everything before it too), trailing blank lines dropped."""
    bounds = [0] + starts[1:] + [len(lines)]
    return ["\n".join(lines[a:b]).rstrip("\n") for a, b in zip(bounds, bounds[1:])]
