"""Stable identities for findings, shared by baselines and SARIF.

A finding keeps its fingerprint when only numbers in its message change (a patch upgrade that
still leaves the driver too old), so a baseline or GitHub code scanning keeps tracking it; a
finding about another file, component or rule gets another fingerprint.
"""

from __future__ import annotations

import hashlib
import re

from stackcheck.check.model import Finding

_NUMBERS = re.compile(r"\d+")


def fingerprint(finding: Finding) -> str:
    subject = _NUMBERS.sub("#", finding.message)
    return hashlib.sha256(f"{finding.id}\0{subject}".encode()).hexdigest()[:32]
