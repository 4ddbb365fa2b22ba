"""Triage of hardware-path outputs: nvidia-smi -q's health sections and kernel Xid lines, from
recorded public outputs (tests/data/hardware/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.support import sysfs

DATA = Path(__file__).parent / "data" / "hardware"


def findings(matrix: Matrix, *names: str) -> list[Finding]:
    text = "\n".join((DATA / name).read_text() for name in names)
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f for f in report.findings if f.id in sysfs.HARDWARE_RULES]


def test_hw_slowdown_and_pending_remaps(matrix: Matrix) -> None:
    found = findings(
        matrix, "nvidia-smi-q-a10-hw-slowdown.txt", "nvidia-smi-q-a100-remap-pending.txt"
    )
    by_id = {f.id: f for f in found}
    assert set(by_id) == {"SC1115", "SC1116"}
    throttled = by_id["SC1115"]
    assert throttled.severity is Severity.WARNING
    assert throttled.message == (
        "GPU 0 (NVIDIA A10, 0000:06:00.0): clocks held down by HW Slowdown, "
        "HW Power Brake Slowdown."
    )
    assert [e.detail for e in throttled.evidence] == [
        "GPU 00000000:06:00.0",
        "HW Slowdown                       : Active",
        "HW Power Brake Slowdown       : Active",
    ]
    remaps = by_id["SC1116"]
    assert remaps.severity is Severity.WARNING  # pending, not failed: a reset activates them
    assert "0000:10:1c.0" in remaps.message and "remapped rows are pending" in remaps.message
    assert remaps.evidence[-1].detail == "Pending                           : Yes"


def test_healthy_nvidia_smi_q_gives_no_hardware_finding(matrix: Matrix) -> None:
    assert findings(matrix, "nvidia-smi-q-a10-healthy.txt") == []


def test_xid_79_names_the_gpu(matrix: Matrix) -> None:
    [xid] = findings(matrix, "dmesg-xid-79.txt")
    assert (xid.id, xid.severity) == ("SC1117", Severity.ERROR)
    assert xid.message.startswith("GPU 0000:44:00.0: Xid 79, GPU has fallen off the bus")
    assert xid.evidence[0].line == 1


def test_xid_63_with_the_smi_output_of_the_same_gpu(matrix: Matrix) -> None:
    found = findings(matrix, "nvidia-smi-q-a100-remap-pending.txt", "dmesg-xid-63.txt")
    xid = next(f for f in found if f.id == "SC1117")
    assert xid.severity is Severity.WARNING
    assert xid.message.startswith("GPU 0 (NVIDIA A100-SXM4-80GB, 0000:10:1c.0): Xid 63")


def test_ibv_devinfo_port_states(matrix: Matrix) -> None:
    assert findings(matrix, "ibv-devinfo-efa-active.txt") == []
    [down] = findings(matrix, "ibv-devinfo-mlx5-port-down.txt")
    assert (down.id, down.message) == ("SC1110", "RDMA device mlx5_12: port 1 is DOWN, not ACTIVE.")
    assert down.evidence[0].line == 12


def test_nvlink_status_links_are_read(matrix: Matrix) -> None:
    text = (DATA / "nvidia-smi-nvlink-status-h100.txt").read_text()
    snapshot = read_report(text, "pasted").snapshot
    links = [link for gpu in snapshot.hardware.gpus for link in gpu.nvlinks]
    assert [(link.link, link.active) for link in links] == [(0, True), (17, True)]
    assert findings(matrix, "nvidia-smi-nvlink-status-h100.txt") == []


def test_inactive_nvlinks_of_a_v100_host(matrix: Matrix) -> None:
    found = findings(matrix, "nvidia-smi-nvlink-status-v100-inactive.txt")
    assert [(f.id, f.severity) for f in found] == [("SC1105", Severity.WARNING)] * 4
    assert [f.message for f in found] == [
        "GPU 3: NVLink links 3, 5 down; 4 of 6 active.",
        "GPU 4: NVLink link 1 down; 5 of 6 active.",
        "GPU 5: NVLink links 0, 4 down; 4 of 6 active.",
        "GPU 6: NVLink link 1 down; 5 of 6 active.",
    ]
    assert [e.detail for e in found[0].evidence] == ["Link 3: <inactive>", "Link 5: <inactive>"]


def test_eight_healthy_a100s_with_persistence_off(matrix: Matrix) -> None:
    [finding] = findings(matrix, "nvidia-smi-q-a100x8-azure.txt")
    assert (finding.id, finding.severity) == ("SC1120", Severity.INFO)
    assert finding.message.startswith(
        "Persistence mode is off on 8 GPUs: GPU 0 (A100-SXM4-40GB, 0001:00:00.0), "
    )
