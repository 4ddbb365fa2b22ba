"""Applying the policy after the check, so every input (host, image, text, Dockerfile) gets the
same gate; suppressed findings stay in the report, counted and listed."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from stackcheck.check.fingerprint import fingerprint
from stackcheck.check.model import Finding, Report, Suppressed
from stackcheck.policy.config import Config

# (file, line) -> the rule IDs an inline `# stackcheck: ignore[...]` covers there
InlineIgnores = Mapping[tuple[str, int], frozenset[str]]


def _inline(finding: Finding, inline: InlineIgnores) -> str | None:
    for evidence in finding.evidence:
        if evidence.line is not None and finding.id in inline.get(
            (evidence.source, evidence.line), ()
        ):
            return f"inline ignore at {evidence.source}:{evidence.line}"
    return None


def apply_policy(
    report: Report,
    config: Config,
    baseline: Collection[str] = (),
    baseline_name: str = "",
    inline: InlineIgnores | None = None,
) -> Report:
    """The report with ``config``'s overrides applied and suppressed findings moved aside."""
    kept = []
    suppressed = list(report.suppressed)
    for finding in report.findings:
        inline_reason = _inline(finding, inline or {})
        if inline_reason is not None:
            suppressed.append(Suppressed(finding=finding, reason=inline_reason))
            continue
        if finding.id in config.ignore:
            suppressed.append(Suppressed(finding=finding, reason=f"ignored by {config.origin}"))
            continue
        if fingerprint(finding) in baseline:
            suppressed.append(Suppressed(finding=finding, reason=f"in baseline {baseline_name}"))
            continue
        override = config.severity.get(finding.id)
        kept.append(
            finding if override is None else finding.model_copy(update={"severity": override})
        )
    kept.sort(key=lambda f: (-f.severity.rank, f.id, f.message))
    return report.model_copy(update={"findings": kept, "suppressed": suppressed})
