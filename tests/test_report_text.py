"""What a report says follows what was found: an image's report shows what an image can have,
SC401 names the evidence for EFA and the fix that fits, and a host without a GPU gets no GPU
recommendation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]


def ngc_archive(root: Root, images: ImageBuilder) -> Path:
    scenarios.ngc_image(root)  # no EFA software, no net plugin
    return images.docker_archive(ImageSpec([images.layer(root.path)]))


def test_an_image_report_shows_only_what_an_image_can_have(
    cli: Cli, root: Root, images: ImageBuilder
) -> None:
    archive = ngc_archive(root, images)
    alone = cli("scan", str(archive), "--no-cache").out
    assert "Target host         none given" in alone
    for host_only in ("Instance", "GPUs", "NVIDIA driver", "Fabric Manager", "kernel module"):
        assert host_only not in alone, host_only
    assert "1 layer ·" in alone
    paired = cli("scan", str(archive), "--no-cache", "--driver", "535.161.07", "--gpu", "H100")
    assert "Target host" not in paired.out
    assert "NVIDIA driver       535.161.07 (kernel)" in paired.out
    assert "read from target --driver: 535.161.07" in paired.out


def test_sc401_on_an_image_without_a_plugin_says_what_the_evidence_says(
    cli: Cli, root: Root, images: ImageBuilder
) -> None:
    archive = ngc_archive(root, images)
    done = cli("scan", str(archive), "--no-cache", "--instance", "p5.48xlarge", "--format", "json")
    [sc401] = [f for f in json.loads(done.out)["findings"] if f["id"] == "SC401"]
    assert "EFA is present" not in sc401["message"]  # no EFA device or software in an image
    assert "the instance type p5.48xlarge has 32 EFA interface(s)" in sc401["message"]
    assert "No NCCL net plugin (aws-ofi-nccl) is installed" in sc401["message"]
    assert sc401["fix"].startswith("Install aws-ofi-nccl")
    assert "Put the plugin directory on the loader path" not in sc401["fix"]


def test_sc401_on_a_host_names_its_efa_devices(cli: Cli, root: Root) -> None:
    scenarios.broken_p5(root)  # the plugin is installed but not on the loader path
    done = cli("check", "--root", str(root.path), "--format", "json")
    [sc401] = [f for f in json.loads(done.out)["findings"] if f["id"] == "SC401"]
    assert "this host has EFA devices (rdmap16s27, rdmap17s27" in sc401["message"]
    assert "is installed (/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so)" in sc401["message"]
    assert sc401["fix"].startswith("Put the plugin directory on the loader path")


def test_no_gpu_recommendation_without_a_gpu(cli: Cli, root: Root) -> None:
    root.write("etc/os-release", 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    done = cli("check", "--root", str(root.path))
    assert "Recommendation: none (no GPU and no instance type found)" in done.out
    assert "no GPU stack to recommend for" in done.out
    assert "DLAMI" not in done.out
    assert (
        json.loads(cli("check", "--root", str(root.path), "--format", "json").out)[
            "recommendations"
        ]
        == []
    )
    # An instance type is something to fit to, GPU visible or not.
    root.dmi("Amazon EC2", "p5.48xlarge")
    assert "Recommendation: DLAMI" in cli("check", "--root", str(root.path)).out
