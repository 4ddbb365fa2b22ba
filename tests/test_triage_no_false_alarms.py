"""Texts on which a reading added for one report had raised a finding the text does not support
(found in review, each run through triage before the mend): the finding must stay away, and the
text it was written for must still give it."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    return {f.id: f.severity for f in check(read_report(text, "pasted").snapshot, matrix).findings}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # A privileged container sees the host's GPUs under the host's numbers (SC1324's advice).
        (
            "docker run --privileged --gpus device=1 -e CUDA_VISIBLE_DEVICES=1 "
            "nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n",
            "SC1323",
        ),
        # The versions shown settle it: driver 535 runs a cu121 build, whatever the words say.
        (
            "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
            "torch==2.3.0+cu121\nMy driver is too old for CUDA 12.4, I think.\n",
            "SC101",
        ),
        # A GPU's on-chip shared memory is not /dev/shm.
        ("The GPU's shared memory is insufficient for the flash attention kernel.\n", "SC501"),
        # A page size or a buffer beside the word memlock is not the limit.
        (
            "p4d.24xlarge\n"
            "ulimit -l shows unlimited inside the container, Hugepagesize is 2048 kB\n",
            "SC511",
        ),
        ("p4d.24xlarge\nmemlock is unlimited; the job buffer is 512k bytes\n", "SC511"),
        # The log names its network: IB, not the sockets interface listed before it.
        (
            "node1:1:1 [0] NCCL INFO NET/IB : No device found.\n"
            "node1:1:1 [0] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.1<0>\n"
            "node1:1:1 [0] NCCL INFO Using network IB\n",
            "SC413",
        ),
        # A CI job named `deploy:` is no compose service without a GPU request.
        (
            "deploy:\n  stage: deploy\n  image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n"
            "  script:\n    - torchrun --nproc_per_node 2 train.py\n",
            "SC531",
        ),
        # `count: 0` is a deliberate choice, not a reservation that forgot its count.
        (
            "services:\n  app:\n    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n    deploy:\n"
            "      resources:\n        reservations:\n          devices:\n"
            "            - driver: nvidia\n              count: 0\n"
            "              capabilities: [gpu]\n",
            "SC531",
        ),
    ],
)
def test_no_finding_the_text_does_not_support(matrix: Matrix, text: str, rule: str) -> None:
    assert rule not in findings(matrix, text)


def test_what_the_readings_were_written_for_still_reads(matrix: Matrix) -> None:
    visible = (
        "docker run --gpus device=1 -e CUDA_VISIBLE_DEVICES=1 "
        "nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
    )
    assert findings(matrix, visible)["SC1323"] is Severity.ERROR
    assert findings(matrix, "My driver is too old for CUDA 12.4.\n")["SC101"] is Severity.WARNING
    shm = "The training crashed because there was not enough shared memory in the container.\n"
    assert findings(matrix, shm)["SC501"] is Severity.WARNING
    assert "SC511" in findings(matrix, "The memlock limit inside the pod is set to just 64K.\n")


def test_a_sentence_is_no_transport_and_a_container_is_no_host() -> None:
    said = read_report("Using Network Manager I set a static IP on ib0.\n", "pasted")
    assert not said.snapshot.observations("net-transport")
    container = "No GPU is installed in the docker container, although nvidia-smi works.\n"
    assert not read_report(container, "pasted").snapshot.observations("cpu-intended")
    host = "No GPUs are present on the host.\n"
    assert read_report(host, "pasted").snapshot.observations("cpu-intended")


# Machines without a GPU by design, named without "I have no GPU" (phrasings beyond the
# corpus's pmodels/mpich#6686 and NervanaSystems/neon#186): the no-device message is advice.
_NO_DEVICE = "RuntimeError: cuInit failed: no CUDA-capable device is detected\n"


_BY_DESIGN = (
    "I get this when I run on the CPU only nodes on perlmutter:\n",
    "The job was submitted to the cpu partition of our cluster.\n",
    "Our Docker Hub automated builds fail since last month.\n",
    "See [builds](https://hub.docker.com/r/someone/image/builds/): they fail like this\n",
    "The wheel build on GitHub Actions fails at import:\n",
    "It happens in Travis CI and on Read the Docs:\n",
    "We launch it on non-GPU nodes for preprocessing.\n",
    "在CPU节点上运行时报错:\n",
    "setup.py probes the GPU during a docker build:\n",
    "It fails at build time, in the RUN step that imports the extension:\n",
)
# A GPU named beside the host, a host that may have one, or a build named inside a condition.
_GPU_BESIDE = (
    "It fails on the GPU nodes but the CPU nodes are fine:\n",
    "Our self-hosted GitHub Actions runner has an A100:\n",
    "The GitHub Actions GPU runners fail:\n",
    "It fails on our training servers:\n",
    "If it fails during a docker build, say so. It fails when the container runs:\n",
)


@pytest.mark.parametrize(
    ("said", "severity"),
    [*((s, Severity.INFO) for s in _BY_DESIGN), *((s, Severity.ERROR) for s in _GPU_BESIDE)],
)
def test_a_machine_without_a_gpu_by_design_is_advice(
    matrix: Matrix, said: str, severity: Severity
) -> None:
    assert findings(matrix, said + _NO_DEVICE)["SC532"] is severity
