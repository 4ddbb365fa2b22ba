"""Rule pages and the catalogue as a reader copies from them: whole paths, URLs, commands and
identifiers on one line, and the severity a finding really gets."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable

import pytest

from stackcheck.check.model import Severity
from stackcheck.errors import SeverityOutsideRange
from stackcheck.rules import RULES, rule_by_id
from stackcheck.rules.docs import rule_page
from tests.conftest import Outcome

Cli = Callable[..., Outcome]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_pages_break_only_between_words_outside_code(rule: object) -> None:
    page = rule_page(rule)  # type: ignore[arg-type]
    doc = rule.doc  # type: ignore[attr-defined]
    words = page.split()
    for text in (doc.what, doc.why, doc.example, doc.fix):
        for word in text.split():
            assert word in words, f"{word!r} was cut across lines"
    for line in page.splitlines():
        assert line.count("`") % 2 == 0, f"a code span crosses a line: {line!r}"


def test_a_copied_path_is_whole(cli: Cli) -> None:
    page = cli("explain", "SC401").out
    assert "/opt/amazon/ofi-nccl/lib," in page.split()
    span = "`ENV LD_LIBRARY_PATH=/opt/amazon/ofi-nccl/lib:$LD_LIBRARY_PATH`"
    assert any(span in line for line in page.splitlines())
    assert not re.search(r"[-/]\n", page)  # no line ends inside a path or a hyphenated word


def test_rules_show_the_severity_a_finding_gets(cli: Cli) -> None:
    table = {line.split()[0]: line.split()[2] for line in cli("rules").out.splitlines()[1:]}
    assert table["SC311"] == "info-error"  # each known issue carries its own severity
    assert table["SC103"] == "error"
    assert table["SC531"] == "info-error"  # a framework-only pod image is advice
    rows = {row["id"]: row for row in json.loads(cli("rules", "--json").out)}
    assert (rows["SC311"]["severity"], rows["SC311"]["severities"]) == ("error", "info-error")
    assert "Severity: `info-error`" in cli("explain", "SC311").out


def test_a_finding_outside_the_declared_range_is_caught() -> None:
    rule = rule_by_id("SC103")
    assert rule is not None
    with pytest.warns(SeverityOutsideRange, match="SC103 reported at info, outside error"):
        rule.finding("text", severity=Severity.INFO)


@pytest.mark.parametrize("caller_filter", ["default", "error"])
def test_the_command_line_silences_a_catalogue_mistake_unless_the_caller_chose(
    cli: Cli, caller_filter: str
) -> None:
    """A user's run is not a place for a Python warning about the catalogue; a caller that set
    its own filter for it (the test suite makes it an error) keeps that filter."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        if caller_filter == "error":
            warnings.filterwarnings("error", category=SeverityOutsideRange)
        cli("rules")
        rule = rule_by_id("SC103")
        assert rule is not None
        if caller_filter == "error":
            with pytest.raises(SeverityOutsideRange):
                rule.finding("text", severity=Severity.INFO)
        else:
            with warnings.catch_warnings(record=True) as caught:
                rule.finding("text", severity=Severity.INFO)
            assert caught == []
