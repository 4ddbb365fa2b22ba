"""``nvidia-smi topo -m`` in triage: GPU-NIC paths and NUMA affinity from a recorded public
output (tests/data/hardware/SOURCES.md), and the numa-affinity rule they feed."""

from __future__ import annotations

from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.hardware import Hardware
from tests.support import sysfs

DATA = Path(__file__).parent / "data" / "hardware"
HEALTHY = "nvidia-smi-topo-m-h100x8-4numa.txt"
MISSING = "nvidia-smi-topo-m-h100x8-4numa-gpu3-nics-missing.txt"
LEGEND = "nvidia-smi-topo-m-rtx6000ada-legend.txt"


def hardware(text: str) -> Hardware:
    return read_report(text, "pasted").snapshot.hardware


def test_paths_and_numa_affinity_are_read_from_a_cut_matrix() -> None:
    paths = hardware((DATA / HEALTHY).read_text()).paths
    # the paste is cut inside GPU6's row: GPUs 0-5 with all nine NICs, GPU6 with none
    assert sorted({p.gpu_index for p in paths}) == [0, 1, 2, 3, 4, 5]
    assert len(paths) == 6 * 9
    numa = {p.gpu_index: p.gpu_numa_node for p in paths}
    assert numa == {0: 0, 1: 0, 2: 0, 3: 1, 4: 2, 5: 2}
    gpu3 = {p.nic: p.path for p in paths if p.gpu_index == 3}
    assert gpu3 == {
        "NIC0": "SYS",
        "NIC1": "SYS",
        "NIC2": "SYS",
        "NIC3": "NODE",
        "NIC4": "PIX",
        "NIC5": "SYS",
        "NIC6": "SYS",
        "NIC7": "SYS",
        "NIC8": "SYS",
    }
    assert all(p.evidence is not None and p.evidence.line == p.gpu_index + 2 for p in paths)


def test_nic_legend_names_the_nics(matrix: Matrix) -> None:
    text = (DATA / LEGEND).read_text()
    paths = hardware(text).paths
    assert {(p.gpu_index, p.nic): p.path for p in paths if p.gpu_index in (0, 2)} == {
        (0, "mlx5_0"): "NODE",
        (0, "mlx5_1"): "NODE",
        (0, "mlx5_2"): "SYS",
        (0, "mlx5_3"): "SYS",
        (2, "mlx5_0"): "SYS",
        (2, "mlx5_1"): "SYS",
        (2, "mlx5_2"): "NODE",
        (2, "mlx5_3"): "NODE",
    }
    assert {p.gpu_index: p.gpu_numa_node for p in paths} == {0: 0, 1: 0, 2: 1, 3: 1}
    report = check(read_report(text, "pasted").snapshot, matrix)
    assert [f for f in report.findings if f.id in sysfs.HARDWARE_RULES] == []


def test_segment_survives_indentation_and_quoting() -> None:
    text = (DATA / HEALTHY).read_text()
    plain = [(p.gpu_index, p.nic, p.path, p.gpu_numa_node) for p in hardware(text).paths]
    indented = "\n".join("    " + line for line in text.splitlines())
    quoted = "\n".join("> " + line for line in text.splitlines())
    for variant in (indented, quoted):
        read = [(p.gpu_index, p.nic, p.path, p.gpu_numa_node) for p in hardware(variant).paths]
        assert read == plain


def test_healthy_matrix_gives_no_hardware_finding(matrix: Matrix) -> None:
    report = check(read_report((DATA / HEALTHY).read_text(), "pasted").snapshot, matrix)
    assert [f for f in report.findings if f.id in sysfs.HARDWARE_RULES] == []


def test_gpu_whose_numa_node_lost_its_nics(matrix: Matrix) -> None:
    report = check(read_report((DATA / MISSING).read_text(), "pasted").snapshot, matrix)
    [found] = [f for f in report.findings if f.id in sysfs.HARDWARE_RULES]
    assert found.id == "SC1130"
    assert found.message == (
        "GPU 3 (NUMA node 1) reaches every NIC across NUMA nodes (SYS in nvidia-smi topo -m); "
        "the NICs are on nodes 0, 2."
    )
    assert found.evidence[0].line == 5
