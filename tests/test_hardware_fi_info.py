"""``fi_info -v`` in triage: the link state of each device from libfabric's own documented
output (tests/data/hardware/SOURCES.md), and the efa-link rule it feeds."""

from __future__ import annotations

from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.support import sysfs

DATA = Path(__file__).parent / "data" / "hardware"


def test_link_up_is_an_active_port(matrix: Matrix) -> None:
    text = (DATA / "fi-info-v-mlx5-link-up.txt").read_text()
    snapshot = read_report(text, "pasted").snapshot
    [port] = snapshot.hardware.ports
    assert (port.device, port.port, port.state) == ("mlx5_0", 1, "ACTIVE")
    assert port.evidence[0].detail == "state: FI_LINK_UP"
    report = check(snapshot, matrix)
    assert [f for f in report.findings if f.id in sysfs.HARDWARE_RULES] == []


def test_link_down_is_reported(matrix: Matrix) -> None:
    text = (DATA / "fi-info-v-mlx5-link-down.txt").read_text()
    report = check(read_report(text, "pasted").snapshot, matrix)
    [down] = [f for f in report.findings if f.id in sysfs.HARDWARE_RULES]
    assert (down.id, down.message) == ("SC1110", "RDMA device mlx5_0: port 1 is DOWN, not ACTIVE.")
    assert down.evidence[0].line == 90


def test_one_state_per_device_and_quoting() -> None:
    text = (DATA / "fi-info-v-mlx5-link-up.txt").read_text()
    # the record twice in one listing, as fi_info prints one per endpoint type ("---" between)
    record = text.splitlines()[1:-1]  # without the fences
    twice = "\n".join("> " + line for line in ["```", *record, "---", *record, "```"])
    ports = read_report(twice, "pasted").snapshot.hardware.ports
    assert [(p.device, p.state) for p in ports] == [("mlx5_0", "ACTIVE")]
    indented = "\n".join("    " + line for line in text.splitlines())
    ports = read_report(indented, "pasted").snapshot.hardware.ports
    assert [(p.device, p.state) for p in ports] == [("mlx5_0", "ACTIVE")]
