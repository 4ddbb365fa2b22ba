"""The snapshot's models are plain dataclasses: the probes build them without pydantic, and
``json`` writes them (snapshot.model, snapshot.io: start-up speed). pydantic stays the judge
where a snapshot is read: what a probe built must be what pydantic's validation keeps, and its
JSON must be pydantic's, byte for byte, on a host, on --root trees and on an image."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

import stackcheck.probes as probes
from stackcheck.errors import StackcheckError
from stackcheck.image.progress import Progress
from stackcheck.image.scan import scan_image
from stackcheck.image.sources.resolve import open_source
from stackcheck.live.host import LiveHost
from stackcheck.redact import redact
from stackcheck.snapshot import Snapshot, dump_snapshot, load_snapshot
from stackcheck.snapshot.hardware import PciDevice, PcieLink
from stackcheck.snapshot.io import snapshot_adapter
from stackcheck.snapshot.model import Evidence, Gpu, Installation, SnapshotSource
from tests.support import scenarios, sysfs
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

SECRET_ENV = {
    "HF_TOKEN": "hf_" + "a" * 34,
    "NCCL_SOCKET_IFNAME": "ens",
    "PIP_INDEX_URL": "https://user:pass@pypi.example/simple",
    "NOTE": 'quote " backslash \\ tab \t bell \x07 é ✓',
}


def judged(probe: Callable[[], Snapshot]) -> Snapshot:
    """Probe; pydantic, validating strictly what the probe built, must keep every value as it is
    (an int where a float belongs would be written 16, read back 16.0); ``json`` must write what
    pydantic writes, and reading that back gives the snapshot again."""
    snapshot = probe()
    adapter = snapshot_adapter()
    written = adapter.dump_json(snapshot)
    validated = adapter.validate_json(written, strict=True)
    assert validated == snapshot and adapter.dump_json(validated) == written
    reference = adapter.dump_json(redact(snapshot), indent=2).decode()
    assert dump_snapshot(snapshot) == reference
    assert load_snapshot(reference, "round trip") == redact(snapshot)
    return snapshot


def test_this_host() -> None:
    judged(lambda: probes.probe_host(LiveHost(allow_network=False)))


@pytest.mark.parametrize(
    "scenario", [scenarios.efa_stack, scenarios.dlami_p5, scenarios.broken_p5, scenarios.ngc_image]
)
def test_root_trees(root: Root, scenario: Callable[[Root], None]) -> None:
    scenario(root)
    snapshot = judged(lambda: probes.probe_root(str(root.path), env=SECRET_ENV))
    assert snapshot.installations  # the scenario's stack was read
    assert "hf_" not in dump_snapshot(snapshot)


def test_sysfs_tree_with_pcie_speeds(root: Root) -> None:
    sysfs.build(root, "p5.48xlarge", sysfs.p5_switches(), nvswitches=4)
    snapshot = judged(lambda: probes.probe_root(str(root.path)))
    assert any(d.link.max_speed_gts == 32.0 for d in snapshot.hardware.devices)


def test_image(root: Root, images: ImageBuilder) -> None:
    scenarios.ngc_image(root)
    archive = images.docker_archive(ImageSpec([images.layer(root.path)], env=SECRET_ENV))

    def scan() -> Snapshot:
        source = open_source(f"docker-archive:{archive}", "linux/amd64", insecure=False)
        return scan_image(source, None, Progress(io.StringIO()))[0]

    snapshot = judged(scan)
    assert snapshot.image is not None and snapshot.image.env


def test_building_does_what_validation_would() -> None:
    evidence = [Evidence(kind="file", source="/a")]
    link = PcieLink(speed_gts=16, width=8)
    installation = Installation(origin="pip", evidence=evidence)
    with pytest.raises(TypeError, match="bogus"):
        Installation(origin="pip", bogus=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="origin"):
        Installation()  # type: ignore[call-arg]
    assert link.speed_gts == 16.0 and isinstance(link.speed_gts, float)
    installation.evidence.append(Evidence(kind="file", source="/b"))
    assert len(evidence) == 1  # the model holds its own list, as a validated one does
    assert installation.archs == [] and installation.properties == {}


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["gpus"]["devices"][0].update(compute_capability="90"), "gpus.devices.0"),
        (lambda d: d["gpus"]["devices"][0].update(bogus=1), "gpus.devices.0.bogus"),
        (lambda d: d["observed"].append({"kind": "no-such-kind", "evidence": {}}), "observed.0"),
    ],
)
def test_pydantic_judges_what_is_read(change: Callable[[Any], None], where: str) -> None:
    snapshot = Snapshot(source=SnapshotSource(kind="host", target="t"))
    snapshot.gpus.devices.append(Gpu(name="H100", compute_capability="9.0"))
    document = snapshot_adapter().dump_python(snapshot, mode="json")
    load_snapshot(json.dumps(document), "x.json")  # as written, it reads
    change(document)
    with pytest.raises(StackcheckError, match=f"invalid snapshot at {where}"):
        load_snapshot(json.dumps(document), "x.json")


def test_probing_never_imports_pydantic_or_openssl() -> None:
    """pydantic's import alone costs `probe --json` a third of its time, OpenSSL's (hashlib) a
    twentieth: the probe's path, which validates and digests nothing, is held to neither."""
    code = (
        "import sys, runpy\n"
        "sys.argv = ['stackcheck', 'probe', '--json', '--no-network']\n"
        "try:\n    runpy.run_module('stackcheck', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', '_hashlib'))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines()[-1] == "[]", run.stderr[-2000:]


def test_what_json_would_write_otherwise_pydantic_writes(root: Root) -> None:
    scenarios.dlami_p5(root)
    snapshot = probes.probe_root(str(root.path))
    snapshot.taken_at = snapshot.taken_at.replace(microsecond=120000)
    link = PcieLink(speed_gts=1e20)  # Python writes 1e+20, pydantic 1e20
    snapshot.hardware.devices.append(PciDevice(address="0000:00:01.0", kind="gpu", link=link))
    written = snapshot_adapter().dump_json(redact(snapshot), indent=2).decode()
    assert dump_snapshot(snapshot) == written
