"""Probing whole trees shaped like a DLAMI host, an NGC image and a broken host."""

from __future__ import annotations

from stackcheck.probes import probe_root
from stackcheck.snapshot import ComponentName, load_snapshot
from stackcheck.snapshot.io import dump_snapshot
from tests.support import scenarios
from tests.support.recorded import PROC_VERSION_535, V100_INFORMATION
from tests.support.rootfs import Root


def test_dlami_host_every_component_with_evidence(root: Root) -> None:
    scenarios.dlami_p5(root)
    snap = probe_root(str(root.path))
    [driver] = snap.installations(ComponentName.DRIVER)
    assert driver.version == "580.95.05"
    sources = {e.source for e in driver.evidence}
    assert "/proc/driver/nvidia/version" in sources
    assert any(s.endswith("libcuda.so.1") or "libcuda" in s for s in sources)
    assert len(snap.gpus.devices) == 8
    assert snap.gpus.devices[0].name == "NVIDIA H100 80GB HBM3"
    assert snap.instance.type == "p5.48xlarge"
    assert snap.instance.ami == "AWS Deep Learning AMI"
    toolkits = {t.version: t for t in snap.installations(ComponentName.CUDA_TOOLKIT)}
    assert set(toolkits) == {"12.8.1", "13.0.2"}
    assert toolkits["13.0.2"].properties["default"] == "yes"
    [torch] = snap.installations(ComponentName.TORCH)
    assert (torch.version, torch.cuda, torch.properties["cpu_only"]) == (
        "2.9.0+cu130",
        "13.0",
        "no",
    )
    assert torch.archs == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    [nccl] = snap.installations(ComponentName.NCCL)
    assert (nccl.version, nccl.cuda, nccl.origin) == ("2.27.7", "13", "pip")
    assert torch.properties["loads_nccl"] == nccl.path
    [plugin] = snap.installations(ComponentName.OFI_NCCL)
    assert plugin.version == "1.17.2"
    assert plugin.properties["loaded_by_nccl"].startswith(
        "libnccl-net.so via /etc/ld.so.conf.d/100_ofinccl.conf"
    )
    assert "unresolved" not in plugin.properties
    assert snap.runtime.efa_devices == ["rdmap16s27", "rdmap17s27", "rdmap18s27", "rdmap19s27"]
    [efa] = snap.installations(ComponentName.EFA_INSTALLER)
    assert efa.version == "1.45.0"
    assert snap.notes == []


def test_ngc_image_rootfs(root: Root) -> None:
    scenarios.ngc_image(root)
    snap = probe_root(str(root.path))
    assert snap.installations(ComponentName.DRIVER) == []
    assert "absent" in (snap.component(ComponentName.DRIVER).unknown or "")
    [nccl] = snap.installations(ComponentName.NCCL)
    assert (nccl.version, nccl.cuda, nccl.origin) == ("2.27.3", "12.9", "system")
    assert any(e.kind == "package" and "libnccl2" in (e.detail or "") for e in nccl.evidence)
    [cudnn] = snap.installations(ComponentName.CUDNN)
    assert (cudnn.version, cudnn.cuda) == ("9.10.2", "12")
    [compat] = snap.installations(ComponentName.CUDA_COMPAT)
    assert compat.version == "575.57.08"
    [torch] = snap.installations(ComponentName.TORCH)
    assert torch.version == "2.8.0a0+5228986c39.nv25.6"
    assert torch.properties["loads_nccl"] == "/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3"


def test_missing_everything_says_why(root: Root) -> None:
    root.write("etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')
    snap = probe_root(str(root.path))
    for name in ComponentName:
        component = snap.component(name)
        assert component.installations == []
        assert component.unknown, f"{name} has no reason"
    assert snap.gpus.unknown
    assert snap.instance.unknown == "no DMI data at /sys/devices/virtual/dmi/id"


def test_plugin_off_the_loader_path_and_dependency_missing(root: Root) -> None:
    scenarios.broken_p5(root)
    root.write("opt/amazon/efa/lib/libfabric.so.1", b"")  # truncated: still a name on disk
    root.path.joinpath("opt/amazon/efa/lib/libfabric.so.1").unlink()
    snap = probe_root(str(root.path))
    [plugin] = snap.installations(ComponentName.OFI_NCCL)
    assert plugin.properties["loaded_by_nccl"] == "no"
    assert plugin.properties["unresolved"] == "libfabric.so.1"


def test_nccl_net_plugin_env_picks_the_named_library(root: Root) -> None:
    scenarios.dlami_p5(root)
    snap = probe_root(str(root.path), env={"NCCL_NET_PLUGIN": "ofi"})
    [plugin] = snap.installations(ComponentName.OFI_NCCL)
    assert plugin.properties["loaded_by_nccl"].startswith("libnccl-net-ofi.so via")
    assert snap.env["NCCL_NET_PLUGIN"].value == "ofi"


def test_kernel_and_user_space_driver_differ(root: Root) -> None:
    root.debian_loader()
    root.driver(PROC_VERSION_535, [("0000:06:00.0", V100_INFORMATION)])
    root.user_driver("550.54.15")
    snap = probe_root(str(root.path))
    versions = {(i.origin, i.version) for i in snap.installations(ComponentName.DRIVER)}
    assert versions == {("kernel", "535.161.07"), ("system", "550.54.15")}


def test_nccl_conf_applies_like_environment(root: Root) -> None:
    root.write("etc/nccl.conf", "NCCL_DEBUG=INFO\nNCCL_SOCKET_IFNAME=^docker0,lo\n")
    snap = probe_root(
        str(root.path), env={"NCCL_DEBUG": "WARN", "AWS_SECRET_ACCESS_KEY": "x", "HF_TOKEN": "y"}
    )
    assert snap.env["NCCL_DEBUG"].value == "WARN"  # the environment wins over the file
    assert snap.env["NCCL_SOCKET_IFNAME"].evidence.source == "/etc/nccl.conf"
    assert "AWS_SECRET_ACCESS_KEY" not in snap.env
    assert "HF_TOKEN" not in snap.env


def test_two_nccl_wheels_in_one_env(root: Root) -> None:
    site = root.venv("opt/venv")
    site.nccl_wheel("2.21.5", 12, binary_version="2.27.7+cuda13.0")
    site.dist("nvidia-nccl-cu13", "2.27.7")
    snap = probe_root(str(root.path))
    [nccl] = snap.installations(ComponentName.NCCL)
    assert nccl.properties["wheels"] == "nvidia-nccl-cu12 2.21.5, nvidia-nccl-cu13 2.27.7"
    assert (nccl.version, nccl.cuda) == ("2.27.7", "13.0")


def test_snapshot_round_trips_through_json(root: Root) -> None:
    scenarios.dlami_p5(root)
    snap = probe_root(str(root.path))
    assert load_snapshot(dump_snapshot(snap), "test") == snap


def test_debian_multiarch_directories_are_searched_by_default(root: Root) -> None:
    """Debian's and Ubuntu's loader searches /usr/lib/x86_64-linux-gnu without any ld.so.conf
    line: the system NCCL there is found beside the pip wheel."""
    root.elf("usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", soname="ld-linux-x86-64.so.2")
    root.elf(
        "usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3",
        soname="libnccl.so.2",
        strings=["NCCL version 2.18.3+cuda12.2"],
    )
    root.link("usr/lib/x86_64-linux-gnu/libnccl.so.2", "libnccl.so.2.18.3")
    root.venv("opt/venv").nccl_wheel("2.21.5", 12)
    assert not (root.path / "etc/ld.so.conf").exists()
    snap = probe_root(str(root.path))
    paths = {i.path: i.origin for i in snap.installations(ComponentName.NCCL)}
    assert paths["/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3"] == "system"
    assert len(paths) == 2
    # Without the multiarch loader (another distribution), that directory is not a default.
    (root.path / "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2").unlink()
    others = {i.path for i in probe_root(str(root.path)).installations(ComponentName.NCCL)}
    assert "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3" not in others
