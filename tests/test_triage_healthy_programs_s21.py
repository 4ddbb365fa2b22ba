"""Triage reads what programs print about their own use of the GPU on a healthy stack (s21): a
nightly PyTorch in Ultralytics' device banner, XLA running out of memory, ProcessGroupNCCL's
guessed device, TensorFlow's Windows dso_loader probe; each is recognised and raises no warning
(tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
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
