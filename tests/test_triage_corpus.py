"""Triage on every text of the corpus: the families the maintainers' diagnosis names are found,
and healthy stacks whose problem lay elsewhere get no error and no warning."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.rules import RULES
from tests.corpus import (
    ALL_REPORTS,
    FAMILIES,
    HELD_OUT,
    REPORTS,
    SOURCE_URL,
    CorpusReport,
    families_found,
    names_elided_directory,
    triaged,
)


def _case(report: CorpusReport, token: str, *values: object) -> object:
    """A test case; one the report marks as a known miss must fail (strict), so a mark that
    is no longer true fails loudly too."""
    marks = []
    if token in report.misses:
        marks.append(pytest.mark.xfail(strict=True, reason=f"{report.key}: known miss {token}"))
    return pytest.param(*values, marks=marks, id=f"{report.key}-{token}")


EXPECTED = [_case(r, f, r, f) for r in REPORTS for f in sorted(r.expect - r.undetectable)]
UNDETECTABLE = [_case(r, f"claimed:{f}", r, f) for r in REPORTS for f in sorted(r.undetectable)]
HEALTHY = [_case(r, "healthy", r) for r in REPORTS if r.healthy]
RECOGNISED = [_case(r, "recognised", r) for r in REPORTS]


def test_corpus_is_well_formed() -> None:
    """Format only: held-out reports are checked for shape here, never for what triage finds."""
    assert len(ALL_REPORTS) >= 150
    assert len(HELD_OUT) >= 50
    for report in ALL_REPORTS:
        assert report.split in {"dev", "heldout"}, report.path.name
        assert SOURCE_URL.match(report.source), report.path.name
        assert report.expect <= FAMILIES, report.path.name
        assert report.healthy == (not report.expect), report.path.name
        assert report.undetectable <= report.expect, report.path.name
        assert report.body.strip(), report.path.name
        assert not names_elided_directory(report.body), f"{report.path.name}: elide it (README)"
    assert len(HEALTHY) >= 8


def test_every_family_of_the_corpus_vocabulary_has_rules() -> None:
    """The issue's family names stay; other families (layout, fleet-drift, ...) may be added."""
    assert {r.family for r in RULES} >= FAMILIES


@pytest.mark.parametrize(("report", "family"), EXPECTED)
def test_expected_family_is_found(report: CorpusReport, family: str) -> None:
    assert family in families_found(report.key), [
        (f.id, f.message) for f in triaged(report.key)[1].findings
    ]


@pytest.mark.parametrize(("report", "family"), UNDETECTABLE)
def test_undetectable_family_is_not_claimed(report: CorpusReport, family: str) -> None:
    """A family marked undetectable must stay unfound; once it is found, drop the mark."""
    assert family not in families_found(report.key)


@pytest.mark.parametrize("report", HEALTHY)
def test_healthy_report_gets_no_error_and_no_warning(report: CorpusReport) -> None:
    loud = [f for f in triaged(report.key)[1].findings if f.severity is not Severity.INFO]
    assert not loud, [(f.id, f.message) for f in loud]


@pytest.mark.parametrize("report", RECOGNISED)
def test_every_report_is_recognised_with_evidence_from_its_lines(report: CorpusReport) -> None:
    triage, result = triaged(report.key)
    recognised = triage.facts or any(p.segment.format.name != "prose" for p in triage.segments)
    only_undetectable = bool(report.expect) and report.expect <= report.undetectable
    assert recognised or only_undetectable
    lines = len(report.body.splitlines())
    for finding in result.findings:
        for evidence in finding.evidence:
            if evidence.kind == "text":
                assert evidence.line is not None and 1 <= evidence.line <= lines
    assert result.snapshot.partial and result.snapshot.source.kind == "text"
