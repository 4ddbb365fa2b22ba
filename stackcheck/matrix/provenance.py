"""Where each matrix fact comes from: primary (read at the vendor's own page or repository),
secondary (read from a copy: a translation, a third-party record), or unsure.

``stackcheck matrix --audit`` counts entries by these classes, per table and in all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from stackcheck.matrix.models import TABLE_KEYS, Fact, Matrix, entry_key

Provenance = Literal["primary", "secondary", "unsure"]
CLASSES: tuple[Provenance, ...] = ("primary", "secondary", "unsure")


def classify(fact: Fact, primary_sources: Sequence[str]) -> Provenance:
    """``unsure`` wins; a value read through a copy (``via``) or a source outside the matrix's
    list of primary prefixes is secondary."""
    if fact.unsure:
        return "unsure"
    if fact.via is not None or not fact.source.startswith(tuple(primary_sources)):
        return "secondary"
    return "primary"


class AuditRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str
    primary: int = 0
    secondary: int = 0
    unsure: int = 0

    @property
    def total(self) -> int:
        return self.primary + self.secondary + self.unsure


class AuditEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str
    key: str
    provenance: Provenance
    source: str
    via: str | None = None


def audit_entries(matrix: Matrix) -> list[AuditEntry]:
    """Every entry of every table with its provenance class."""
    return [
        AuditEntry(
            table=table,
            key=" ".join(entry_key(table, entry)),
            provenance=classify(entry, matrix.primary_sources),
            source=entry.source,
            via=entry.via,
        )
        for table in TABLE_KEYS
        for entry in getattr(matrix, table)
    ]


def audit(matrix: Matrix) -> list[AuditRow]:
    """Counts by provenance class, one row per table, then one named ``all``."""
    rows = {table: AuditRow(table=table) for table in TABLE_KEYS}
    total = AuditRow(table="all")
    for entry in audit_entries(matrix):
        for row in (rows[entry.table], total):
            setattr(row, entry.provenance, getattr(row, entry.provenance) + 1)
    return [*rows.values(), total]


def primary_share(rows: Sequence[AuditRow]) -> float:
    """The share of primary entries in the ``all`` row (0.0 for an empty matrix)."""
    total = rows[-1]
    return total.primary / total.total if total.total else 0.0
