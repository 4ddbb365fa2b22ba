"""Live-host sources: timeouts on hung tools, NVML through a module fed recorded values, IMDS."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from stackcheck.live import commands, imds, nvml
from stackcheck.live.host import LiveHost
from stackcheck.probes import ProbeContext, probe_host, run_probes
from stackcheck.snapshot import ComponentName
from stackcheck.views import DirectoryView
from tests.support.rootfs import Root


def stub(tmp_path: Path, name: str, script: str) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    path = bindir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return bindir


def test_a_hung_nvidia_smi_is_cut_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{stub(tmp_path, 'nvidia-smi', 'sleep 30')}:{os.environ['PATH']}")
    started = time.monotonic()
    result = commands.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv"], timeout=0.5)
    assert time.monotonic() - started < 5
    assert result.stdout is None
    assert result.reason == "nvidia-smi did not answer within 0.5 s"


def test_failing_and_missing_tools_give_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = stub(tmp_path, "fi_info", "echo 'fi_getinfo: -61' >&2; exit 61")
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    assert commands.run(["fi_info", "-p", "efa"]).reason == "fi_info exited 61: fi_getinfo: -61"
    assert commands.run(["no-such-tool-here"]).reason == "no-such-tool-here not found on PATH"


def test_host_probe_with_a_hung_nvidia_smi_stays_fast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{stub(tmp_path, 'nvidia-smi', 'sleep 30')}:{os.environ['PATH']}")
    started = time.monotonic()
    snapshot = probe_host(LiveHost(allow_network=False, command_timeout=0.5), env={})
    assert time.monotonic() - started < 5
    assert "did not answer within 0.5 s" in (snapshot.component(ComponentName.DRIVER).unknown or "")


class RecordedNvml:
    """pynvml's interface, answering with values recorded from an H100 host (driver 535.129.03,
    CUDA 12.2, 81559 MiB, bus 00000000:62:00.0 — the same GPU as tests.support.recorded)."""

    class NVMLError(Exception):
        pass

    def __init__(self, count: int = 8, hang: bool = False) -> None:
        self.count, self.hang, self.shut_down = count, hang, False

    def nvmlInit(self) -> None:
        if self.hang:
            time.sleep(30)

    def nvmlShutdown(self) -> None:
        self.shut_down = True

    def nvmlSystemGetDriverVersion(self) -> str:
        return "535.129.03"

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return 12020

    def nvmlDeviceGetCount(self) -> int:
        return self.count

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def nvmlDeviceGetName(self, handle: int) -> bytes:
        return b"NVIDIA H100 80GB HBM3"  # older pynvml returns bytes

    def nvmlDeviceGetMemoryInfo(self, handle: int) -> Any:
        return SimpleNamespace(total=81559 * 1024 * 1024)

    def nvmlDeviceGetPciInfo(self, handle: int) -> Any:
        return SimpleNamespace(busId=f"00000000:{0x53 + handle * 0x10:02X}:00.0")

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        return (9, 0)


def test_nvml_report_from_recorded_values() -> None:
    fake = RecordedNvml()
    report = nvml.query(fake)  # type: ignore[arg-type]
    assert report.reason is None
    assert (report.driver_version, report.cuda_version) == ("535.129.03", "12.2")
    assert len(report.gpus) == 8
    assert report.gpus[0].compute_capability == "9.0" and report.gpus[0].memory_mib == 81559
    assert fake.shut_down


def test_hung_nvml_gives_up_within_the_deadline() -> None:
    started = time.monotonic()
    report = nvml.query(RecordedNvml(hang=True), timeout=0.3)  # type: ignore[arg-type]
    assert time.monotonic() - started < 2
    assert report.reason == "NVML did not answer within 0.3 s"


def test_missing_nvml_library_is_a_reason() -> None:
    pynvml = pytest.importorskip("pynvml")
    report = nvml.query(pynvml)
    assert report.driver_version is None
    assert report.reason and report.reason.startswith("NVML: ")


def test_host_probe_uses_nvml_first(root: Root) -> None:
    root.user_driver("535.129.03")  # libnvidia-ml.so.1 where dlopen finds it
    root.debian_loader()
    live = LiveHost(allow_network=False, nvml_module=RecordedNvml(count=2))  # type: ignore[arg-type]
    ctx = ProbeContext(view=DirectoryView(root.path), live=live)
    snapshot = run_probes(ctx, "host", "test")
    [driver] = snapshot.installations(ComponentName.DRIVER)
    assert (driver.version, driver.cuda) == ("535.129.03", "12.2")
    assert [e.kind for e in driver.evidence] == ["nvml", "filename", "filename"]
    assert [g.compute_capability for g in snapshot.gpus.devices] == ["9.0", "9.0"]


def test_imds_is_asked_with_a_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    # A listening socket on loopback that never answers stands in for a silent IMDS.
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        started = time.monotonic()
        found = imds.instance_type(
            timeout=0.3, endpoint=f"http://127.0.0.1:{server.getsockname()[1]}"
        )
        assert found is None
        assert time.monotonic() - started < 2
    finally:
        server.close()


def test_no_nvml_library_means_pynvml_is_not_loaded(root: Root) -> None:
    live = LiveHost(allow_network=False, nvml_module=RecordedNvml())  # type: ignore[arg-type]
    ctx = ProbeContext(view=DirectoryView(root.path), live=live)
    snapshot = run_probes(ctx, "host", "test")
    assert snapshot.installations(ComponentName.DRIVER) == []
    assert "libnvidia-ml.so.1 is not on the loader path" in (
        snapshot.component(ComponentName.DRIVER).unknown or ""
    )


def test_no_network_never_asks_imds(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> str:
        raise AssertionError("IMDS asked despite --no-network")

    monkeypatch.setattr(imds, "instance_type", forbidden)
    assert LiveHost(allow_network=False).instance_type() is None
