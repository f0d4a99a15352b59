"""Identifiers whose digits are not releases: issue keys, advisories, CVE ids, RFC numbers, hashes, UUIDs, error
codes, addresses, dates and Kubernetes API versions.

Routing asks `identifier_spans` before it reads a number as a release: "SPARK-44581" is an issue, not "the library
has no spark release 44581" (issue 14). A product glued to a dotted release ("prometheus-2.53.0.linux-amd64") is
not an identifier: only a whole number after the hyphen makes a key.
"""

from __future__ import annotations

import re

__all__ = ["identifier_spans", "in_identifier"]

_PATTERNS = [
    # Advisories and CVE ids: CVE-2023-44487, GHSA-xxxx-xxxx-xxxx, RHSA-2023:1234, USN-6543-1, ALAS-2023-123.
    r"\bCVE-\d{4}-\d{3,}\b",
    r"\bGHSA(?:-[0-9a-z]{4}){3}\b",
    r"\b[A-Z]{2,8}-\d{4}[:-]\d+(?:-\d+)?\b",
    # Issue and error keys: SPARK-44581, KAFKA-1234, ORA-00942, JDK-8292158, MS17-010 (never "release-3").
    r"\b(?!(?:release|version|rel|ver|v)-)[A-Za-z][A-Za-z0-9_]*-\d+(?:-\d+)*(?![\d.]*\d|\.[xX*])",
    # RFC and standard numbers, sections: RFC 7231, rfc-6455, ISO 8601, IEEE 754, § 6.5.1.
    r"\b(?:RFC|ISO|IEEE|ECMA|BCP|STD|PEP|JSR|KEP|KIP|SPIP|FLIP|JEP|NIST\s+SP)[\s-]?\d+(?:[.-]\d+)*\b",
    r"§\s*\d+(?:\.\d+)*",
    # Hashes, digests, UUIDs, hexadecimal numbers (a commit has a letter and a digit among 7-64 hex characters).
    r"\b(?:sha(?:1|256|512)|md5):[0-9a-f]+\b",
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b",
    r"\b0x[0-9a-f]+\b",
    # Error, exit and status codes, signals, line numbers: "error 1064", "exit code 137", "errno 28", "line 42".
    r"\b(?:error|err|errno|exit(?:\s+code)?|return\s+code|rc|code|status|signal|sig|line|lines|pid|uid|gid"
    r"|sqlstate|http|grpc\s+code|pr|issue|ticket|bug|commit|build|job|run|step|page|row|column|col)"
    r"\s*[:#=]?\s*-?\d+(?:\.\d+)*\b",
    # Addresses and ports: 10.0.0.1, 10.0.0.0/8, [::1]:2379, localhost:9090, host:port.
    r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?::\d+)?\b",
    r"(?<=[A-Za-z0-9\]]):\d{2,5}\b",
    r"\bports?\s+\d{2,5}(?:\s*(?:,|and|or|-|/)\s*\d{2,5})*\b",
    # Dates: 2024-01-15, 15.01.2024, 01/15/2024.
    r"\b\d{4}-\d{2}-\d{2}\b",
    r"\b\d{1,2}[./]\d{1,2}[./]\d{4}\b",
    # Kubernetes-style API versions: v1beta1, v2alpha3 (a release tag is "v3.5.0-beta.1", with dots).
    r"\bv\d+(?:alpha|beta)\d+\b",
    # Sizes and quantities written glued or with a unit: 512Mi, 2GiB, 1.5GB, 100ms, 4xlarge.
    r"\b\d+(?:\.\d+)?\s*(?:[KMGTPE]i?B|[KMGTPE]i|bytes?)\b",
]
_IDENTIFIER = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def identifier_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every identifier in the text, left to right."""
    return [m.span() for m in _IDENTIFIER.finditer(text)]


def in_identifier(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the number at [start, end) lies inside an identifier."""
    return any(s <= start and end <= e for s, e in spans)
