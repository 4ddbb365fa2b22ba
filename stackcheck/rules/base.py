"""The rule interface. Each rule has a stable ID, a family, a default severity and its docs
(what it checks, why it matters, an example, the fix), in the manner of ruff's rule pages."""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.errors import SeverityOutsideRange
from stackcheck.snapshot.model import Evidence


@dataclass(frozen=True)
class RuleDoc:
    what: str  # what it does
    why: str  # why is this bad
    example: str  # a situation that triggers it
    fix: str  # what to do instead
    references: tuple[str, ...] = ()


class Rule(ABC):
    id: ClassVar[str]  # "SC101"; never reused, never renumbered
    name: ClassVar[str]  # "driver-too-old"
    family: ClassVar[str]  # "driver-cuda"
    severity: ClassVar[Severity]  # the most severe level the rule reports at
    lowest: ClassVar[Severity | None] = None  # the least severe, when lower than ``severity``
    title: ClassVar[str]
    doc: ClassVar[RuleDoc]

    @abstractmethod
    def check(self, ctx: CheckContext) -> Iterable[Finding]: ...

    @classmethod
    def severities(cls) -> str:
        """The level its findings get, or the range: "error", "info-error"."""
        if cls.lowest is None or cls.lowest is cls.severity:
            return cls.severity.value
        return f"{cls.lowest.value}-{cls.severity.value}"

    def finding(
        self,
        message: str,
        evidence: Sequence[Evidence] = (),
        *,
        fix: str | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        level = severity or self.severity
        if not self.severity.at_least(level) or not level.at_least(self.lowest or self.severity):
            # The catalogue would show a wrong severity.
            warnings.warn(
                f"{self.id} reported at {level.value}, outside {self.severities()}",
                SeverityOutsideRange,
                stacklevel=2,
            )
        return Finding(
            id=self.id,
            family=self.family,
            severity=level,
            title=self.title,
            message=message,
            evidence=list(dict.fromkeys(evidence)),
            fix=fix or self.doc.fix,
            docs=f"stackcheck explain {self.id}",
        )

    def capped(self, unsure: bool, severity: Severity | None = None) -> Severity:
        """The rule's severity (or ``severity``), lowered to warning when it rests on an unsure
        matrix fact."""
        level = severity or self.severity
        if unsure and level is Severity.ERROR:
            return Severity.WARNING
        return level
