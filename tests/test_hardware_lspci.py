"""``lspci -vv`` in triage: the PCIe links, NUMA nodes and ACS state of GPUs, NVSwitches and EFA
devices from recorded public output (tests/data/hardware/SOURCES.md), and the rules they feed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.hardware import Hardware
from tests.conftest import Outcome
from tests.support import sysfs

DATA = Path(__file__).parent / "data" / "hardware"
HEALTHY = "lspci-vvv-rtx6000ada-cx7.txt"
X8 = "lspci-vvv-rtx6000ada-x8.txt"


def hardware(text: str) -> Hardware:
    return read_report(text, "pasted").snapshot.hardware


def findings(matrix: Matrix, text: str) -> list[Finding]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f for f in report.findings if f.id in sysfs.HARDWARE_RULES]


def test_gpus_their_links_and_numa_nodes_are_read() -> None:
    devices = hardware((DATA / HEALTHY).read_text()).devices
    # four GPUs; the ConnectX-7 and RAID carriers are neither GPU, NVSwitch nor EFA
    assert [(d.address, d.kind, d.numa_node) for d in devices] == [
        ("0000:01:00.0", "gpu", 0),
        ("0000:41:00.0", "gpu", 0),
        ("0000:c1:00.0", "gpu", 1),
        ("0000:e1:00.0", "gpu", 1),
    ]
    gpu = devices[0]
    assert gpu.name == "RTX 6000 Ada Generation"
    assert (gpu.link.speed_gts, gpu.link.width) == (2.5, 16)
    assert (gpu.link.max_speed_gts, gpu.link.max_width) == (16.0, 16)
    assert gpu.upstream == [] and gpu.acs_redirect == []  # no bridge in the paste
    assert [e.detail for e in gpu.evidence][1] == "LnkSta: Speed 2.5GT/s (downgraded), Width x16"


def test_idle_gpus_at_gen1_give_no_finding(matrix: Matrix) -> None:
    # NVIDIA GPUs drop to 2.5 GT/s when idle; lspci calls it "(downgraded)", the rule does not
    assert findings(matrix, (DATA / HEALTHY).read_text()) == []


def test_a_gpu_at_x8_is_reported_with_its_bus_id(matrix: Matrix) -> None:
    [found] = findings(matrix, (DATA / X8).read_text())
    assert (found.id, found.severity) == ("SC1101", Severity.WARNING)
    assert found.message == (
        "GPU (RTX 6000 Ada Generation, 0000:41:00.0, NUMA node 0): PCIe link at x8 8 GT/s "
        "(Gen3), capable of x16 16 GT/s (Gen4)."
    )
    assert [e.line for e in found.evidence] == [4, 33]


def test_segment_survives_indentation_and_quoting() -> None:
    text = (DATA / HEALTHY).read_text()

    def without_device_evidence(read: Hardware) -> Hardware:
        return replace(read, devices=[replace(d, evidence=[]) for d in read.devices])

    plain = without_device_evidence(hardware(text))
    for prefix in ("    ", "> ", ">  "):
        variant = "\n".join(prefix + line for line in text.splitlines())
        assert without_device_evidence(hardware(variant)) == plain


# Assembled, not recorded: a PLX switch port's lines from HeyMeco/Rockchip-pcie-devices#6 (its
# header, bus range and an ACSCtl line of that thread with ReqRedir+ CmpltRedir+) above an A100
# whose header and NUMA line are open-mpi/hwloc#653's, its bus number moved to the port's
# secondary bus. No public lspci -vv of a GPU and the redirecting switch above it was found.
ACS_ABOVE_GPU = """\
0000:02:08.0 PCI bridge: PLX Technology, Inc. PEX 8725 24-Lane, 10-Port PCI Express Gen 3 (8.0 GT/s) Multi-Root Switch with DMA (rev ca) (prog-if 00 [Normal decode])
\tBus: primary=02, secondary=82, subordinate=82, sec-latency=0
\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
0000:82:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0] (rev a1)
\tNUMA node: 5
"""  # noqa: E501


def test_acs_redirect_of_the_bridge_above_a_gpu(matrix: Matrix) -> None:
    [gpu] = hardware(ACS_ABOVE_GPU).devices
    assert (gpu.address, gpu.name, gpu.numa_node) == ("0000:82:00.0", "A100 SXM4 40GB", 5)
    assert gpu.upstream == gpu.acs_redirect == ["0000:02:08.0"]
    [found] = findings(matrix, ACS_ABOVE_GPU)
    # a paste does not say whether the host is bare metal: info, not a warning
    assert (found.id, found.severity) == ("SC1125", Severity.INFO)
    assert found.message == (
        "GPU (A100 SXM4 40GB, 0000:82:00.0, NUMA node 5): ACS redirects peer-to-peer traffic at "
        "0000:02:08.0 (if this host is bare metal; in a VM it is the hypervisor's)."
    )
    assert [e.line for e in found.evidence] == [4, 3]


def test_plain_lspci_of_a_p4d_names_its_efa_devices_and_gpus(matrix: Matrix) -> None:
    text = (DATA / "lspci-p4d-efa-cut.txt").read_text()
    devices = hardware(text).devices
    assert [(d.address, d.kind) for d in devices] == [
        ("0000:10:1b.0", "efa"),
        ("0000:10:1c.0", "gpu"),
        ("0000:10:1d.0", "gpu"),
        ("0000:20:1b.0", "efa"),
        ("0000:20:1c.0", "gpu"),
        ("0000:20:1d.0", "gpu"),
    ]
    # no link, NUMA node or bridge in a plain listing: nothing to judge, and a pasted listing
    # is never counted against the instance's EFA devices
    assert findings(matrix, text) == []


def test_the_report_counts_the_gpus_the_paste_names(cli: Callable[..., Outcome]) -> None:
    """The stack never says "GPUs: none found" beside a finding about a GPU it read."""
    done = cli("triage", str(DATA / HEALTHY))
    gpus = next(line for line in done.out.splitlines() if line.strip().startswith("GPUs"))
    assert "4 on the PCIe bus (RTX 6000 Ada Generation)" in gpus
    assert "none found" not in done.out


def test_machine_readable_lines_inside_a_test_frameworks_log() -> None:
    """``lspci -mm`` quoted lines, as LISA logged them (microsoft/lisa#2821): GPUs and NVSwitches
    by class and vendor; other functions are left alone."""
    prefix = "2023-06-27 05:50:13.314[27620][DEBUG] lisa.env[generated_2].node[0].cmd[3400].stdout "
    text = (
        f'{prefix}0001:00:00.0 "3D controller" "NVIDIA Corporation" "GA100 [A100 SXM4 40GB]" '
        '-ra1 "NVIDIA Corporation" "Device 134f"\n'
        f'{prefix}0005:00:00.0 "Bridge" "NVIDIA Corporation" "GA100 [A100 NVSwitch]" -ra1 '
        '"NVIDIA Corporation" "Device 13b8"\n'
        f'{prefix}0006:00:00.0 "Bridge" "Intel Corporation" "440FX - 82441FX PMC" -r02 "" ""\n'
    )
    devices = hardware(text).devices
    assert [(d.address, d.kind, d.name) for d in devices] == [
        ("0001:00:00.0", "gpu", "A100 SXM4 40GB"),
        ("0005:00:00.0", "nvswitch", None),
    ]
