"""Family ``image-metadata``: what an image's ENV promises against what its files hold, and the
NVIDIA container runtime's start condition against the driver it will meet.

Base images set ``CUDA_VERSION``, ``NCCL_VERSION`` and ``CUDNN_VERSION``; a derived image that
installs another NCCL or cuDNN keeps the base's ENV, and people (and scripts) trust it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.libraries import loaded_by_torch
from stackcheck.snapshot.model import ComponentName, Evidence, Installation

_CONSTRAINT = re.compile(r"^(cuda|driver|arch|brand)\s*(>=|<=|!=|=|<|>)\s*(\S+)$")
_REQUIRE_DOCS = (
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/"
    "docker-specialized.html"
)


def _loaded_copies(
    ctx: CheckContext, key: str, component: ComponentName
) -> Iterator[tuple[Installation, str]]:
    """Each copy a process of the image would load: PyTorch's resolution where there is a CUDA
    PyTorch, else the single versioned copy the image has."""
    found = False
    for torch in ctx.torch_cuda_builds:
        loaded = loaded_by_torch(ctx, torch, key, component)
        if loaded is not None and loaded.version:
            found = True
            yield loaded, f"PyTorch {torch.version} would load"
    if not found:
        copies = [i for i in ctx.installations(component) if i.version]
        if len(copies) == 1:
            yield copies[0], "the image holds"


def _digits(value: str) -> int:
    parsed = versions.parse(value)
    return len(parsed.release) if parsed is not None else 0


class _EnvAgainstFiles(Rule):
    """ENV ``variable`` against the version of the component a process would load."""

    variable: str
    key: str  # the loads_<key> property of a PyTorch installation
    component: ComponentName

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        declared = ctx.snapshot.env.get(self.variable)
        if declared is None or versions.parse(declared.value) is None:
            return
        parts = min(max(_digits(declared.value), 2), 3)
        for copy, how in _loaded_copies(ctx, self.key, self.component):
            if not versions.same_release(declared.value, copy.version, parts):
                yield self.finding(
                    f"{self.variable}={declared.value}, but {how} "
                    f"{self.component.display_name} {copy.version} from {copy.path}.",
                    [declared.evidence, *copy.evidence],
                )


class EnvNcclMismatch(_EnvAgainstFiles):
    id = "SC350"
    name = "env-nccl-mismatch"
    family = "image-metadata"
    severity = Severity.WARNING
    title = "NCCL_VERSION disagrees with the NCCL that would load"
    variable = "NCCL_VERSION"
    key = "nccl"
    component = ComponentName.NCCL
    doc = RuleDoc(
        what="Compares the `NCCL_VERSION` an image's config declares with the NCCL that "
        "PyTorch's libtorch_cuda.so would resolve (RPATH, LD_LIBRARY_PATH, RUNPATH, "
        "ld.so.conf), or with the image's only NCCL when it has no CUDA PyTorch.",
        why="Base images (NGC, nvidia/cuda) set NCCL_VERSION; a derived image that pip-installs "
        "another NCCL keeps the stale value. Operators, support tickets and scripts that pick "
        "NCCL_* tunings by it then reason about a library the job does not run.",
        example="An image built FROM an NGC base says NCCL_VERSION=2.21.5, but its PyTorch "
        "loads the nvidia-nccl-cu12 2.19.3 wheel from site-packages.",
        fix="Set NCCL_VERSION in the Dockerfile to the NCCL you ship (or unset it), or make the "
        "NCCL you meant to ship the one PyTorch resolves.",
    )


class EnvCudnnMismatch(_EnvAgainstFiles):
    id = "SC351"
    name = "env-cudnn-mismatch"
    family = "image-metadata"
    severity = Severity.WARNING
    title = "CUDNN_VERSION disagrees with the cuDNN that would load"
    variable = "CUDNN_VERSION"
    key = "cudnn"
    component = ComponentName.CUDNN
    doc = RuleDoc(
        what="Compares the `CUDNN_VERSION` an image's config declares with the cuDNN that "
        "PyTorch would load, or with the image's only cuDNN.",
        why="The declared version is what people check against framework requirements; if the "
        "loaded cuDNN differs, a known cuDNN bug or a missing kernel is misdiagnosed, and "
        "`torch.backends.cudnn.version()` contradicts the image's documentation.",
        example="CUDNN_VERSION=9.1.0.70 in the config; the nvidia-cudnn-cu12 9.10.2 wheel "
        "PyTorch loads.",
        fix="Update or remove CUDNN_VERSION in the Dockerfile so it states the cuDNN shipped.",
    )


class EnvCudaMismatch(Rule):
    id = "SC352"
    name = "env-cuda-mismatch"
    family = "image-metadata"
    severity = Severity.WARNING
    title = "CUDA_VERSION disagrees with the CUDA toolkit in the image"
    doc = RuleDoc(
        what="Compares the `CUDA_VERSION` an image's config declares with the version of the "
        "toolkit `/usr/local/cuda` points at.",
        why="CUDA_VERSION is what the NVIDIA container runtime's documentation and many entry "
        "scripts trust; a toolkit swapped in a later layer (or a symlink left pointing at the "
        "old one) makes nvcc, JIT and the loaded libcudart differ from what the image claims.",
        example="CUDA_VERSION=12.4.1 while /usr/local/cuda -> cuda-12.1 with version.json 12.1.1.",
        fix="Point /usr/local/cuda at the toolkit you ship and set CUDA_VERSION to its version.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        declared = ctx.snapshot.env.get("CUDA_VERSION")
        if declared is None or versions.parse(declared.value) is None:
            return
        parts = min(max(_digits(declared.value), 2), 3)
        for toolkit in ctx.installations(ComponentName.CUDA_TOOLKIT):
            if toolkit.properties.get("default") != "yes" or not toolkit.version:
                continue
            if not versions.same_release(declared.value, toolkit.version, parts):
                yield self.finding(
                    f"CUDA_VERSION={declared.value}, but /usr/local/cuda is the CUDA "
                    f"{toolkit.version} toolkit at {toolkit.path}.",
                    [declared.evidence, *toolkit.evidence],
                )


def _compare(have: str, op: str, want: str) -> bool | None:
    a, b = versions.parse(have), versions.parse(want)
    if a is None or b is None:
        return None
    return {
        ">=": a >= b,
        "<=": a <= b,
        ">": a > b,
        "<": a < b,
        "=": a == b,
        "!=": a != b,
    }[op]


class RequireCudaUnsatisfied(Rule):
    id = "SC353"
    name = "require-cuda-unsatisfied"
    family = "image-metadata"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "The container runtime will refuse to start the image on this driver"
    doc = RuleDoc(
        what="Evaluates the image's `NVIDIA_REQUIRE_CUDA` the way the NVIDIA container runtime "
        "does (space-separated alternatives, each a comma-separated list of `cuda`, `driver`, "
        "`brand` and `arch` conditions) against the driver of the target host, whose CUDA "
        "version comes from the matrix. Conditions on brand or arch are not decided, so an "
        "alternative that needs them never fails the check; the toolkit's own refusal of an "
        "`arch>=` condition (`unsatisfied condition: arch >= 7.0`: the GPU is older than the "
        "image allows) is read as the error.",
        why="When no alternative holds, `nvidia-container-cli` stops the container before it "
        "runs: `requirement error: unsatisfied condition: cuda>=12.9`. A job scheduled onto "
        "such nodes fails at start on every node.",
        example="An image with NVIDIA_REQUIRE_CUDA=cuda>=12.9 on a host with driver 535.161.07, "
        "whose CUDA is 12.2.",
        fix="Run the image on hosts whose driver supports its CUDA (`stackcheck matrix cuda`), "
        "use an image built for the driver's CUDA, or, on data-center GPUs, rely on the "
        "forward-compatibility alternatives NVIDIA's images list (brand=tesla,driver>=...).",
        references=(_REQUIRE_DOCS,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        refused = ctx.snapshot.observations("require-arch-unsatisfied")
        if refused:
            # The toolkit's own verdict on the image's `arch>=` condition: the GPU is older.
            yield self.finding(
                "The container toolkit refused the image: its NVIDIA_REQUIRE_CUDA asks for a "
                f"newer GPU architecture than this one ({refused[0].value}).",
                [o.evidence for o in refused[:2]],
            )
            return
        require = ctx.snapshot.env.get("NVIDIA_REQUIRE_CUDA")
        driver = ctx.driver
        disabled = ctx.snapshot.env_value("NVIDIA_DISABLE_REQUIRE") or ""
        if require is None or driver is None or not driver.version:
            return
        if disabled.lower() in ("1", "true", "yes"):
            return
        supported = ctx.matrix.newest_cuda_for_driver(driver.version)
        if supported is None:
            return
        cuda = versions.release(supported.version, 2) or supported.version
        verdicts = [self._alternative(term, driver.version, cuda) for term in require.value.split()]
        if not verdicts or any(v is not False for v in verdicts):
            return
        yield self.finding(
            f"NVIDIA_REQUIRE_CUDA={require.value!r} is not met by driver {driver.version} "
            f"(CUDA {cuda}): the NVIDIA container runtime will not start this image.",
            [
                require.evidence,
                *driver.evidence,
                Evidence(
                    kind="matrix",
                    source=supported.source,
                    detail=f"driver {driver.version} supports CUDA {cuda}",
                ),
            ],
            severity=self.capped(supported.unsure),
        )

    @staticmethod
    def _alternative(term: str, driver: str, cuda: str) -> bool | None:
        """All of one alternative's conditions: True, False, or None when one is undecided."""
        result: bool | None = True
        for condition in term.split(","):
            match = _CONSTRAINT.match(condition.strip())
            if match is None:
                return None
            what, op, value = match.groups()
            have = {"cuda": cuda, "driver": driver}.get(what)
            verdict = _compare(have, op, value) if have is not None else None
            if verdict is False:
                return False
            if verdict is None:
                result = None
        return result
