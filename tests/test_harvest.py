"""Each harvester on a small copy of its primary source (tests/data/harvest/SOURCES.md): the rows
it writes, and `--check` against the bundled matrix finding no difference."""

from __future__ import annotations

import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from stackcheck.errors import StackcheckError
from stackcheck.matrix import load_matrix
from stackcheck.matrix.harvest import (
    cuda_table3,
    dlc,
    efa_changelog,
    nccl,
    ngc_notes,
    ofi_nccl,
    pytorch_builds,
    pytorch_wheel,
)
from stackcheck.matrix.harvest.cli import main
from stackcheck.matrix.harvest.rows import Harvest, check, to_toml
from stackcheck.matrix.loader import build, read_tables

DATA = Path(__file__).parent / "data" / "harvest"
DAY = date(2026, 12, 3)


def _repo(tmp_path: Path, files: Path, tag: str) -> Path:
    """A git repository holding ``files`` in one commit tagged ``tag``."""
    repo = tmp_path / "repo"
    shutil.copytree(files, repo)

    def git(*arguments: str) -> None:
        subprocess.run(["git", "-C", str(repo), *arguments], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixture")
    git("tag", tag)
    return repo


def _agrees(harvest: Harvest) -> None:
    assert harvest.rows
    assert check(harvest, load_matrix()) == []
    for row in harvest.rows:
        assert row["checked"] == DAY and row["source"]


def test_efa_changelog_rows() -> None:
    harvest = efa_changelog.harvest((DATA / "efa-changelog.md").read_text(), DAY)
    assert harvest.rows[0] == {
        "version": "1.51.0",
        "released": date(2026, 10, 22),
        "libfabric": "2.7.0amzn2.0",
        "ofi_nccl": "1.22.0",
        "rdma_core": "65.0",
        "source": efa_changelog.URL,
        "checked": DAY,
    }
    _agrees(harvest)


def test_ofi_nccl_tags(tmp_path: Path) -> None:
    repo = _repo(tmp_path, DATA / "ofi-nccl", "v1.21.1")
    harvest = ofi_nccl.harvest(repo, DAY)
    (row,) = harvest.rows
    assert row["nccl_tested"] == ["2.31.2"] and row["nccl_min"] == "2.17.1"
    assert row["libfabric_min"] == "1.22.0"  # the AWS-support floor, not the generic 1.11.0
    assert row["net_api"] == [6, 7, 8, 9, 10, 11, 12]  # the Neuron interface's v4/v5 left out
    assert row["source"].startswith("aws/aws-ofi-nccl@") and row["source"].endswith(
        ":RELEASENOTES.md"
    )
    _agrees(harvest)


def test_nccl_tags(tmp_path: Path) -> None:
    repo = _repo(tmp_path, DATA / "nccl", "v2.30.7-1")
    harvest = nccl.harvest(repo, DAY)
    assert [(r["version"], r["net_api_min"], r["net_api"]) for r in harvest.rows] == [
        ("2.30.7", 6, 12)
    ]
    _agrees(harvest)


def test_nccl_keeps_the_newest_build_of_a_version() -> None:
    assert nccl.release_tags(["v2.21.5-1", "v2.21.5-2", "v2.22.3-1", "nightly"]) == {
        "2.21.5": "v2.21.5-2",
        "2.22.3": "v2.22.3-1",
    }


def test_pytorch_build_script_at_a_pytorch_commit() -> None:
    harvest = pytorch_builds.harvest(
        (DATA / "pytorch-00c7a380-build_cuda.sh").read_text(),
        "2.8",
        "pytorch/pytorch@00c7a380",
        DAY,
    )
    variants = {v["cuda"]: v["archs"] for v in harvest.rows[0]["variants"]}
    assert variants["12.9"][-2:] == ["sm_120", "compute_120"]
    assert variants["12.6"][0] == "sm_50"
    _agrees(harvest)


def test_pytorch_builder_script_extends_the_base_list_and_skips_aarch64() -> None:
    script = (DATA / "builder-release-2.5-build_cuda.sh").read_text()
    lists = pytorch_builds.arch_lists(script)
    assert lists["12.4"] == ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    assert lists["11.8"][0] == "sm_37" and lists["11.6"] == lists["11.7"]
    harvest = pytorch_builds.harvest(
        script, "2.5", "pytorch/builder@aec5fb5d", DAY, ["11.8", "12.1", "12.4"]
    )
    _agrees(harvest)


@pytest.mark.parametrize(
    ("wheel", "line", "variant"),
    [
        # CUDA 12 wheels pin nvidia-cuda-runtime-cu12 (METADATA 2.1 "(==x)" form)
        (
            "torch-2.6.0-excerpt.whl",
            "2.6",
            {
                "cuda": "12.4",
                "cudnn": "9.1.0.70",
                "nccl": "2.21.5",
                "archs": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
            },
        ),
        # CUDA 13 wheels pin the cuda-toolkit metapackage instead
        (
            "torch-2.13.0-excerpt.whl",
            "2.13",
            {
                "cuda": "13.0",
                "cudnn": "9.20.0.48",
                "nccl": "2.29.7",
                "archs": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
            },
        ),
    ],
)
def test_pytorch_wheel(wheel: str, line: str, variant: dict[str, object]) -> None:
    harvest = pytorch_wheel.harvest(DATA / wheel, DAY, "https://pypi.org/project/torch/")
    row = harvest.rows[0]
    assert row["version"] == line
    assert {k: v for k, v in row["variants"][0].items() if k != "source"} == variant
    _agrees(harvest)


def test_pytorch_wheel_wants_exactly_one_arch_string(tmp_path: Path) -> None:
    two = b"\x00sm_80 sm_90\x00..\x00sm_70 sm_75\x00"
    with pytest.raises(StackcheckError, match="found 2"):
        pytorch_wheel.arch_list(two)
    with pytest.raises(StackcheckError, match="found 0"):
        pytorch_wheel.arch_list(b"no arch list here")
    with pytest.raises(StackcheckError, match="cannot read"):
        pytorch_wheel.harvest(tmp_path / "missing.whl", DAY)


def test_dlc_dockerfile() -> None:
    text = (DATA / "dlc-pytorch-2.5-cu124-Dockerfile.gpu").read_text()
    harvest = dlc.harvest(
        text, "2.5.1-gpu-py311-cu124-ubuntu22.04-ec2", "aws/deep-learning-containers@f06ada0e", DAY
    )
    row = harvest.rows[0]
    assert (row["cuda"], row["cudnn"], row["efa"], row["torch"]) == (
        "12.4.1",
        "9.1.0.70",
        "1.36.0",
        "2.5.1",
    )
    _agrees(harvest)


def test_ngc_release_notes() -> None:
    harvest = ngc_notes.harvest(
        (DATA / "mxnet-rel-24-05.txt").read_text(), "https://docs.nvidia.com/x", DAY
    )
    row = harvest.rows[0]
    assert row["tag"] == "24.05-py3"
    assert (row["cuda"], row["cudnn"], row["nccl"], row["python"]) == (
        "12.4.1",
        "9.1.0.70",
        "2.21.5",
        "3.10",
    )
    _agrees(harvest)


def test_cuda_table3() -> None:
    harvest = cuda_table3.harvest((DATA / "cuda-table3-excerpt.txt").read_text(), DAY)
    assert [(r["version"], r["min_driver"]) for r in harvest.rows] == [
        ("11.4.1", "470.57.02"),
        ("11.4.0", "470.42.01"),
    ]
    _agrees(harvest)


def test_check_lists_every_difference() -> None:
    harvest = efa_changelog.harvest((DATA / "efa-changelog.md").read_text(), DAY)
    harvest.rows[0]["libfabric"] = "9.9.9"
    harvest.rows.append({"version": "9.0.0", "source": "x", "checked": DAY})
    assert check(harvest, load_matrix()) == [
        "efa_installer 1.51.0: libfabric: matrix '2.7.0amzn2.0', source '9.9.9'",
        "efa_installer 9.0.0: not in the matrix",
    ]


def test_toml_output_loads_as_matrix_rows(tmp_path: Path) -> None:
    harvest = pytorch_builds.harvest(
        (DATA / "pytorch-00c7a380-build_cuda.sh").read_text(),
        "2.8",
        "pytorch/pytorch@00c7a380",
        DAY,
    )
    (tmp_path / "torch.toml").write_text(to_toml(harvest))
    matrix = build(read_tables(tmp_path), "harvest")
    first = matrix.torch[0].variants[0]
    assert (first.cuda, first.archs[0], matrix.torch[0].checked) == ("12.6", "sm_50", DAY)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("efa_changelog", [str(DATA / "efa-changelog.md")]),
        ("cuda_table3", [str(DATA / "cuda-table3-excerpt.txt")]),
        ("ngc_notes", [str(DATA / "mxnet-rel-24-05.txt"), "--source", "https://docs.nvidia.com/x"]),
        ("pytorch_wheel", [str(DATA / "torch-2.6.0-excerpt.whl")]),
    ],
)
def test_scripts_check_mode_passes_on_the_fixtures(
    name: str, arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(name, [*arguments, "--check", "--day", "2026-12-03"]) == 0
    assert ", 0 differences" in capsys.readouterr().out


def test_scripts_print_toml_and_refuse_missing_arguments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main("efa_changelog", [str(DATA / "efa-changelog.md"), "--day", "2026-12-03"]) == 0
    assert 'version = "1.51.0"\n' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main("dlc", [str(DATA / "dlc-pytorch-2.5-cu124-Dockerfile.gpu")])
    assert main("efa_changelog", [str(DATA / "missing.md")]) == 2
