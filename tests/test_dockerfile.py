"""`stackcheck lint-dockerfile` and `scan --dockerfile`: findings on the lines that cause them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]

CUDA_DOCKERFILE = """\
ARG CUDA=12.4.1
FROM nvidia/cuda:${CUDA}-cudnn-devel-ubuntu22.04 AS build
RUN apt-get update && apt-get install -y python3-pip

FROM build
ENV NCCL_DEBUG=INFO \\
    NCCL_DEBUG_SUBSYS=ALL
# stackcheck: ignore[SC604]
ENV CUDA_LAUNCH_BLOCKING=1
ENV NCCL_P2P_DISABLE=1
RUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu118
"""


def write(tmp_path: Path, text: str, name: str = "Dockerfile") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def findings(done: Outcome) -> dict[str, dict[str, object]]:
    return {f["id"]: f for f in json.loads(done.out)["findings"]}


def lines_of(finding: dict[str, object]) -> list[int]:
    return [e["line"] for e in finding["evidence"] if e.get("line")]  # type: ignore[attr-defined,index]


def test_lint_anchors_findings_to_lines_and_honours_inline_ignores(
    cli: Cli, tmp_path: Path
) -> None:
    path = write(tmp_path, CUDA_DOCKERFILE)
    done = cli("lint-dockerfile", path, "--format", "json")
    assert done.code == 0, done.err  # warnings only
    found = findings(done)
    assert set(found) >= {"SC203", "SC601", "SC606"}
    assert lines_of(found["SC601"]) == [10]
    assert lines_of(found["SC606"])[0] == 6
    assert 11 in lines_of(found["SC203"]) and 2 in lines_of(found["SC203"])  # RUN and the FROM
    suppressed = json.loads(done.out)["suppressed"]
    assert [s["finding"]["id"] for s in suppressed] == ["SC604"]
    assert suppressed[0]["reason"] == f"inline ignore at {path}:9"


def test_cpu_wheel_in_a_cuda_base_is_an_error(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "FROM nvidia/cuda:12.6.3-runtime-ubuntu24.04\n"
        "RUN pip install torch --index-url https://download.pytorch.org/whl/cpu\n",
    )
    done = cli("lint-dockerfile", path, "--format", "json")
    assert done.code == 1
    assert lines_of(findings(done)["SC201"]) == [2, 1]


def test_known_dlc_base_resolves_through_the_matrix(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:"
        "2.5.1-gpu-py311-cu124-ubuntu22.04-ec2\nENV FI_EFA_USE_DEVICE_RDMA=1\n",
    )
    done = cli("lint-dockerfile", path, "--format", "json")
    report = json.loads(done.out)
    components = report["snapshot"]["components"]
    [torch] = components["torch"]["installations"]
    assert (torch["version"], torch["cuda"]) == ("2.5.1", "12.4")
    assert components["nccl"]["installations"][0]["version"] == "2.23.4"
    assert any(e["kind"] == "matrix" for e in torch["evidence"])
    # aws-ofi-nccl 1.12.1 with libfabric >= 1.18: the preset is not needed (version-aware).
    assert lines_of(findings(done)["SC603"]) == [2, 1]  # the ENV line, then the FROM behind it


def test_sarif_and_annotations_point_at_dockerfile_lines(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, CUDA_DOCKERFILE)
    monkeypatch.chdir(tmp_path)  # the checkout: its files are relative to %SRCROOT%
    sarif = json.loads(cli("lint-dockerfile", path, "--format", "sarif").out)
    located = {
        r["ruleId"]: r["locations"][0]["physicalLocation"] for r in sarif["runs"][0]["results"]
    }
    assert located["SC601"] == {
        "artifactLocation": {"uri": "Dockerfile", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 10},
    }
    annotations = cli("lint-dockerfile", path, "--format", "github").out
    assert f"::warning file={path},line=10,title=SC601 " in annotations


@pytest.mark.parametrize(
    ("content", "message"),
    [("print('not a dockerfile')\n", "no FROM instruction"), ("\x00\x01binary", "binary")],
)
def test_not_a_dockerfile_is_one_line_exit_2(
    cli: Cli, tmp_path: Path, content: str, message: str
) -> None:
    done = cli("lint-dockerfile", write(tmp_path, content, "x"))
    assert done.code == 2 and message in done.err and done.err.count("\n") == 1
    assert cli("lint-dockerfile", str(tmp_path / "missing")).code == 2


IMAGE_DOCKERFILE = """\
FROM nvidia/cuda:13.0.2-devel-ubuntu24.04
ENV NCCL_P2P_DISABLE=1
COPY pytorch /opt/pytorch
RUN pip install nvidia-nccl-cu13
"""


def test_scan_with_its_dockerfile_anchors_env_and_layers(
    cli: Cli, root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    base = Root(tmp_path / "base", root.elves)
    base.debian_loader()
    base.toolkit("13.0.2")
    # The image's own layers: PyTorch built for CUDA 12.8 on a CUDA 13 base (COPY), and NCCL.
    site = root.site("opt/pytorch/lib/python3.12/site-packages")
    site.torch("2.7.1+cu128", "12.8", archs=scenarios.NEW_ARCHS)
    nccl = Root(tmp_path / "nccl", root.elves)
    nccl.site("opt/pytorch/lib/python3.12/site-packages").nccl_wheel("2.27.7", 13)
    archive = images.docker_archive(
        ImageSpec(
            [images.layer(base.path), images.layer(root.path), images.layer(nccl.path)],
            env={"NCCL_P2P_DISABLE": "1", "CUDA_VERSION": "13.0.2"},
            history=[
                "/bin/sh -c #(nop) ADD file:base in /",
                "COPY pytorch /opt/pytorch # buildkit",
                "RUN /bin/sh -c pip install nvidia-nccl-cu13 # buildkit",
            ],
        )
    )
    path = write(tmp_path, IMAGE_DOCKERFILE)
    done = cli("scan", str(archive), "--dockerfile", path, "--no-cache", "--format", "json")
    found = findings(done)
    assert lines_of(found["SC601"]) == [2]  # the ENV line that set NCCL_P2P_DISABLE
    first = found["SC601"]["evidence"][0]  # type: ignore[index]
    assert first["source"] == path and first["detail"] == "ENV NCCL_P2P_DISABLE=1"
    without = findings(cli("scan", str(archive), "--no-cache", "--format", "json"))
    assert lines_of(without["SC601"]) == []
    # Findings read from files carry their layer; the NCCL wheel's layer is the RUN line's.
    nccl_layer = json.loads(done.out)["snapshot"]["image"]["layers"][2]["digest"]
    from_nccl = [
        f for f in found.values() if any(e.get("layer") == nccl_layer for e in f["evidence"])
    ]
    assert from_nccl, "no finding about the NCCL wheel to anchor"
    assert all(lines_of(f)[0] == 4 for f in from_nccl)


def test_the_sample_dockerfile_passes_the_gate(cli: Cli) -> None:
    """The repository's workflow gates examples/dockerfile/Dockerfile with fail-on error."""
    sample = Path(__file__).resolve().parent.parent / "examples" / "dockerfile" / "Dockerfile"
    done = cli("lint-dockerfile", str(sample), "--fail-on", "error", "--format", "json")
    assert done.code == 0, done.out
    assert json.loads(done.out)["snapshot"]["components"]["torch"]["installations"]
