"""The EFA, runtime and env-var rules, and the host probes that feed them: on trees built to
trigger each, on the snapshots the snapshot model states directly, and on the healthy cases that
must stay quiet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Report, Severity
from stackcheck.live.host import LiveHost
from stackcheck.matrix import Matrix
from stackcheck.probes import ProbeContext, probe_root, run_probes
from stackcheck.snapshot.model import (
    ComponentName,
    EnvVar,
    Evidence,
    Gpu,
    Installation,
    RunSpec,
    Snapshot,
    SnapshotSource,
)
from stackcheck.views import DirectoryView
from tests.support import scenarios
from tests.support.recorded import PROC_VERSION_580, V100_INFORMATION, h100_gpus
from tests.support.rootfs import Root


def said(line: int = 1) -> Evidence:
    return Evidence(kind="text", source=f"report.txt:{line}", detail="(test)")


def text_snapshot(
    env: Mapping[str, str] = (),  # type: ignore[assignment]
    components: Mapping[ComponentName, list[tuple[str, str | None]]] = (),  # type: ignore[assignment]
    **fields: object,
) -> Snapshot:
    """A snapshot as triage builds it: partial, every fact with a line of the text."""
    snapshot = Snapshot(source=SnapshotSource(kind="text", target="report.txt"), partial=True)
    for name, value in dict(env).items():
        snapshot.env[name] = EnvVar(value=value, evidence=said())
    for component, found in dict(components).items():
        for version, cuda in found:
            snapshot.installations(component).append(
                Installation(version=version, cuda=cuda, origin="report", evidence=[said()])
            )
    for name, value in fields.items():
        setattr(snapshot, name, value)
    return snapshot


def findings(report: Report, rule: str) -> list[tuple[Severity, str]]:
    return [(f.severity, f.message) for f in report.findings if f.id == rule]


# -- version-bound EFA presets (SC603) ------------------------------------------------------


def test_nccl_proto_simple_costs_on_any_current_stack(matrix: Matrix) -> None:
    unknown = check(text_snapshot({"NCCL_PROTO": "simple"}), matrix)
    assert [s for s, _ in findings(unknown, "SC603")] == [Severity.WARNING]
    bundled = text_snapshot(
        {"NCCL_PROTO": "Simple"}, {ComponentName.EFA_INSTALLER: [("1.45.0", None)]}
    )
    [(severity, message)] = findings(check(bundled, matrix), "SC603")
    assert severity is Severity.WARNING
    assert "ofi-nccl 1.17.2" in message  # what EFA installer 1.45.0 bundles, from the matrix


def test_presets_old_plugins_need_stay_quiet(matrix: Matrix) -> None:
    old = {ComponentName.OFI_NCCL: [("1.5.0", None)]}
    assert not findings(check(text_snapshot({"NCCL_PROTO": "simple"}, old), matrix), "SC603")
    assert not findings(check(text_snapshot({"FI_PROVIDER": "efa"}, old), matrix), "SC603")
    rdma = text_snapshot(
        {"FI_EFA_USE_DEVICE_RDMA": "1"}, {ComponentName.OFI_NCCL: [("1.6.0", None)]}
    )
    assert not findings(check(rdma, matrix), "SC603")


def test_redundant_presets_are_advice_only_when_versions_say_so(matrix: Matrix) -> None:
    assert not findings(check(text_snapshot({"FI_PROVIDER": "efa"}), matrix), "SC603")
    current = {
        ComponentName.OFI_NCCL: [("1.12.1", None)],
        ComponentName.LIBFABRIC: [("1.22.0amzn4.0", None)],
    }
    for variable in ({"FI_PROVIDER": "efa"}, {"FI_EFA_USE_DEVICE_RDMA": "1"}):
        assert [
            s for s, _ in findings(check(text_snapshot(variable, current), matrix), "SC603")
        ] == [Severity.INFO]
    # Only libfabric known: whether the plugin still needs it is open, so nothing is said.
    partly = text_snapshot(
        {"FI_EFA_USE_DEVICE_RDMA": "1"}, {ComponentName.LIBFABRIC: [("1.22.0", None)]}
    )
    assert not findings(check(partly, matrix), "SC603")
    assert [
        s for s, _ in findings(check(text_snapshot({"RDMAV_FORK_SAFE": "1"}), matrix), "SC603")
    ] == [Severity.WARNING]


# -- other settings -------------------------------------------------------------------------


def test_settings_that_slow_a_job_down(matrix: Matrix) -> None:
    env = {
        "CUDA_LAUNCH_BLOCKING": "1",
        "TORCH_NCCL_BLOCKING_WAIT": "1",
        "NCCL_DEBUG": "INFO",
        "NCCL_DEBUG_SUBSYS": "INIT,ALL",
        "NCCL_SHM_DISABLE": "1",
        "CUDA_DEVICE_MAX_CONNECTIONS": "1",
        "ACCELERATE_USE_FSDP": "true",
        "NVIDIA_DISABLE_REQUIRES": "1",
    }
    report = check(text_snapshot(env), matrix)
    for rule in ("SC601", "SC604", "SC605", "SC606", "SC607", "SC609"):
        assert [s for s, _ in findings(report, rule)] == [Severity.WARNING], rule
    quiet = check(text_snapshot({"NCCL_DEBUG": "INFO", "CUDA_DEVICE_MAX_CONNECTIONS": "1"}), matrix)
    assert not findings(quiet, "SC606") and not findings(quiet, "SC607")


def test_nccl_ib_disable_depends_on_the_fabric(matrix: Matrix) -> None:
    env = {"NCCL_IB_DISABLE": "1"}
    unknown = check(text_snapshot(env), matrix)
    assert [s for s, _ in findings(unknown, "SC602")] == [Severity.INFO]
    infiniband = text_snapshot(env)
    infiniband.runtime.rdma_devices = ["mlx5_0", "mlx5_1"]
    infiniband.runtime.efa_devices = []
    assert [s for s, _ in findings(check(infiniband, matrix), "SC602")] == [Severity.WARNING]
    efa_only = text_snapshot(env)
    efa_only.runtime.rdma_devices = efa_only.runtime.efa_devices = ["rdmap16s27"]
    assert not findings(check(efa_only, matrix), "SC602")


@pytest.mark.parametrize(("gpu", "expected"), [("NVIDIA GeForce RTX 4090", 1), ("NVIDIA H100", 0)])
def test_compat_first_on_a_consumer_gpu(matrix: Matrix, gpu: str, expected: int) -> None:
    snapshot = text_snapshot(
        {"LD_LIBRARY_PATH": "/usr/local/cuda/compat/lib:/usr/local/cuda/lib64"}
    )
    snapshot.gpus.devices.append(Gpu(name=gpu, evidence=[said()]))
    assert len(findings(check(snapshot, matrix), "SC608")) == expected


def test_ngc_entrypoint_override(matrix: Matrix) -> None:
    spec = RunSpec(
        kind="kubernetes",
        image="nvcr.io/nvidia/pytorch:25.01-py3",
        entrypoint="python train.py",
        evidence=[said()],
    )
    [(severity, _)] = findings(check(text_snapshot(run_specs=[spec]), matrix), "SC610")
    assert severity is Severity.INFO


# -- pre-CUDA-11 drivers: no minor-version compatibility --------------------------------------


def test_cuda_10_needs_its_own_release_driver(matrix: Matrix) -> None:
    def torch_on(driver: str) -> Report:
        snapshot = text_snapshot(
            components={
                ComponentName.DRIVER: [(driver, None)],
                ComponentName.TORCH: [("1.6.0", "10.2")],
            }
        )
        return check(snapshot, matrix)

    [(severity, message)] = findings(torch_on("418.67"), "SC101")
    assert severity is Severity.ERROR and "440.33" in message
    healthy = torch_on("440.33")
    assert not findings(healthy, "SC101") and not findings(healthy, "SC102")


# -- EFA reachability, predicted without a log ---------------------------------------------


def test_efa_instance_whose_container_gets_no_devices(matrix: Matrix) -> None:
    spec = RunSpec(kind="docker-run", image="my/trainer", gpus="all", evidence=[said(2)])
    snapshot = text_snapshot(
        {"NCCL_DEBUG": "INFO"}, {ComponentName.TORCH: [("2.7.1+cu128", "12.8")]}, run_specs=[spec]
    )
    snapshot.instance.type = "p5.48xlarge"
    snapshot.instance.evidence.append(said(3))
    report = check(snapshot, matrix)
    for rule in ("SC412", "SC413", "SC511", "SC501"):
        assert findings(report, rule), rule
    assert "SC401" not in {f.id for f in report.findings}  # a text's silence is not absence
    passed = replace(spec, devices=["/dev/infiniband/uverbs0"], memlock_bytes=-1, ipc="host")
    quiet = check(replace(snapshot, run_specs=[passed]), matrix)
    assert not {"SC412", "SC413", "SC511", "SC501"} & {f.id for f in quiet.findings}


# -- host probes: fabric manager, NVSwitches, uverbs, peer memory ----------------------------


def live_snapshot(root: Root) -> Snapshot:
    """The probes over a tree as if it were the running host (LiveHost, no network)."""
    ctx = ProbeContext(
        view=DirectoryView(str(root.path)), env={}, live=LiveHost(allow_network=False)
    )
    return run_probes(ctx, "host", "test")


def p5_host(root: Root) -> None:
    root.debian_loader()
    root.dmi("Amazon EC2", "p5.48xlarge")
    root.driver(PROC_VERSION_580, h100_gpus())


def test_p5_without_fabric_manager(root: Root, matrix: Matrix) -> None:
    p5_host(root)
    snapshot = probe_root(str(root.path))
    assert snapshot.component(ComponentName.FABRIC_MANAGER).unknown
    [(severity, message)] = findings(check(snapshot, matrix), "SC521")
    assert severity is Severity.ERROR and "not installed" in message


def test_fabric_manager_of_another_version(root: Root, matrix: Matrix) -> None:
    p5_host(root)
    root.fabric_manager("580.82.07")
    [manager] = probe_root(str(root.path)).installations(ComponentName.FABRIC_MANAGER)
    assert manager.version == "580.82.07"
    [(_, message)] = findings(check(probe_root(str(root.path)), matrix), "SC522")
    assert "580.82.07" in message and "580.95.05" in message


def test_fabric_manager_running_or_not_on_a_live_host(root: Root, matrix: Matrix) -> None:
    p5_host(root)
    root.fabric_manager("580.95.05")
    root.write("proc/driver/nvidia-nvswitch/devices/0000:05:00.0", "")
    root.write("proc/1/comm", "systemd\n")
    stopped = live_snapshot(root)
    assert stopped.runtime.nvswitch_count == 1
    [manager] = stopped.installations(ComponentName.FABRIC_MANAGER)
    assert manager.properties["running"] == "no"
    assert "installed but not running" in findings(check(stopped, matrix), "SC521")[0][1]
    root.write("proc/4242/comm", "nv-fabricmanage\n")  # the kernel keeps 15 characters
    running = live_snapshot(root)
    assert not findings(check(running, matrix), "SC521")


def test_nvswitches_from_pci_ids(root: Root) -> None:
    for device, model in (("0000:05:00.0", "0x22a3"), ("0000:06:00.0", "0x2330")):
        root.write(f"sys/bus/pci/devices/{device}/vendor", "0x10de\n")
        root.write(f"sys/bus/pci/devices/{device}/device", model + "\n")
    assert probe_root(str(root.path)).runtime.nvswitch_count == 1


def test_container_without_uverbs_on_an_efa_host(root: Root, matrix: Matrix) -> None:
    scenarios.efa_stack(root)
    root.dmi("Amazon EC2", "p5.48xlarge")
    root.write("sys/module/nvidia_peermem/refcnt", "0\n")
    snapshot = live_snapshot(root)
    assert snapshot.runtime.uverbs_devices == [] and snapshot.runtime.peermem_loaded is True
    assert findings(check(snapshot, matrix), "SC411")
    root.write("dev/infiniband/uverbs0", "")
    assert not findings(check(live_snapshot(root), matrix), "SC411")


def test_small_shm_and_memlock_on_a_host(root: Root, matrix: Matrix) -> None:
    root.driver(PROC_VERSION_580, [("0000:06:00.0", V100_INFORMATION)])
    snapshot = probe_root(str(root.path))
    snapshot.runtime.shm_bytes = 64 << 20
    snapshot.runtime.memlock_bytes = 64 << 10
    snapshot.runtime.rdma_devices = []
    report = check(snapshot, matrix)
    assert findings(report, "SC501")
    assert not findings(report, "SC511")  # no RDMA here: the limit does not matter
    snapshot.runtime.rdma_devices = ["mlx5_0"]
    assert findings(check(snapshot, matrix), "SC511")


def test_no_fabric_manager_verdict_inside_a_container(root: Root, matrix: Matrix) -> None:
    """In a container on a p5 the host's fabric manager is out of sight: nothing to say."""
    p5_host(root)
    root.write(".dockerenv", "")
    snapshot = live_snapshot(root)
    assert snapshot.platform.container is True
    assert not findings(check(snapshot, matrix), "SC521")


def test_efa_software_without_efa_hardware_is_not_an_efa_problem(
    root: Root, matrix: Matrix
) -> None:
    """A DLAMI carries the EFA installer and aws-ofi-nccl on every instance type; on a g5.xlarge
    (no EFA) the missing /dev/infiniband devices are no finding."""
    scenarios.efa_stack(root, devices=False)
    root.dmi("Amazon EC2", "g5.xlarge")
    snapshot = live_snapshot(root)
    assert snapshot.runtime.uverbs_devices == []
    report = check(snapshot, matrix)
    assert not {"SC411", "SC413", "SC511"} & {f.id for f in report.findings}


def test_sockets_where_the_report_says_the_machines_have_roce(matrix: Matrix) -> None:
    """Two real texts: 111's NCCL log (no libibverbs, `Using network Socket`) says nothing
    about the fabric, so it is no finding; after 151's "the V cluster now has RoCE enabled" it
    is a warning."""
    from stackcheck.ingest import read_report
    from tests.corpus import body

    alone = check(read_report(body("111"), "111.txt").snapshot, matrix)
    assert not findings(alone, "SC413")
    both = read_report(body("151") + "\n\n" + body("111"), "both.txt").snapshot
    [(severity, message)] = findings(check(both, matrix), "SC413")
    assert severity is Severity.WARNING and "InfiniBand or RoCE" in message
