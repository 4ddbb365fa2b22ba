"""SARIF 2.1.0 for GitHub code scanning: rules with their explain text, results with levels,
stable fingerprints, and locations on the Dockerfile line that set the offending value when one
is known, else on the scanned target."""

from __future__ import annotations

import json
from typing import Any

from stackcheck import __version__
from stackcheck.check.fingerprint import fingerprint
from stackcheck.check.model import Finding, Report, Severity
from stackcheck.formats.base import ReportFormat
from stackcheck.rules import RULES, Rule
from stackcheck.rules.docs import rule_page

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
INFORMATION_URI = "https://github.com/stackcheck/stackcheck"


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.doc.what},
        "help": {"text": rule_page(rule), "markdown": rule_page(rule)},
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
        "properties": {"family": rule.family, "tags": [rule.family]},
    }


def _location(finding: Finding, target: str) -> dict[str, Any]:
    """The Dockerfile line from the evidence when there is one, else the scanned target."""
    for evidence in finding.evidence:
        if evidence.line is not None:
            return {
                "physicalLocation": {
                    "artifactLocation": {"uri": evidence.source},
                    "region": {"startLine": evidence.line},
                }
            }
    return {"physicalLocation": {"artifactLocation": {"uri": target}}}


class SarifFormat(ReportFormat):
    name = "sarif"

    def render(self, report: Report) -> str:
        index = {rule.id: i for i, rule in enumerate(RULES)}
        target = report.snapshot.source.target
        results = [
            {
                "ruleId": f.id,
                "ruleIndex": index[f.id],
                "level": _LEVELS[f.severity],
                "message": {"text": f"{f.title}: {f.message} Fix: {f.fix}"},
                "locations": [_location(f, target)],
                "partialFingerprints": {"stackcheck/v1": fingerprint(f)},
            }
            for f in report.findings
            if f.id in index
        ]
        document = {
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "stackcheck",
                            "version": __version__,
                            "informationUri": INFORMATION_URI,
                            "rules": [_rule(r) for r in RULES],
                        }
                    },
                    "automationDetails": {"id": f"stackcheck/{report.snapshot.source.kind}/"},
                    "properties": {"matrixVersion": report.matrix_version},
                    "results": results,
                }
            ],
        }
        return json.dumps(document, indent=2) + "\n"
