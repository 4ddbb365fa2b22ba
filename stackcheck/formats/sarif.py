"""SARIF 2.1.0 for GitHub code scanning: rules with their explain text, results with levels,
stable fingerprints, and locations GitHub can place: a repository file and a line for a Dockerfile
or pasted report inside the working directory (the checkout in a CI job). Host paths and image
files are not in the repository: they are logical locations, each with a physical location under
a name of its own (`image/...`, `host/...`), because GitHub rejects the whole upload when a
result has a logical location only ("expected a physical location")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

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


SOURCE_ROOT = "%SRCROOT%"  # the checkout: GitHub resolves relative URIs against it


def _repository_file(source: str, root: Path) -> str | None:
    """SOURCE as a URI relative to ROOT when it names a file inside ROOT, else None."""
    try:
        path = (root / source).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
    except (OSError, ValueError):  # a name too long or with a NUL is no repository file
        return None
    return quote(path.relative_to(root).as_posix())


def _location(finding: Finding, report: Report, root: Path) -> dict[str, Any]:
    """The repository file and line the evidence names, else the host path or image file the
    finding is about (the first evidence's source), else the scanned target, as a logical
    location."""
    for evidence in finding.evidence:
        if evidence.line is not None:
            uri = _repository_file(evidence.source, root)
            if uri is not None:
                return {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri, "uriBaseId": SOURCE_ROOT},
                        "region": {"startLine": evidence.line},
                    }
                }
    source = report.snapshot.source
    subject = next((e.source for e in finding.evidence if e.source), source.target)
    where = f"{source.kind} {source.target}"
    qualified = where if subject == source.target else f"{where}: {subject}"
    # Relative, so the colon of an image reference is escaped and never read as a URI scheme.
    placeholder = quote(f"{source.kind}/{subject.lstrip('/')}", safe="/")
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": placeholder, "uriBaseId": SOURCE_ROOT},
            "region": {"startLine": 1},
        },
        "logicalLocations": [
            {"name": subject, "fullyQualifiedName": qualified, "kind": "resource"}
        ],
    }


class SarifFormat(ReportFormat):
    name = "sarif"

    def render(self, report: Report) -> str:
        index = {rule.id: i for i, rule in enumerate(RULES)}
        root = Path.cwd().resolve()
        results = [
            {
                "ruleId": f.id,
                "ruleIndex": index[f.id],
                "level": _LEVELS[f.severity],
                "message": {"text": f"{f.title}: {f.message} Fix: {f.fix}"},
                "locations": [_location(f, report, root)],
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
                    "originalUriBaseIds": {SOURCE_ROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
                    "automationDetails": {"id": f"stackcheck/{report.snapshot.source.kind}/"},
                    "properties": {"matrixVersion": report.matrix_version},
                    "results": results,
                }
            ],
        }
        return json.dumps(document, indent=2) + "\n"
