"""The twentieth pass's readings on GPUs in containers and schedulers and on /dev/shm (a Ray task
that asked for no GPU, Docker's device request without capabilities, a pod without its
memory-backed /dev/shm), on shapes of text beyond the corpus reports they were written for
(1880, 1894, 1931, 1945)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings

_NO_GPUS = "RuntimeError: No CUDA GPUs are available"


def _levels(matrix: Matrix, rule: str, *texts: str) -> dict[str, Severity | None]:
    """The level ``rule`` gives each text read alone (None: no finding)."""
    return {t: findings(matrix, t + "\n").get(rule) for t in texts}


def test_a_ray_task_without_num_gpus_is_advice(matrix: Matrix) -> None:
    """Ray gives a task or actor only the GPUs it requests (an empty CUDA_VISIBLE_DEVICES in its
    worker): the bare decorator, options without num_gpus, or Ray's own rule quoted."""
    read = _levels(
        matrix,
        "SC532",
        f"@ray.remote\ndef f(i):\n    torch.rand(1, 1).to('cuda')\n{_NO_GPUS}",
        f"  @ray.remote(num_cpus=2, max_retries=0)\nclass Worker:\n    pass\n{_NO_GPUS}",
        "`ray.get_gpu_ids()` will always return the empty list when called from the driver. "
        f"This is because Ray does not manage GPU allocations to the driver process.\n{_NO_GPUS}",
    )
    assert set(read.values()) == {Severity.INFO}, read


def test_a_ray_task_that_asks_for_a_gpu_is_not_excused(matrix: Matrix) -> None:
    """A task that requested a GPU and still saw none, or the decorator alone, is not advice."""
    asked = f"@ray.remote(num_gpus=1)\ndef f(i):\n    pass\n{_NO_GPUS}"
    assert findings(matrix, asked + "\n").get("SC532") == Severity.ERROR
    assert findings(matrix, "@ray.remote\ndef f(i):\n    pass\n") == {}


def test_docker_device_request_without_capabilities_sees_no_gpu(matrix: Matrix) -> None:
    """The daemon finds no device driver for an empty capability list as for `[[gpu]]`."""
    read = _levels(
        matrix,
        "SC532",
        'Error: could not select device driver "" with capabilities: []',
        'docker: Error response from daemon: could not select device driver "" with '
        "capabilities: [[gpu]].",
    )
    assert set(read.values()) == {Severity.ERROR}, read


def test_a_missing_shm_mount_or_enlarged_shm_is_read(matrix: Matrix) -> None:
    """Prose that a pod lacked its memory-backed /dev/shm, or that it had to be enlarged."""
    read = _levels(
        matrix,
        "SC501",
        "the 'No space left on device' error occured because of a missing shared memory mount",
        "The workload pods were built without a dshm volume, so NCCL failed.",
        "The job pod lacks a memory-backed /dev/shm emptyDir.",
        "I had to manually increase the Docker `/dev/shm` with an additional volumeMount",
        "We needed to increase the size of /dev/shm for the vLLM workers.",
    )
    assert set(read.values()) == {Severity.WARNING}, read


def test_questions_and_conditions_about_shm_are_not_read(matrix: Matrix) -> None:
    read = _levels(
        matrix,
        "SC501",
        "Do I need to increase /dev/shm for this?",
        "If the pod is missing a shared memory volume, NCCL may fail.",
        "The chart now mounts /dev/shm as an emptyDir with medium Memory.",
    )
    assert set(read.values()) == {None}, read
