"""The one Dockerfile reader: the Dockerfile reference's syntax and scoping, install steps read
with their lines, base images in every published form, the reviewer rules, and bad input."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.check.engine import check
from stackcheck.dockerfile.base_image import resolve_base_image
from stackcheck.dockerfile.build import BuildOptions, expand
from stackcheck.dockerfile.lint import LintedDockerfile, lint_dockerfile
from stackcheck.errors import StackcheckError
from stackcheck.ingest import read_report
from stackcheck.matrix import load_matrix
from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import ComponentName, Evidence
from tests.conftest import Outcome
from tests.dockerfile_corpus import entries, score

Cli = Callable[..., Outcome]
MATRIX = load_matrix()
INDEX = MatrixIndex(MATRIX)
TORCH = ComponentName.TORCH
NCCL = ComponentName.NCCL


def lint(text: str, **options: object) -> LintedDockerfile:
    return lint_dockerfile(text, "Dockerfile", INDEX, BuildOptions(**options))  # type: ignore[arg-type]


def read(text: str, name: ComponentName, **options: object) -> list[tuple[str | None, int]]:
    """(version, first evidence line) of each installation of ``name``."""
    return [
        (i.version, i.evidence[0].line or 0)
        for i in lint(text, **options).snapshot.installations(name)
    ]


def rule_ids(text: str) -> set[str]:
    return {f.id for f in check(lint(text).snapshot, MATRIX).findings}


# --- syntax -------------------------------------------------------------------------------


def test_escape_directive_continuations_comments_and_blank_lines() -> None:
    text = (
        "# escape=`\n"
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        "RUN apt-get update && `\n"
        "    # a comment inside the instruction\n"
        "\n"
        "    apt-get install -y libnccl2=2.21.5-1+cuda12.4 `\n"
        "    libnccl-dev=2.21.5-1+cuda12.4\n"
        "RUN pip install torch==2.5.1\n"
    )
    assert read(text, NCCL) == [("2.21.5", 3)]
    assert read(text, TORCH) == [("2.5.1", 8)]


def test_heredoc_body_is_read_at_its_run_line() -> None:
    text = (
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        "RUN <<EOF\n"
        "set -e\n"
        "pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n"
        "EOF\n"
        "ENV A=1\n"
    )
    linted = lint(text)
    torch = linted.snapshot.installations(TORCH)[0]
    assert (torch.version, torch.cuda, torch.evidence[0].line) == ("2.5.1", "12.4", 2)
    assert "A" in linted.snapshot.env


def test_exec_form_and_flags_are_kept() -> None:
    linted = lint(
        "FROM --platform=linux/arm64 nvidia/cuda:12.4.1-base-ubuntu22.04 AS base\n"
        "COPY --from=base --chown=0:0 /a /b\n"
        'CMD ["python", "-c", "import torch"]\n'
    )
    cmd = next(linted.dockerfile.of("CMD"))
    assert cmd.exec_form == ("python", "-c", "import torch")
    copy = next(linted.dockerfile.of("COPY"))
    assert copy.flag("from") == "base" and copy.flag("chown") == "0:0"
    assert linted.build is not None and linted.build.stages[0].platform == "linux/arm64"


# --- ARG, ENV, stages ------------------------------------------------------------------------


def test_global_arg_reaches_run_only_when_redeclared() -> None:
    text = (
        "ARG PYTORCH_VERSION=2.5.1\n"
        "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
        "RUN pip install torch==${PYTORCH_VERSION}\n"
        "ARG PYTORCH_VERSION\n"
        "RUN pip install torch==${PYTORCH_VERSION} --index-url https://download.pytorch.org/whl/cpu\n"
    )
    # Line 3 runs before the stage declares the ARG: its shell sees no value, so no version.
    assert read(text, TORCH) == [("2.5.1", 5)]
    assert rule_ids(text) >= {"SC201"}  # the CPU wheel on a CUDA base


def test_build_arg_overrides_default_and_fills_an_unset_base() -> None:
    text = (
        "ARG BASE\n"
        "ARG NCCL=2.21.5\n"
        "FROM ${BASE}\n"
        "ARG NCCL\n"
        "RUN git clone https://github.com/NVIDIA/nccl.git -b v${NCCL}-1\n"
    )
    unset = lint(text)
    assert any("build arguments with no value (BASE)" in n.message for n in unset.snapshot.notes)
    given = lint(
        text, build_args={"BASE": "nvidia/cuda:12.4.1-devel-ubuntu22.04", "NCCL": "2.23.4"}
    )
    assert given.snapshot.installations(NCCL)[0].version == "2.23.4"
    assert given.snapshot.installations(ComponentName.CUDA_TOOLKIT)[0].version == "12.4.1"


def test_default_and_alternative_forms() -> None:
    text = (
        "FROM ubuntu:22.04\n"
        "ARG EFA\n"
        "ARG OFI=1.13.2\n"
        "RUN curl -O https://efa-installer.amazonaws.com/aws-efa-installer-${EFA:-1.37.0}.tar.gz\n"
        "RUN echo ${OFI:+v${OFI}} && git clone -b ${OFI:+v${OFI}-aws} "
        "https://github.com/aws/aws-ofi-nccl.git\n"
    )
    assert read(text, ComponentName.EFA_INSTALLER) == [("1.37.0", 4)]
    assert read(text, ComponentName.OFI_NCCL) == [("1.13.2", 5)]


def test_env_overrides_in_order_and_sibling_stages_do_not_leak() -> None:
    text = (
        "FROM ubuntu:22.04 AS other\n"
        "ENV NCCL_DEBUG=INFO\n"
        "FROM ubuntu:22.04 AS main\n"
        "ENV LD_LIBRARY_PATH=/opt/a\n"
        "ENV LD_LIBRARY_PATH=/opt/b:$LD_LIBRARY_PATH\n"
        "ENV abc=hello\n"
        "ENV abc=bye def=$abc\n"
    )
    env = lint(text).snapshot.env
    assert (env["abc"].value, env["def"].value) == ("bye", "hello")  # the reference's example
    assert env["LD_LIBRARY_PATH"].value == "/opt/b:/opt/a"
    assert env["LD_LIBRARY_PATH"].evidence.line == 5
    assert "NCCL_DEBUG" not in env


def test_stage_inherits_what_its_parent_installed_and_target_picks_a_stage() -> None:
    text = (
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n"
        "RUN pip install torch==2.5.1\n"
        "FROM build AS train\n"
        "RUN git clone -b v2.23.4-1 https://github.com/NVIDIA/nccl.git\n"
        "FROM scratch AS wheel-export\n"
        "COPY --from=build /wheels /\n"
    )
    default = lint(text)
    assert any("FROM scratch" in n.message for n in default.snapshot.notes)
    assert not default.snapshot.installations(NCCL)
    train = lint(text, target="train")
    assert read(text, TORCH, target="train") == [("2.5.1", 2)]
    assert [i.version for i in train.snapshot.installations(NCCL)] == ["2.23.4"]
    with pytest.raises(StackcheckError, match="no such stage"):
        lint(text, target="nope")


def test_copy_from_a_stage_brings_the_copied_component() -> None:
    text = (
        "FROM nvidia/cuda:12.8.1-devel-ubuntu22.04 AS nccl\n"
        "RUN git clone -b v2.27.7-1 https://github.com/NVIDIA/nccl.git /opt/nccl\n"
        "FROM nvidia/cuda:12.8.1-runtime-ubuntu22.04\n"
        "COPY --from=nccl /opt/nccl/build/lib /opt/nccl/build/lib\n"
        "COPY --from=nccl /usr/local/cuda /usr/local/cuda\n"
    )
    nccl = lint(text).snapshot.installations(NCCL)
    assert [(i.version, [e.line for e in i.evidence]) for i in nccl] == [("2.27.7", [4, 2])]
    assert read(text, ComponentName.CUDA_TOOLKIT) == [("12.8.1", 5)]


def test_platform_sets_targetarch() -> None:
    text = (
        "FROM ubuntu:22.04\n"
        "ARG TARGETARCH\n"
        "RUN if [ $TARGETARCH = arm64 ]; then "
        "curl -O https://x/aws-efa-installer-1.43.2.tar.gz; fi\n"
    )
    linted = lint(text, platform="linux/arm64")
    assert linted.build is not None
    assert "arm64 = arm64" in linted.build.target.steps[-1].text


# --- install steps -------------------------------------------------------------------------


def test_words_that_merely_name_torch_keep_the_base_pytorch() -> None:
    text = (
        "FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:"
        "2.5.1-gpu-py311-cu124-ubuntu22.04-ec2\n"
        "RUN echo torch && pip uninstall -y torch-tb-profiler\n"
        "RUN pip install transformer_engine_torch-1.11.0-cp311-linux_x86_64.whl\n"
        "RUN pip install 'transformer_engine[pytorch]' torchvision\n"
    )
    assert [v for v, _ in read(text, TORCH)] == ["2.5.1"]


def test_efa_installer_brings_its_libfabric_and_plugin_and_flags() -> None:
    text = (
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        "ENV EFA_INSTALLER_VERSION=1.36.0\n"
        "RUN curl -O https://efa-installer.amazonaws.com/aws-efa-installer-"
        "${EFA_INSTALLER_VERSION}.tar.gz && tar xf aws-efa-installer-*.tar.gz && "
        "cd aws-efa-installer && ./efa_installer.sh -y -g --skip-kmod --skip-limit-conf\n"
        "RUN git clone https://github.com/aws/aws-ofi-nccl.git && cd aws-ofi-nccl && "
        "git checkout v1.13.2-aws\n"
    )
    snapshot = lint(text).snapshot
    efa = snapshot.installations(ComponentName.EFA_INSTALLER)[0]
    assert (efa.version, efa.properties["flags"]) == (
        "1.36.0",
        "-y -g --skip-kmod --skip-limit-conf",
    )
    assert snapshot.installations(ComponentName.LIBFABRIC)[0].version == "1.22.0"  # efa.toml
    ofi = snapshot.installations(ComponentName.OFI_NCCL)
    assert [(i.version, i.evidence[0].line) for i in ofi] == [("1.13.2", 4)]  # later step wins


@pytest.mark.parametrize(
    ("line", "component", "version"),
    [
        ("apt-get install -y libcudnn9-cuda-12=9.1.0.70-1", ComponentName.CUDNN, "9.1.0.70"),
        ("apt-get install -y cuda-toolkit-12-4", ComponentName.CUDA_TOOLKIT, "12.4"),
        ("apt-get install -y cuda-compat-12-8", ComponentName.CUDA_COMPAT, "12.8"),
        (
            "apt-get install -y nvidia-fabricmanager-550=550.90.07-1",
            ComponentName.FABRIC_MANAGER,
            "550.90.07",
        ),
        (
            "git clone https://github.com/ofiwg/libfabric -b v1.22.0",
            ComponentName.LIBFABRIC,
            "1.22.0",
        ),
        ("mamba install -y pytorch=2.1.0 pytorch-cuda=12.1", TORCH, "2.1.0"),
        ("uv pip install 'torch~=2.6.0'", TORCH, "2.6.0"),
        ("pip install https://x/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl", TORCH, "2.5.1"),
    ],
)
def test_install_patterns(line: str, component: ComponentName, version: str) -> None:
    assert read(f"FROM ubuntu:22.04\nRUN {line}\n", component) == [(version, 2)]


def test_preload_keeps_the_built_version_and_adds_its_line() -> None:
    text = (
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        "RUN git clone https://github.com/NVIDIA/nccl.git -b v2.23.4-1 && make -C nccl\n"
        "ENV LD_PRELOAD=/opt/nccl/build/lib/libnccl.so\n"
    )
    nccl = lint(text).snapshot.installations(NCCL)
    assert [(i.version, [e.line for e in i.evidence]) for i in nccl] == [("2.23.4", [3, 2])]


# --- base images ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference",
    [
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2",
        "763104351884.dkr.ecr.eu-west-1.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-sagemaker",
        "727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2-v1.8",
        "public.ecr.aws/deep-learning-containers/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-sagemaker-v1.3",
        "public.ecr.aws/deep-learning-containers/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2@sha256:"
        + "0" * 64,
    ],
)
def test_every_dlc_form_resolves_through_the_matrix(reference: str) -> None:
    stack = resolve_base_image(INDEX, reference, Evidence(kind="text", source="Dockerfile"))
    versions = {n: i.version for n, i in stack.installations}
    assert versions[TORCH] == "2.5.1" and versions[NCCL]
    assert stack.known_as is not None and "pytorch-training:2.5.1" in stack.known_as


@pytest.mark.parametrize(
    ("reference", "component", "version"),
    [
        (
            "nvcr.io/nvidia/cuda:12.8.1-cudnn-devel-ubuntu24.04",
            ComponentName.CUDA_TOOLKIT,
            "12.8.1",
        ),
        ("docker.io/nvidia/cuda:11.8.0-cudnn8-runtime-ubi8", ComponentName.CUDNN, "8"),
        ("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel", TORCH, "2.5.1"),
        (
            "public.ecr.aws/deep-learning-containers/base:12.9.1-gpu-py312-ubuntu22.04-ec2",
            ComponentName.CUDA_TOOLKIT,
            "12.9.1",
        ),
        (
            "123456789012.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:9.9.0-gpu-py312-cu131-ubuntu22.04-ec2",
            TORCH,
            "9.9.0",
        ),
    ],
)
def test_tag_namings(reference: str, component: ComponentName, version: str) -> None:
    stack = resolve_base_image(INDEX, reference, Evidence(kind="text", source="Dockerfile"))
    assert (component, version) in {(n, i.version) for n, i in stack.installations}


# --- reviewer rules -------------------------------------------------------------------------


def test_reviewer_rules_fire_at_their_lines() -> None:
    text = (
        "FROM nvcr.io/nvidia/pytorch:latest\n"
        "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat/lib:lib:/opt/x\n"
        "RUN pip install numpy<2 'transformers>=4.40'\n"
    )
    found = {f.id: f for f in check(lint(text).snapshot, MATRIX).findings}
    assert {"SC1001", "SC1002", "SC1005", "SC1006"} <= set(found)
    assert [e.line for e in found["SC1001"].evidence] == [1]
    assert [e.line for e in found["SC1002"].evidence] == [2]
    assert "numpy<2" in found["SC1006"].message and "transformers" not in found["SC1006"].message


def test_constraint_cleared_on_ngc_then_install() -> None:
    text = "FROM nvcr.io/nvidia/pytorch:25.01-py3\nENV PIP_CONSTRAINT=\nRUN pip install vllm\n"
    found = [f for f in check(lint(text).snapshot, MATRIX).findings if f.id == "SC1003"]
    assert len(found) == 1 and found[0].evidence[0].line == 2 and "line 3" in found[0].message
    assert "SC1003" not in rule_ids(text.replace("nvcr.io/nvidia/pytorch", "ubuntu"))


def test_nccl_older_than_torch_build() -> None:
    base = (
        "FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:"
        "2.5.1-gpu-py311-cu124-ubuntu22.04-ec2\n"
    )
    old = base + "RUN git clone -b v2.18.3-1 https://github.com/NVIDIA/nccl.git\n"
    new = base + "RUN git clone -b v2.27.7-1 https://github.com/NVIDIA/nccl.git\n"
    assert "SC1004" in rule_ids(old)
    assert "SC1004" not in rule_ids(new)


def test_healthy_file_raises_no_reviewer_rule() -> None:
    text = (
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        "ENV LD_LIBRARY_PATH=/opt/nccl/lib:${LD_LIBRARY_PATH}\n"
        "RUN pip install 'numpy<2' torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n"
    )
    assert not {i for i in rule_ids(text) if i.startswith("SC10")}


# --- the command line, bad input, one reading everywhere ---------------------------------------


def write(tmp_path: Path, text: str, name: str = "Dockerfile") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("FROM ubuntu\nRUN <<EOF\necho\n", 2, "heredoc <<EOF is never closed"),
        ("FROM ubuntu\nRUN\n", 2, "RUN requires at least one argument"),
        ("RUN echo\nFROM ubuntu\n", 1, "before the first FROM"),
        ("FROM ubuntu AS\n", 1, "FROM expects"),
        ("FROM ubuntu\nENV NAME\n", 2, "needs a value"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli: Cli, tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = write(tmp_path, text)
    done = cli("lint-dockerfile", path)
    assert done.code == 2
    assert done.err.strip().count("\n") == 0
    assert f"{path}:{line}: " in done.err and reason in done.err


def test_unknown_instruction_is_a_note(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path, "FROM ubuntu:22.04\nFOO bar secret-token\nRUN echo\n")
    done = cli("lint-dockerfile", path, "--format", "json")
    assert done.code == 0, done.err
    notes = [n["message"] for n in json.loads(done.out)["snapshot"]["notes"]]
    assert any("line 2: unknown instruction 'FOO'" in n for n in notes)
    assert "secret-token" not in done.out


def test_build_arg_target_and_directory(cli: Cli, tmp_path: Path) -> None:
    text = (
        "ARG TORCH=2.5.1\n"
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS train\n"
        "ARG TORCH\n"
        "RUN pip install torch==${TORCH} --index-url https://download.pytorch.org/whl/cpu\n"
        "FROM scratch AS export\n"
    )
    path = write(tmp_path, text)
    done = cli(
        "lint-dockerfile",
        path,
        "--build-arg",
        "TORCH=2.4.0",
        "--target",
        "train",
        "--format",
        "json",
    )
    report = json.loads(done.out)
    torch = report["snapshot"]["components"]["torch"]["installations"][0]
    assert torch["version"] == "2.4.0" and done.code == 1  # SC201, an error
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", "FROM pytorch/pytorch:latest\n", "train.Dockerfile")
    many = cli("lint-dockerfile", str(tmp_path), "--target", "train", "--format", "json")
    ids = {f["id"] for f in json.loads(many.out)["findings"]}
    assert {"SC201", "SC1001"} <= ids


def test_a_directory_target_skips_a_file_whose_stage_is_only_heredoc_text(
    cli: Cli, tmp_path: Path
) -> None:
    """A FROM ... AS line inside a heredoc is text the file writes, not a stage: the parser's
    stages say so, and that file is linted as docker builds it."""
    write(
        tmp_path,
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS train\n"
        "RUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cpu\n",
    )
    (tmp_path / "gen").mkdir()
    write(
        tmp_path / "gen",
        "FROM python:3.11-slim\n"
        "COPY <<EOF /out/Dockerfile\n"
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS train\n"
        "EOF\n",
    )
    many = cli("lint-dockerfile", str(tmp_path), "--target", "train", "--format", "json")
    assert many.code != 2, many.err
    assert "SC201" in {f["id"] for f in json.loads(many.out)["findings"]}


def test_triage_reads_every_corpus_dockerfile_as_lint_does() -> None:
    """Same versions of every component; the line lint gives is among triage's evidence (which
    also cites an ENV that declares the version, such as NCCL_VERSION)."""
    for entry in entries():
        if entry.target is not None:
            continue  # triage reads the stage docker builds
        text = entry.path.read_text()
        linted = lint_dockerfile(text, str(entry.path), INDEX).snapshot
        triaged = read_report(text, str(entry.path)).snapshot
        for component in ComponentName:
            lint_read = {(i.version, i.evidence[0].line) for i in linted.installations(component)}
            triage_read = {
                (i.version, e.line) for i in triaged.installations(component) for e in i.evidence
            }
            assert lint_read <= triage_read, (entry.id, component)
            assert {v for v, _ in lint_read} == {v for v, _ in triage_read}, (entry.id, component)


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_is_sourced_and_split() -> None:
    corpus = entries()
    assert len(corpus) >= 40
    held_out = [e for e in corpus if e.split == "heldout"]
    assert len(held_out) * 3 >= len(corpus) - 3
    for entry in corpus:
        assert entry.path.is_file(), entry.id
        repo, _, rest = entry.source.partition("@")
        commit, _, file = rest.partition(":")
        assert "/" in repo and len(commit) == 40 and file and entry.licence


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_corpus_readings(split: str) -> None:
    result = score([e for e in entries() if e.split == split])
    assert result.files, "no reading written for this split"
    assert result.errors_on_shipped == 0, result.misses
    assert result.versions_read >= 0.9 * result.versions, result.misses
    assert result.findings_right >= 0.8 * result.files, result.misses


@pytest.mark.parametrize(
    ("written", "expanded"),
    [
        ("${A//v}", "1.13.2-aws"),
        ("${A#v}", "1.13.2-aws"),
        ("${A%-aws}", "v1.13.2"),
        ("${H%.*}", "2.11"),
        ("${H%%.*}", "2"),
        ("${A/-aws/}", "v1.13.2"),
        ("${E:-x}", "x"),
        ("${E-x}", ""),
        ("${A:+y}", "y"),
        ("${UNSET}", "${UNSET}"),
        ("\\$A", "$A"),
    ],
)
def test_expansion_forms(written: str, expanded: str) -> None:
    assert expand(written, {"A": "v1.13.2-aws", "H": "2.11.2", "E": ""})[0] == expanded


def test_triage_of_a_dockerfile_resolves_from_and_reads_no_comment_as_a_fact() -> None:
    text = (
        "FROM nvcr.io/nvidia/pytorch:24.05-py3\n"
        "# tuned for p5.48xlarge\n"
        "RUN pip install \\\n"
        "    # a comment inside the continuation\n"
        "    numpy && echo 'NCCL WARN NET/OFI' \n"
        "ENV NCCL_DEBUG=INFO\n"
    )
    triaged = read_report(text, "Dockerfile")
    assert [s.segment.format.name for s in triaged.segments] == ["dockerfile"]
    snapshot = triaged.snapshot
    assert snapshot.instance.type is None and not snapshot.observed
    nccl = snapshot.installations(NCCL)
    assert [(i.version, i.evidence[0].line) for i in nccl] == [("2.21.5", 1)]  # ngc.toml 24.05


def test_hostile_files_stay_bounded(cli: Cli, tmp_path: Path) -> None:
    doubling = "FROM ubuntu\nENV A=aaaaaaaaaaaaaaaa\n" + "ENV A=$A$A\n" * 5000
    done = cli("lint-dockerfile", write(tmp_path, doubling))
    assert done.code == 2 and "expand past" in done.err
    # Many branch flags before a repository that never comes: no quadratic regex.
    long_run = "FROM ubuntu\nRUN " + "git clone -b v2.1.0 x " * 20000 + "\n"
    started = time.perf_counter()
    assert cli("lint-dockerfile", write(tmp_path, long_run)).code == 0
    assert time.perf_counter() - started < 10


def test_a_user_matrix_row_for_a_dlc_base_image_is_used_in_any_registry(tmp_path: Path) -> None:
    (tmp_path / "dlc.toml").write_text(
        "[[dlc]]\n"
        'repository = "public.ecr.aws/deep-learning-containers/base"\n'
        'tag = "12.9.1-gpu-py312-ubuntu22.04-ec2"\n'
        'cuda = "12.9.1"\n'
        'nccl = "2.27.3"\n'
        'efa = "1.43.1"\n'
        'source = "a row written for this test"\n'
        "checked = 2026-12-03\n"
    )
    index = MatrixIndex(load_matrix([tmp_path]))
    reference = (
        "763104351884.dkr.ecr.us-west-2.amazonaws.com/base:12.9.1-gpu-py312-ubuntu22.04-sagemaker"
    )
    stack = resolve_base_image(index, reference, Evidence(kind="text", source="Dockerfile"))
    versions = {n: i.version for n, i in stack.installations}
    assert versions[NCCL] == "2.27.3" and versions[ComponentName.EFA_INSTALLER] == "1.43.1"


def test_a_dockerfile_on_standard_input() -> None:
    """`lint-dockerfile -` (and `scan --dockerfile -`) read the Dockerfile from stdin."""
    from tests.conftest import run_stackcheck

    text = "FROM nvcr.io/nvidia/pytorch:24.05-py3\nENV NCCL_P2P_DISABLE=1\n"
    done = run_stackcheck("lint-dockerfile", "-", "--format", "json", stdin=text)
    assert done.code == 0, done.err
    found = json.loads(done.out)["findings"]
    assert [(f["id"], f["evidence"][0]["line"]) for f in found] == [("SC601", 2)]
    binary = run_stackcheck("lint-dockerfile", "-", stdin="FROM x\n\x00")
    assert binary.code == 2 and "not a Dockerfile" in binary.err
