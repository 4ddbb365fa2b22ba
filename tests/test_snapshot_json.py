"""The probes build their snapshot without pydantic's validation and write it with ``json``
(snapshot.model, snapshot.io: start-up speed); pydantic stays the judge. A snapshot probed
unchecked must equal the one probed with validation, and its JSON must be pydantic's, byte for
byte, on a host, on --root trees and on an image."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable

import pytest

import stackcheck.probes as probes
from stackcheck.image.progress import Progress
from stackcheck.image.scan import scan_image
from stackcheck.image.sources.resolve import open_source
from stackcheck.live.host import LiveHost
from stackcheck.redact import redact
from stackcheck.snapshot import Snapshot, dump_snapshot, load_snapshot
from stackcheck.snapshot.hardware import PciDevice, PcieLink
from stackcheck.snapshot.model import Evidence, Installation, unchecked
from tests.support import scenarios, sysfs
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

SECRET_ENV = {
    "HF_TOKEN": "hf_" + "a" * 34,
    "NCCL_SOCKET_IFNAME": "ens",
    "PIP_INDEX_URL": "https://user:pass@pypi.example/simple",
    "NOTE": 'quote " backslash \\ tab \t bell \x07 é ✓',
}


def both_ways(probe: Callable[[], Snapshot], monkeypatch: pytest.MonkeyPatch) -> Snapshot:
    """Probe unchecked (as shipped) and validated; they must agree, field for field and in JSON."""
    fast = probe()
    with monkeypatch.context() as patched:
        patched.setattr(probes, "unchecked", contextlib.nullcontext)
        validated = probe()
    validated.taken_at = fast.taken_at
    assert fast == validated
    reference = redact(validated).model_dump_json(indent=2)
    assert dump_snapshot(fast) == reference
    assert load_snapshot(reference, "round trip") == redact(validated)
    return fast


def test_this_host(monkeypatch: pytest.MonkeyPatch) -> None:
    both_ways(lambda: probes.probe_host(LiveHost(allow_network=False)), monkeypatch)


@pytest.mark.parametrize(
    "scenario", [scenarios.efa_stack, scenarios.dlami_p5, scenarios.broken_p5, scenarios.ngc_image]
)
def test_root_trees(
    root: Root, scenario: Callable[[Root], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario(root)
    snapshot = both_ways(lambda: probes.probe_root(str(root.path), env=SECRET_ENV), monkeypatch)
    assert snapshot.installations  # the scenario's stack was read
    assert "hf_" not in dump_snapshot(snapshot)


def test_sysfs_tree_with_pcie_speeds(root: Root, monkeypatch: pytest.MonkeyPatch) -> None:
    sysfs.build(root, "p5.48xlarge", sysfs.p5_switches(), nvswitches=4)
    snapshot = both_ways(lambda: probes.probe_root(str(root.path)), monkeypatch)
    assert any(d.link.max_speed_gts == 32.0 for d in snapshot.hardware.devices)


def test_image(root: Root, images: ImageBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    scenarios.ngc_image(root)
    archive = images.docker_archive(ImageSpec([images.layer(root.path)], env=SECRET_ENV))

    def scan() -> Snapshot:
        source = open_source(f"docker-archive:{archive}", "linux/amd64", insecure=False)
        return scan_image(source, None, Progress(io.StringIO()))[0]

    snapshot = both_ways(scan, monkeypatch)
    assert snapshot.image is not None and snapshot.image.env


def test_unchecked_does_what_validation_would() -> None:
    evidence = [Evidence(kind="file", source="/a")]
    with unchecked():
        link = PcieLink(speed_gts=16, width=8)
        installation = Installation(origin="pip", evidence=evidence)
        with pytest.raises(TypeError, match="unknown"):
            Installation(origin="pip", bogus=1)  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="missing"):
            Installation()  # type: ignore[call-arg]
    assert link.speed_gts == 16.0 and isinstance(link.speed_gts, float)
    installation.evidence.append(Evidence(kind="file", source="/b"))
    assert len(evidence) == 1  # the model holds its own list, as a validated one does
    assert installation.archs == [] and installation.properties == {}


def test_what_json_would_write_otherwise_pydantic_writes(root: Root) -> None:
    scenarios.dlami_p5(root)
    snapshot = probes.probe_root(str(root.path))
    snapshot.taken_at = snapshot.taken_at.replace(microsecond=120000)
    link = PcieLink(speed_gts=1e20)  # Python writes 1e+20, pydantic 1e20
    snapshot.hardware.devices.append(PciDevice(address="0000:00:01.0", kind="gpu", link=link))
    assert dump_snapshot(snapshot) == redact(snapshot).model_dump_json(indent=2)
