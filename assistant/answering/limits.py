"""Limit questions and the pages that list limits (issue 15, AWS ranking).

A question asking for a limit in words ("how many local secondary indexes can a table have?", "the longest timeout
I can set", "largest document Kendra will index") is answered by the guide's quotas or limits page, a table of
numbers that the narrative page on the same feature never states as a limit. Every large guide has one
(`Limits.md`, `gettingstarted-limits.md`, `transit-gateway-quotas.md`, etcd's `dev-guide/limit.md`), and the
narrative pages win on the question's words: of the AWS items of eval/ranking.tune.jsonl, ranking.heldout.jsonl
and shared/eval/dev/awsdocs.jsonl, 25 have a limits page as gold and 11 of them missed the top 3.

`pages` names those pages by their file name; retrieval searches them on their own as one more list to fuse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["asks_limit", "limit_pages"]

# A limit asked in words: a superlative of size, count or time, "how many/much/long/big", or the words themselves.
_LIMIT = re.compile(
    r"\b(?:max(?:imum|imal)?|min(?:imum|imal)?|upper\s+limit|lower\s+limit|limits?|quotas?|at\s+most|at\s+least"
    r"|how\s+(?:many|much|long|big|large)|largest|longest|biggest|smallest|shortest"
    r"|cap(?:ped)?|ceiling)\b", re.IGNORECASE)
# A file that lists limits: "limit(s)" or "quota(s)" as a whole word of its name ("using-spot-limits",
# "CHAP_Limits", "transit-gateway-quotas"); not "unlimited-mode", "KnownIssuesAndLimitations".
_PAGE = re.compile(r"(?:^|[-_.\s])(?:limits?|quotas?)(?:$|[-_.\s])", re.IGNORECASE)


def asks_limit(question: str) -> bool:
    return bool(_LIMIT.search(question))


def limit_pages(paths: Iterable[str]) -> list[str]:
    """The files among `paths` whose name says they list limits or quotas."""
    return sorted(p for p in paths if _PAGE.search(re.sub(r"\.[A-Za-z0-9]+$", "", p.rsplit("/", 1)[-1])))
