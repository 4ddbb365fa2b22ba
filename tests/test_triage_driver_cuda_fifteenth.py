"""Triage readings of the driver against CUDA from the fifteenth pass: a program's driver check
retold in the reporter's words (tests/data/reports, source cited there) and the other shapes the
same kind of sentence takes."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings


def test_a_retold_driver_check_is_the_reporters_word(matrix: Matrix) -> None:
    """1406: 'the msg is that my Nvidia version is too old' after a cu100 build on a CUDA 9 host."""
    assert findings(matrix, body("1406")).get("SC101") is Severity.WARNING
    for said in (
        "the msg is that my Nvidia version is too old.\n",
        "The error says my nvidia driver is outdated.\n",
        "it tells me the GPU driver version is too old\n",
        "Torch complains that the NVIDIA driver was out of date.\n",
    ):
        assert findings(matrix, said).get("SC101") is Severity.WARNING, said


def test_a_question_or_a_denial_about_the_driver_is_not_read(matrix: Matrix) -> None:
    for said in (
        "Does the error mean my NVIDIA driver is too old?\n",
        "If the message says the nvidia driver is too old, update it.\n",
        "My driver is 535 and the GPU works fine.\n",
    ):
        assert "SC101" not in findings(matrix, said), said


def test_driver_files_in_the_image_are_a_driver_mismatch(matrix: Matrix) -> None:
    """1440: nvidia-container-cli cannot mount the host's nvidia-smi over the image's own (the
    paste wrapped mid-word); a driver library the image holds reads the same."""
    assert findings(matrix, body("1440")).get("SC103") is Severity.ERROR
    for held in ("usr/bin/nvidia-smi", "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"):
        text = (
            "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
            f"0123abcd/merged/{held}: file exists: unknown.\n"
        )
        assert findings(matrix, text).get("SC103") is Severity.ERROR, held


def test_unsloths_gpu_check_is_cuda_unavailable() -> None:
    """1402: Unsloth's import-time check is torch.cuda.is_available() False."""
    snapshot = read_report(body("1402"), "pasted").snapshot
    assert snapshot.observations("cuda-unavailable")


def test_a_tesla_kepler_card_in_prose_is_the_machines_gpu() -> None:
    """1405: 'I am using a Tesla K40m' (sm_35, which PyTorch's binaries dropped in 1.3.1)."""
    for said, name in (
        (body("1405"), "Tesla K40m"),
        ("We run on a Tesla K20Xm.\n", "Tesla K20Xm"),
        ("the job is using an NVIDIA Tesla K40c\n", "Tesla K40c"),
    ):
        devices = read_report(said, "pasted").snapshot.gpus.devices
        assert [(d.name, d.compute_capability) for d in devices] == [(name, "3.5")], said
    assert not read_report("a Tesla K40m would be nice\n", "pasted").snapshot.gpus.devices


def test_nvmls_mismatch_with_spaces_around_the_slash_is_read(matrix: Matrix) -> None:
    """1441: 'Failed to initialize NVML: Driver / library version mismatch' in an old container
    after a host driver upgrade; the bare form spaced the same way too."""
    assert findings(matrix, body("1441")).get("SC103") is Severity.ERROR
    assert findings(matrix, "nvidia-smi says Driver / library version mismatch\n").get("SC103")


def test_a_driver_said_incompatible_with_a_cuda_runtime_is_the_reporters_word(
    matrix: Matrix,
) -> None:
    """1444: 'my system drivers are incompatible with the package cuda runtime' (Singularity
    --nv on a host driver 352 under a CUDA 9 image); a CUDA named without its number too."""
    assert findings(matrix, body("1444")).get("SC101") is Severity.WARNING
    for said in (
        "The host driver is too old for the CUDA runtime in the image.\n",
        "our drivers are not compatible with the container's cuda toolkit\n",
    ):
        assert findings(matrix, said).get("SC101") is Severity.WARNING, said
    assert "SC101" not in findings(matrix, "Is the driver incompatible with the cuda runtime?\n")
