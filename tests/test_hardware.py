"""The hardware path: sysfs trees shaped like the kernel's through the probe and the rules."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Report, Severity
from stackcheck.matrix import Matrix
from stackcheck.parsers.hardware import acs_redirects, sysfs_speed, xid_line
from stackcheck.probes import probe_root
from stackcheck.probes.sysfs import DMI_PRODUCT
from stackcheck.snapshot.hardware import normalise_bus_id
from stackcheck.views.base import SMALL_FILE_LIMIT, FileView
from tests.support import sysfs
from tests.support.fleet import write_fleet
from tests.support.recorded import PROC_VERSION_580, h100_gpus
from tests.support.rootfs import Root


def hardware_findings(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.id in sysfs.HARDWARE_RULES]


def p5(root: Root, switches: list[sysfs.Switch] | None = None) -> sysfs.SysfsHost:
    root.driver(PROC_VERSION_580, h100_gpus())
    return sysfs.build(root, "p5.48xlarge", switches or sysfs.p5_switches(), nvswitches=4)


def test_kernel_formats() -> None:
    assert sysfs_speed("32.0 GT/s PCIe\n") == 32.0
    assert sysfs_speed("8 GT/s") == 8.0  # kernels before 5.x wrote no decimals nor "PCIe"
    assert sysfs_speed("Unknown") is None
    assert normalise_bus_id("00000000:53:00.0") == "0000:53:00.0"
    assert normalise_bus_id("PCI:0000:44:00") == "0000:44:00.0"
    assert normalise_bus_id("53:00.0") == "0000:53:00.0"


def test_acs_control_from_config_space() -> None:
    assert acs_redirects(sysfs.acs_config(redirect=True)) is True
    assert acs_redirects(sysfs.acs_config(redirect=False)) is False
    assert acs_redirects(bytes(64)) is None  # a non-root reader sees 64 bytes


def test_xid_lines() -> None:
    # NVIDIA/NVSentinel#155 (a maintainer's comment) and stas00/ml-engineering's debug guide.
    found = xid_line("NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus")
    assert found is not None and (found.code, found.bus_id) == (79, "0000:44:00")
    found = xid_line(
        "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, "
        "reset gpu to activate."
    )
    assert found is not None and found.code == 63


def test_probe_reads_the_p5_tree(root: Root) -> None:
    p5(root)
    hardware = probe_root(str(root.path)).hardware
    kinds = [d.kind for d in hardware.devices]
    assert (kinds.count("gpu"), kinds.count("efa"), kinds.count("nvswitch")) == (8, 32, 4)
    gpu3 = hardware.device("0000:83:00.0")
    assert gpu3 is not None and gpu3.gpu_index == 3 and gpu3.numa_node == 0
    assert gpu3.name == "NVIDIA H100 80GB HBM3"
    assert gpu3.link.max_speed_gts == 32.0 and gpu3.link.port_max_width == 16
    assert len(hardware.ports) == 32 and all(p.state == "ACTIVE" for p in hardware.ports)
    assert hardware.iommu == "passthrough" and hardware.bare_metal is False


@pytest.mark.parametrize(
    ("instance", "switches", "nvswitches"),
    [
        ("p5.48xlarge", sysfs.p5_switches, 4),
        ("p4d.24xlarge", sysfs.p4d_switches, 6),
        ("g5.48xlarge", sysfs.g5_switches, 0),
    ],
)
def test_healthy_trees_give_no_hardware_finding(
    root: Root, matrix: Matrix, instance: str, switches: object, nvswitches: int
) -> None:
    sysfs.build(root, instance, switches(), nvswitches)  # type: ignore[operator]
    report = check(probe_root(str(root.path)), matrix)
    assert hardware_findings(report) == []


def test_p5_with_a_gpu_at_x8_gen4_and_an_efa_port_down(root: Root, matrix: Matrix) -> None:
    switches = sysfs.p5_switches()
    switches[3].gpu = sysfs.gpu("0000:83:00.0", gen=4, width=8)
    host = p5(root, switches)
    host.port_down("rdmap166s0")  # the third EFA device behind GPU 5's switch (bus 0xa6)
    report = check(probe_root(str(root.path)), matrix)
    found = {f.id: f for f in hardware_findings(report)}
    assert set(found) == {"SC1101", "SC1110"}
    link = found["SC1101"]
    assert link.severity is Severity.WARNING
    assert link.message == (
        "GPU 3 (NVIDIA H100 80GB HBM3, 0000:83:00.0, NUMA node 0): PCIe link at x8 16 GT/s "
        "(Gen4), capable of x16 32 GT/s (Gen5); its EFA devices: rdmap132s0, rdmap133s0, "
        "rdmap134s0, rdmap135s0."
    )
    assert link.evidence[0].source == "/sys/bus/pci/devices/0000:83:00.0/current_link_speed"
    port = found["SC1110"]
    assert port.severity is Severity.WARNING
    assert port.message == (
        "EFA device rdmap166s0 (0000:a6:00.0, NUMA node 1); it serves GPU 5: port 1 is DOWN, "
        "physical Disabled, not ACTIVE."
    )
    assert port.evidence[0].detail == "1: DOWN"


def test_missing_efa_devices_and_numa(root: Root, matrix: Matrix) -> None:
    switches = sysfs.p5_switches()
    for switch in switches[4:]:
        switch.efas = []  # node 1's EFA devices are gone
    p5(root, switches)
    report = check(probe_root(str(root.path)), matrix)
    found = hardware_findings(report)
    missing = [f for f in found if f.id == "SC1111"]
    assert [f.message for f in missing] == ["16 EFA devices on the PCI bus; p5.48xlarge has 32."]
    numa = [f for f in found if f.id == "SC1130"]
    assert len(numa) == 0  # EFA devices left on one node only: nothing pairs locally to judge


def test_bare_metal_acs_and_iommu(root: Root, matrix: Matrix) -> None:
    host = sysfs.SysfsHost(root)
    root.dmi("Amazon EC2", "p5.metal")
    host.cpuinfo(hypervisor=False)
    host.switch(0, sysfs.p5_switches()[0], acs_redirect=True)
    for group in (root.path / "sys/kernel/iommu_groups").iterdir():
        (group / "type").write_text("DMA-FQ\n")  # booted without iommu=pt
    report = check(probe_root(str(root.path)), matrix)
    found = {f.id: f for f in hardware_findings(report)}
    assert found["SC1125"].message.startswith(
        "GPU (0000:53:00.0, NUMA node 0): ACS redirects peer-to-peer traffic at 0000:52:00.0, "
        "0000:51:00.0."
    )
    assert found["SC1126"].evidence[0].detail == "DMA-FQ"
    assert sum(f.id == "SC1125" for f in hardware_findings(report)) == 5  # the GPU and 4 EFA


def test_dmi_is_read_once_for_the_instance_type_and_bare_metal(
    root: Root, monkeypatch: pytest.MonkeyPatch
) -> None:
    root.dmi("Amazon EC2", "p5.metal")
    read: list[str] = []
    read_text = FileView.read_text

    def counted(view: FileView, path: str, limit: int = SMALL_FILE_LIMIT) -> str | None:
        read.append(path)
        return read_text(view, path, limit)

    monkeypatch.setattr(FileView, "read_text", counted)
    snapshot = probe_root(str(root.path))
    assert snapshot.instance.type == "p5.metal" and snapshot.hardware.bare_metal is True
    assert read.count(DMI_PRODUCT) == 1


def test_probe_stays_cheap(root: Root) -> None:
    """The whole probe of a p5 tree (8 GPUs, 32 EFA, 4 NVSwitches) in well under the start-up
    budget: sysfs reads only."""
    p5(root)
    start = time.perf_counter()
    probe_root(str(root.path))
    assert time.perf_counter() - start < 2.0


def test_fleet_names_the_node_whose_gpu_link_trained_low(
    root: Root, tmp_path: Path, cli: Callable[..., Any]
) -> None:
    p5(root)
    healthy = probe_root(str(root.path))
    switches = sysfs.p5_switches()
    switches[3].gpu = sysfs.gpu("0000:83:00.0", gen=4, width=8)
    odd = Root(tmp_path / "odd", root.elves)
    p5(odd, switches)
    stacks = {"healthy": healthy, "odd": probe_root(str(odd.path))}
    nodes = {f"p5-{n:03d}": "odd" if n == 17 else "healthy" for n in range(1, 65)}
    write_fleet(tmp_path / "fleet", stacks, nodes)
    done = cli("fleet", str(tmp_path / "fleet"))
    out = " ".join(done.out.split())
    assert (
        "The PCIe link of GPU 3 (NVIDIA H100 80GB HBM3, 0000:83:00.0, NUMA node 0) differs "
        "between nodes: at its capability on 63 of 64 nodes; x8 16 GT/s (Gen4), capable of x16 "
        "32 GT/s (Gen5) on 1: p5-017." in out
    ), out


def test_an_efa_device_the_driver_did_not_register(root: Root, matrix: Matrix) -> None:
    """The EFA driver reports every registered port ACTIVE (efa_query_port), so a dead EFA port
    shows as a PCI function without its /sys/class/infiniband device."""
    p5(root)
    (root.path / "sys/class/infiniband/rdmap166s0").unlink()
    report = check(probe_root(str(root.path)), matrix)
    [finding] = hardware_findings(report)
    assert finding.id == "SC1110"
    assert finding.message == (
        "EFA device (0000:a6:00.0, NUMA node 1); it serves GPU 5: on the PCI bus but not "
        "registered as an RDMA device: its port is unusable."
    )


def test_xid_lines_of_the_kernel_log(root: Root, matrix: Matrix) -> None:
    p5(root)
    data = Path(__file__).parent / "data" / "hardware"
    log = (data / "dmesg-xid-63.txt").read_text() + (data / "dmesg-xid-79.txt").read_text()
    root.write("var/log/kern.log", log)
    found = {
        f.id + f.severity.value: f
        for f in hardware_findings(check(probe_root(str(root.path)), matrix))
    }
    assert set(found) == {"SC1117warning", "SC1117error"}
    assert found["SC1117error"].evidence[0].source == "/var/log/kern.log"
    assert "Xid 79" in found["SC1117error"].message
