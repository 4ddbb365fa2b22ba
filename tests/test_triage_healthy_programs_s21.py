"""Triage reads what programs print about their own use of the GPU on a healthy stack (s21): a
nightly PyTorch in Ultralytics' device banner, XLA running out of memory, ProcessGroupNCCL's
guessed device, TensorFlow's Windows dso_loader probe; each is recognised and raises no warning
(tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body


def observed(text: str, kind: str) -> list[str]:
    return [o.value or "" for o in read_report(text, "pasted").snapshot.observations(kind)]


def loud(text: str, matrix: Matrix) -> list[str]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f.id for f in report.findings if f.severity is not Severity.INFO]


def test_a_nightly_torch_in_the_device_banner_names_the_build_and_gpu(matrix: Matrix) -> None:
    """1952: `yolo checks` on a cu128 nightly (its date, then the CUDA build tag)."""
    snapshot = read_report(body("1952"), "pasted").snapshot
    assert [d.name for d in snapshot.gpus.devices] == ["NVIDIA GeForce RTX 5090"]
    assert observed(body("1952"), "cuda-available")
    assert not loud(body("1952"), matrix)


def test_xla_out_of_memory_is_the_programs(matrix: Matrix) -> None:
    """2024: jaxlib 0.1.x's replica line (wrapped after `Out`); later releases' one-line status."""
    assert observed(body("2024"), "program-fault")
    later = (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        "to allocate 2147483648 bytes.\n"
    )
    assert observed(later, "program-fault")
    assert not loud(body("2024"), matrix)


def test_process_group_guessing_the_device_is_the_programs_call(matrix: Matrix) -> None:
    """1975: the warning of init_process_group() without device_id (wrapped by Ray's log)."""
    assert observed(body("1975"), "program-fault")
    barrier = (
        "[rank1]:[W reducer.cpp] ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 1]  using GPU "
        "1 to perform barrier as devices used by this process are currently unknown.\n"
    )
    assert observed(barrier, "program-fault")
    assert not loud(body("1975"), matrix)


def test_tensorflows_windows_dll_probe_is_a_missing_library_and_no_alarm(matrix: Matrix) -> None:
    """2017 (cudart64_110.dll) and 2018 (cudart64_101.dll): TensorFlow's probe on a machine
    without CUDA; it goes on on the CPU."""
    assert observed(body("2017"), "library-missing") == ["cudart64_110.dll"]
    assert observed(body("2018"), "library-missing") == ["cudart64_101.dll"]
    assert not loud(body("2017"), matrix)
    assert not loud(body("2018"), matrix)


def test_cpu_use_said_as_training_a_mode_or_a_device_is_read(matrix: Matrix) -> None:
    """1955 (training without a GPU, a CPU-only install), 1966 (Colab in CPU mode), 1964 (the
    `cpu` device named): a program that asks for CUDA there needs its CPU path."""
    assert observed(body("1955"), "cpu-intended") == ["training without a GPU"]
    assert observed(body("1966"), "cpu-intended") == ["with CPU mode"]
    assert observed(body("1964"), "cpu-intended") == ['run d2 with "cpu" key']
    for key in ("1955", "1964", "1966"):
        assert not loud(body(key), matrix), key
    # A symptom is not a choice, nor a container left without its GPU request.
    assert not observed("It runs in CPU mode instead of the GPU.\n", "cpu-intended")
    assert not observed(
        "Training without a GPU request in docker fails: no CUDA GPUs are available.\n",
        "cpu-intended",
    )


def test_a_container_left_without_gpus_on_purpose_is_advice(matrix: Matrix) -> None:
    """1964: run without `--gpus all` where the program is meant for the CPU; without the CPU
    intent the same sentence stays a warning."""
    text = (
        "in docker i have the issue while running it without `--gpus all`\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    assert "SC531" in loud(text, matrix)
    assert "SC531" not in loud('I run it with "cpu" device on my laptop.\n' + text, matrix)


def test_a_dockerfile_named_as_what_ran_it_is_build_time(matrix: Matrix) -> None:
    """1965: `Found no NVIDIA driver` when a Dockerfile ran the step: `docker build` has no GPU."""
    assert observed(body("1965"), "cpu-intended") == ["when i use dockerfile"]
    assert not loud(body("1965"), matrix)


def test_nvls_failing_where_cumem_is_named_off_is_advice(matrix: Matrix) -> None:
    """1979: NCCL's NVLS setup failed in workers that lacked the framework's NCCL_CUMEM_ENABLE;
    the same failure alone, or with cuMem said on, stays the fabric manager's error."""
    assert observed(body("1979"), "nccl-cumem-named") == ["NCCL_CUMEM_ENABLE"]
    assert not loud(body("1979"), matrix)
    failed = (
        "node2:242431:242479 [5] transport/nvls.cc:158 NCCL WARN Cuda failure 1 "
        "'invalid argument'\n"
    )
    assert "SC521" in loud(failed, matrix)
    assert "SC521" in loud("export NCCL_CUMEM_ENABLE=1\n" + failed, matrix)
    assert "SC521" not in loud("export NCCL_CUMEM_ENABLE=0\n" + failed, matrix)


def test_an_architecture_a_program_change_added_is_advice(matrix: Matrix) -> None:
    """2034: nvcc refused compute_89 after a project's PR turned on a multi-arch fatbin, and
    commenting the PR out resolved it; the same nvcc error alone stays SC202's error."""
    assert observed(body("2034"), "program-change-undone")
    assert not loud(body("2034"), matrix)
    failed = "nvcc fatal   : Unsupported gpu architecture 'compute_89'\n"
    assert "SC202" in loud(failed, matrix)
    assert "SC202" not in loud(failed + "Reverting commit 1a2b3c4d fixed the build.\n", matrix)
    asked = failed + "Would reverting PR #686 fix it?\n"
    assert "SC202" in loud(asked, matrix)


def test_invalid_device_from_a_cuda_ipc_open_names_no_gpu_index(matrix: Matrix) -> None:
    """2042: cudaErrorInvalidDevice from cudaIpcOpenMemHandle on 8 PCIe GPUs (TensorRT-LLM's
    custom all-reduce, fixed to fall back to NCCL); an index asked for stays SC1325's."""
    assert not observed(body("2042"), "invalid-device-ordinal")
    assert not loud(body("2042"), matrix)
    asked = "My server has 2 A100 GPUs.\nRuntimeError: CUDA error: invalid device ordinal\n"
    assert "SC1325" in loud(asked, matrix)


def test_gdb_stopping_on_sigbus_in_nccls_shm_setup_is_shm(matrix: Matrix) -> None:
    """2022: gdb's `received signal SIGBUS, Bus error.` with the backtrace in ncclShmOpen (XLA's
    NCCL in a container with the default /dev/shm): SC502's error, its evidence the frame."""
    assert observed(body("2022"), "process-crashed") == ["bus error"]
    report = check(read_report(body("2022"), "pasted").snapshot, matrix)
    shm = [f for f in report.findings if f.id == "SC502"]
    assert shm and shm[0].severity is Severity.ERROR
    assert "ncclShmOpen" in shm[0].message


def test_a_grep_filtered_package_list_and_a_chinese_shm_fix_are_read(matrix: Matrix) -> None:
    """2027: `pip list | grep nccl` keeps no header, its command line opens the listing; the
    reporter found the cause (找到原因) in docker's `--shm-size 20g`: SC501's warning."""
    snapshot = read_report(body("2027"), "pasted").snapshot
    assert [i.version for i in snapshot.installations(ComponentName.NCCL)] == ["2.20.5"]
    assert observed(body("2027"), "shm-too-small") == ["--shm-size"]
    assert "SC501" in loud(body("2027"), matrix)
    # 072: conda's listing filtered by grep names the CUDA runtime it holds.
    listed = read_report(body("072"), "pasted").snapshot
    assert "10.2.89" in [i.version for i in listed.installations(ComponentName.CUDA_RUNTIME)]
    # A question about the flag states no fix.
    assert not observed("加个参数 --shm-size 20g 能解决吗？\n", "shm-too-small")  # noqa: RUF001


def test_tensorflows_cuinit_303_is_its_probe_finding_no_driver(matrix: Matrix) -> None:
    """2016: TensorFlow Serving's GPU image in Docker 19.03+ without the toolkit's `--gpus`:
    `failed call to cuInit: UNKNOWN ERROR (303)`, in a container, is SC532's error; the same line
    alone (a machine without a GPU) is advice."""
    assert observed(body("2016"), "no-gpu-probed")
    assert "SC532" in loud(body("2016"), matrix)
    alone = (
        "2019-11-13 15:03:24.659012: W tensorflow/stream_executor/cuda/cuda_driver.cc:318] "
        "failed call to cuInit: UNKNOWN ERROR (303)\n"
    )
    assert observed(alone, "no-gpu-probed")
    assert not loud(alone, matrix)


def test_pynvml_12_is_a_dependency_pin_not_the_stack(matrix: Matrix) -> None:
    """2035: `pip install tensorrt-llm` resolved pynvml 12.0.0, which dropped its own pynvml
    module; pip's row and a pin read the same; pynvml 11 and nvidia-ml-py's 12.x do not."""
    assert observed(body("2035"), "program-fault")
    assert not loud(body("2035"), matrix)
    assert observed("pynvml                    12.0.0\n", "program-fault")
    assert observed("pynvml==13.0.1\n", "program-fault")
    assert not observed("pynvml                    11.5.3\n", "program-fault")
    assert not observed("nvidia-ml-py              12.535.133\n", "program-fault")
