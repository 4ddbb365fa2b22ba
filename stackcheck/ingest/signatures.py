"""Messages that mean the same thing wherever they are pasted: in a traceback, a log, a quote
inside prose. Each is a known error or warning text of the CUDA runtime, PyTorch, NCCL's shared
memory transport, libfabric, nvidia-container-cli or the NGC entrypoint.

Patterns are bounded (no nested repetition) so a pathological line costs linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stackcheck import versions
from stackcheck.ingest.facts import ComponentFact, Fact, GpuFact, InstanceFact, ObservationFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName, ObservationKind

_Handler = Callable[[Line, "re.Match[str]"], list[Fact]]


def _observe(kind: ObservationKind, value: str | None = None) -> _Handler:
    def handler(line: Line, match: re.Match[str]) -> list[Fact]:
        return [ObservationFact(line, kind, value if value is not None else match.group(0))]

    return handler


def _too_old(line: Line, match: re.Match[str]) -> list[Fact]:
    cuda = versions.cuda_from_int(int(match.group(1)))
    return [
        ObservationFact(line, "driver-insufficient", match.group(0)),
        ComponentFact(line, ComponentName.DRIVER, cuda=cuda),
    ]


def _incompatible_gpu(line: Line, match: re.Match[str]) -> list[Fact]:
    sm = match.group(2)
    cc = f"{sm[:-1]}.{sm[-1]}"
    name = re.sub(r"^.{0,80}?(?:UserWarning:|Warning:)\s*", "", match.group(1)).strip()
    return [
        GpuFact(line, name, compute_capability=cc),
        ObservationFact(line, "no-kernel-image", f"{name} (sm_{sm})"),
    ]


def _torch_archs(line: Line, match: re.Match[str]) -> list[Fact]:
    archs = match.group(1).split()
    return [ComponentFact(line, ComponentName.TORCH, archs=archs)]


def _cudnn_mismatch(line: Line, match: re.Match[str]) -> list[Fact]:
    compiled = ".".join(match.group(i) for i in (1, 2, 3))
    loaded = ".".join(match.group(i) for i in (4, 5, 6))
    return [
        ObservationFact(line, "cudnn-mismatch", f"compiled against {compiled}, loaded {loaded}"),
        ComponentFact(line, ComponentName.CUDNN, version=loaded, properties={"loaded": "yes"}),
    ]


def _library(line: Line, match: re.Match[str]) -> list[Fact]:
    name = match.group(1)
    if "libnccl-net" in line.text or "NET/Plugin" in line.text or "dlerror" in line.text:
        if name.startswith("libnccl-net"):
            return [ObservationFact(line, "net-plugin-missing", name)]
        return [ObservationFact(line, "net-plugin-failed", f"{name} cannot be opened")]
    return [ObservationFact(line, "library-missing", name)]


def _instance(line: Line, match: re.Match[str]) -> list[Fact]:
    return [InstanceFact(line, match.group(1).lower())]


def _fm_mismatch(line: Line, match: re.Match[str]) -> list[Fact]:
    return [
        ObservationFact(line, "fabric-manager-mismatch", f"{match.group(1)} vs {match.group(2)}")
    ]


SIGNATURES: tuple[tuple[re.Pattern[str], _Handler], ...] = (
    (
        re.compile(
            r"system not yet initiali[sz]ed|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY"
        ),
        _observe("cuda-error", "802"),
    ),
    (
        re.compile(
            r"forward compatibility was attempted on non supported HW|"
            r"cudaErrorCompatNotSupportedOnDevice|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
        ),
        _observe("cuda-error", "804"),
    ),
    (
        re.compile(
            r"CUDA driver version is insufficient for CUDA runtime version|"
            r"cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER|"
            r"requirement error: unsatisfied condition: cuda\s{0,2}>=\s{0,2}[\d.]{1,10}|"
            r"compatibility mode is UNAVAILABLE"
        ),
        _observe("driver-insufficient"),
    ),
    (
        re.compile(r"The NVIDIA driver on your system is too old \(found version (\d{4,6})\)"),
        _too_old,
    ),
    (
        re.compile(
            r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice|"
            r"Found no NVIDIA driver on your system|/proc/driver/nvidia/version does not exist|"
            r"kernel driver does not appear to be running|"
            r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver|"
            r"nvidia-smi: (?:command )?not found|The NVIDIA Driver was not detected"
        ),
        _observe("no-gpu"),
    ),
    (
        re.compile(
            r"no kernel image is available for execution on the device|"
            r"cudaErrorNoKernelImageForDevice"
        ),
        _observe("no-kernel-image"),
    ),
    (
        re.compile(
            r"(\S.{0,120}?) with CUDA capability sm_(\d{2,3}) is not compatible with the current "
            r"PyTorch installation"
        ),
        _incompatible_gpu,
    ),
    (
        re.compile(
            r"The current PyTorch install supports CUDA capabilities ((?:sm_\d{2,3}[af]? ?){1,24})"
        ),
        _torch_archs,
    ),
    (
        re.compile(
            r"cuDNN version incompatibility: PyTorch was compiled\s{1,4}against "
            r"\((\d{1,2}), (\d{1,2}), (\d{1,3})\) but (?:linked against|found runtime version) "
            r"\((\d{1,2}), (\d{1,2}), (\d{1,3})\)"
        ),
        _cudnn_mismatch,
    ),
    (
        re.compile(r"(lib[\w+.-]{1,80}?\.so(?:\.\d{1,4}){0,4}): cannot open shared object file"),
        _library,
    ),
    (re.compile(r"Could not load library (lib[\w+.-]{1,80}?\.so(?:\.\d{1,4}){0,4})"), _library),
    (re.compile(r"\b(lib[\w+.-]{1,80}?\.so(?:\.\d{1,4}){0,4}) => not found"), _library),
    (
        re.compile(
            r"posix_fallocate failed|Error while creating shared memory segment|"
            r"unable to allocate shared memory|out of shared memory|"
            r"DataLoader worker \(pid \d{1,9}\) is killed by signal: Bus error"
        ),
        _observe("shm-exhausted"),
    ),
    (
        re.compile(
            r"Libfabric error: \(-12\)|Unknown error -12\b|"
            r"Failure to post internal receive buffers|"
            r"ibv_\w{1,40}\b.{0,120}Cannot allocate memory|fi_\w{1,40}\b.{0,120}\(-12\)"
        ),
        _observe("rdma-enomem"),
    ),
    (
        re.compile(
            r"fi_getinfo:? -61\b|fi_getinfo\(\) call failed: No data available|"
            r"No eligible providers were found|Couldn't find any optimal provider|"
            r"EFA libfabric provider not detected"
        ),
        _observe("efa-provider-missing"),
    ),
    (
        re.compile(r"version ['\u2018]?(FABRIC_\d{1,2}\.\d{1,3})['\u2019]? not found"),
        lambda line, match: [ObservationFact(line, "libfabric-symbol-missing", match.group(1))],
    ),
    (
        re.compile(
            r"fabric manager NVIDIA GPU driver interface version (\S{1,30}) do(?:n't|esn't|es not) "
            r"match with driver version (\S{1,30})"
        ),
        _fm_mismatch,
    ),
    (
        re.compile(
            r"\b(?:ml\.)?((?:p\d[a-z0-9-]{0,12}|g\d[a-z0-9]{0,6}|trn\d[a-z0-9]{0,6}|inf\d[a-z0-9]{0,6})"
            r"\.\d{0,2}x?large)\b",
            re.IGNORECASE,
        ),
        _instance,
    ),
)


def line_facts(line: Line) -> list[Fact]:
    facts: list[Fact] = []
    for pattern, handler in SIGNATURES:
        found = pattern.search(line.text)
        if found is not None:
            facts.extend(handler(line, found))
    return facts
