"""The twentieth pass's readings on GPUs in containers and schedulers and on /dev/shm (a Ray task
that asked for no GPU, Docker's device request without capabilities, a pod without its
memory-backed /dev/shm), on shapes of text beyond the corpus reports they were written for
(1880, 1894, 1931, 1945); and healthy texts read without a warning (accelerate's RTX 40 gate,
a program that cannot parse a GPU UUID, an AMD GPU by its ROCm target, DCGM's unsupported
field: 1890, 1906, 1910, 1926)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.support.pasted import observed
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


def test_a_ray_workers_empty_cuda_visible_devices_is_the_schedulers(matrix: Matrix) -> None:
    """Ray empties CUDA_VISIBLE_DEVICES in a worker that requested no GPU: where the text shows
    the empty value too, the advice is still to request one, not to unset the variable."""
    task = "@ray.remote\ndef f(i):\n    torch.rand(1, 1).to('cuda')\n"
    read = _levels(
        matrix,
        "SC532",
        f'{task}CUDA_VISIBLE_DEVICES=""\n{_NO_GPUS}',
        f"{task}export CUDA_VISIBLE_DEVICES=\n{_NO_GPUS}",
    )
    assert set(read.values()) == {Severity.INFO}, read
    alone = findings(matrix, f'CUDA_VISIBLE_DEVICES=""\n{_NO_GPUS}\n').get("SC532")
    assert alone is Severity.WARNING  # without Ray's task, the setting is the user's


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


def test_accelerate_rtx40_gate_is_a_hint_not_a_setting(matrix: Matrix) -> None:
    """accelerate's gate names NCCL_P2P_DISABLE and NCCL_IB_DISABLE as its fix: advice, so no
    setting is read from it; the gate itself is the GPU's missing P2P, by design (info)."""
    gate = (
        "NotImplementedError: Using RTX 4000 series doesn't support faster communication "
        'broadband via P2P or IB. Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or '
        "use `accelerate launch` which will do this automatically."
    )
    read = findings(matrix, gate + "\n")
    assert read == {"SC202": Severity.INFO}, read
    hint = "Please set NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=ALL and rerun."
    assert read_report(hint + "\n", "pasted").snapshot.env == {}
    # A setting the reporter states is still read.
    assert (
        "NCCL_P2P_DISABLE"
        in read_report("It works with NCCL_P2P_DISABLE=1 set.\n", "pasted").snapshot.env
    )


def test_a_uuid_a_program_cannot_parse_is_read_without_a_finding(matrix: Matrix) -> None:
    for text in (
        "ValueError: invalid literal for int() with base 10: "
        "'MIG-fe59bfcd-3946-5d58-a00e-183ee397373b'",
        "ValueError: invalid literal for int() with base 10: "
        "'GPU-5b1a2c3d-1111-2222-3333-444455556666'",
    ):
        assert "device-uuid-unparsed" in observed(text), text
        assert findings(matrix, text + "\n") == {}, text
    assert "device-uuid-unparsed" not in observed(
        "ValueError: invalid literal for int() with base 10: 'abc'"
    )


def test_an_amd_gpu_named_by_its_rocm_target(matrix: Matrix) -> None:
    for text in (
        "  gpu            AMD ROCm (gfx1034)",
        "GPU models and configuration: AMD Instinct MI250X (gfx90a:sramecc+:xnack-)",
        "Radeon RX 7900 XTX (gfx1100)",
    ):
        assert "gpu-amd" in observed(text), text
    for text in (
        "ROCm build for the architectures (gfx90a) only",
        "hipcc --offload-arch (gfx942)",
        "Does AMD ROCm (gfx1034) work?",
    ):
        assert "gpu-amd" not in observed(text), text


def test_dcgm_unsupported_field_is_advice(matrix: Matrix) -> None:
    text = "Error setting watches. Result: -6: Feature not supported"
    assert findings(matrix, text + "\n") == {"SC202": Severity.INFO}


def test_ollama_without_driver_libraries_and_a_daemon_reload_see_no_gpu(matrix: Matrix) -> None:
    """Ollama's empty library list, and a host's daemon-reload under a running GPU container."""
    for text in (
        'time=2024-02-16T15:55:38.880Z level=INFO source=gpu.go:308 msg="Discovered GPU '
        'libraries: []"',
        "2. Run `sudo systemctl daemon-reload` on the host.",
        "running `systemctl daemon-reload` cause all running gpu containers to lost gpu devices",
    ):
        assert "no-gpu" in observed(text), text
    for text in (
        "2024/01/14 19:50:06 gpu.go:248: Discovered GPU libraries: "
        "[/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1]",
        "sudo systemctl daemon-reload && sudo systemctl restart docker",
        "Does systemctl daemon-reload on the host break the container?",
    ):
        assert "no-gpu" not in observed(text), text


def test_a_pod_whose_nvidia_runtime_class_or_handler_is_missing(matrix: Matrix) -> None:
    """The API server's RuntimeClass admission and CRI-O's handler lookup, as kubectl shows them
    (CRI-O's line wrapped after `from`, as pasted)."""
    read = _levels(
        matrix,
        "SC532",
        'Error creating: pods "prune-test1-ix-chart-6c6f674cbb-" is forbidden: pod rejected: '
        'RuntimeClass "nvidia" not found',
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to find runtime "
        "handler nvidia from \nruntime list map [crun:0x0004dd5f0 runc: 0xc0004dd790]",
    )
    assert set(read.values()) == {Severity.ERROR}, read
    assert "no-gpu" not in observed('pod rejected: RuntimeClass "kata" not found')


def test_a_docker_client_without_the_gpus_flag(matrix: Matrix) -> None:
    """Docker's client before 19.03 refuses `--gpus` (SC1415); the flag and its value passed as
    one argument is another fault, not read as this."""
    read = _levels(
        matrix,
        "SC1415",
        "sudo docker run --gpus all nvidia/cuda:9.0-base nvidia-smi\nunknown flag: --gpus\n"
        "See 'docker run --help'.",
        "result:    unknown flag: --gpus See 'docker run --help'.",
        "java.io.IOException: Failed to run image '<my_image>'. Error: unknown flag: --gpus",
    )
    assert set(read.values()) == {Severity.ERROR}, read
    for text in ("uknown flag: --gpus all", "unknown flag: --gpus all", "unknown flag: --gpus-x"):
        assert "gpus-flag-unknown" not in observed(text), text


def test_ray_tune_trials_without_gpus_are_advice(matrix: Matrix) -> None:
    """Ray Tune's own warning, and its status line, that the trials requested no GPU."""
    read = _levels(
        matrix,
        "SC532",
        "WARNING tune.py:495 -- Tune detects GPUs, but no trials are using GPUs. To enable "
        f"trials to use GPUs, set tune.run(resources_per_trial={{'gpu': 1}}...)\n{_NO_GPUS}",
        f"== Status ==\nUsing FIFO scheduling algorithm.\nResources requested: 1/8 CPUs, 0/1 GPUs\n"
        f"{_NO_GPUS}",
    )
    assert set(read.values()) == {Severity.INFO}, read
    for text in (
        "Resources requested: 1/8 CPUs, 1/1 GPUs",
        "Resources requested: 1/8 CPUs, 0/0 GPUs",
    ):
        assert "gpu-unrequested" not in observed(text), text
