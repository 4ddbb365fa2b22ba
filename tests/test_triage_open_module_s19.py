"""Triage reads a GPU that only NVIDIA's open kernel module drives, under the proprietary one
(s19): the proprietary module's own NVRM line and a report's retelling of it beside the module
loaded or the driver failing (tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


def test_the_proprietary_module_on_a_gpu_that_needs_the_open_one(matrix: Matrix) -> None:
    """1537: EKS's AL2023 AMI loading the proprietary module on a g7's Blackwell GPU."""
    assert findings(matrix, body("1537")).get("SC1327") is Severity.ERROR
    for said in (
        # the proprietary module's own lines (R560+), as dmesg prints them
        "[    5.559842] NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:2c58)\n"
        "               NVRM: installed in this system requires use of the NVIDIA open kernel "
        "modules.\n",
        "The closed driver got installed, but the RTX 5090 needs the open kernel modules.\n",
        "nvidia-smi fails: Blackwell requires the NVIDIA open-source kernel modules.\n",
    ):
        assert findings(matrix, said).get("SC1327") is Severity.ERROR, said


def test_advice_a_question_or_the_open_module_in_use_is_not_read(matrix: Matrix) -> None:
    for said in (
        "Does the B200 require the open kernel modules?\n",
        "Blackwell requires the open kernel modules, so we install nvidia-driver-570-open.\n",
        "If the proprietary module is loaded, note that Blackwell needs the open kernel modules.\n",
        "The H100 works with the open kernel modules instead of the proprietary one.\n",
    ):
        assert "SC1327" not in findings(matrix, said), said
