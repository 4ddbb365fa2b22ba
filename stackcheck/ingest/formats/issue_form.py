"""A GitHub issue form's version field, as GitHub renders the answer: the field's label as a
`### ` heading, the answer on the next non-blank line. NVIDIA/nccl's issue form asks for `NCCL
Version` (.github/ISSUE_TEMPLATE/ISSUE.yaml, placeholder "e.g. 2.27.1+cuda12.8"); the answer is
the version the reporter runs."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

# The answer starts with the version: "2.27.5+cuda12.4+driver ...", "v2.23.4-1", "2.18.3", or
# with the package that carries it, as the reporter installed it: apt's pin
# ("libnccl2=2.29.2-1+cuda12.9", NVIDIA/nccl#1991), dpkg's name and version ("libnccl2
# 2.21.5-1+cuda12.4"), an RPM's name ("libnccl-2.21.5-1+cuda12.4"), pip's pin
# ("nvidia-nccl-cu12==2.26.2") or "NCCL version 2.18.3".
_ANSWER = re.compile(
    r"^\s*`?(?:(?:NCCL|libnccl2?|libnccl-devel?|nvidia-nccl-cu\d{2})(?:\sversion)?"
    r"(?:\s?={1,2}\s?|[\s:-]{1,3}))?"
    r"v?(\d{1,2}\.\d{1,3}\.\d{1,3})(?:-\d{1,2})?(?:\+cuda(\d{1,2}\.\d{1,2}))?\b",
    re.IGNORECASE,
)


class IssueFormField(Format):
    """A field of an issue form as GitHub renders it: the label's heading (the subclass's anchor),
    blank lines, and the one answer line under it."""

    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return not line.text.startswith("#") and all(s.blank for s in segment[1:])

    @staticmethod
    def answer(lines: Sequence[Line]) -> Line | None:
        """The answer: the first non-blank line under the heading."""
        return next((line for line in lines[1:] if not line.blank), None)


class IssueFormNcclVersion(IssueFormField):
    name = "issue_form_nccl_version"
    title = "issue form (NCCL Version)"
    anchor = re.compile(r"^#{2,4}\s?NCCL Version\s*$", re.IGNORECASE)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        line = self.answer(lines)
        found = _ANSWER.match(line.text) if line is not None else None
        if line is None or found is None:
            return []
        return [
            ComponentFact(
                line,
                ComponentName.NCCL,
                version=found.group(1),
                cuda=found.group(2),
                properties={"stated": "issue form"},
            )
        ]
