"""What triage makes of a pasted text, for the tests that read one message or listing at a time:
the findings by rule, the observations by kind, and the check that a set of phrasings is read
(and a set of near misses is not)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    """Each rule that fires on ``text``, with its severity."""
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


def observed(text: str) -> dict[str, str | None]:
    """Each observation kind read from ``text`` (a line without its newline gets one), with the
    value of its last reading."""
    text = text if text.endswith("\n") else text + "\n"
    return {o.kind: o.value for o in read_report(text, "pasted").snapshot.observed}


def _text(said: str) -> str:
    """A corpus report's number stands for its body; any other text is a line or a paste."""
    if said.isdigit():
        return body(said)
    return said if said.endswith("\n") else said + "\n"


def reads(
    matrix: Matrix,
    rule: str,
    severity: Severity,
    read: tuple[str, ...],
    not_read: tuple[str, ...] = (),
    *,
    kind: str | None = None,
) -> None:
    """Each text of ``read`` gets ``rule`` at ``severity``; none of ``not_read`` (questions,
    conditions, denials) gets the rule at all, or, given ``kind``, gives that observation."""
    for said in read:
        assert findings(matrix, _text(said)).get(rule) is severity, said[:80]
    for said in not_read:
        if kind is None:
            assert rule not in findings(matrix, _text(said)), said[:80]
        else:
            assert kind not in observed(_text(said)), said[:80]
