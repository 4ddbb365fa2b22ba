"""Family ``driver-cuda``: does the driver run the CUDA the stack was built for?

CUDA's rules, from NVIDIA's compatibility guide: a runtime runs on a driver at or above its
release's minimum; within one major it also runs on any driver above the major's floor
(minor-version compatibility, limited features); beyond that only the forward-compatibility
package helps, and only on data-center GPUs (else error 804).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from stackcheck import versions
from stackcheck.check.context import CheckContext, CudaConsumer
from stackcheck.check.model import Finding, Severity
from stackcheck.dockerfile.base_image import matrix_image
from stackcheck.matrix.requirements import cuda_runs_on, driver_needs
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Observation

# The value `driver-upgrade-fixed-stated` (the message catalogue) gives its observation.
_FIXED_BY = re.compile(r"^a newer driver, (\S+), fixed it$")


def _compat_libraries(ctx: CheckContext) -> list[Installation]:
    return [c for c in ctx.installations(ComponentName.CUDA_COMPAT) if c.version]


def _covered_by_compat(ctx: CheckContext, needed: str) -> Installation | None:
    """A forward-compat libcuda new enough for ``needed`` (a driver version), if any."""
    for compat in _compat_libraries(ctx):
        if ctx.version_at_least(compat.version, needed):
            return compat
    return None


def _needs(ctx: CheckContext, consumer: CudaConsumer) -> tuple[str | None, str | None, bool]:
    """(floor of the major, full-compatibility minimum, unsure) for a consumer's CUDA."""
    needs = driver_needs(ctx.matrix, consumer.cuda)
    return needs.floor, needs.full, needs.unsure


@dataclass(frozen=True)
class _Shortfall:
    """A CUDA consumer that needs more than the driver's own branch provides."""

    driver: Installation
    consumer: CudaConsumer
    floor: str  # the driver the consumer's CUDA major needs
    unsure: bool
    compat: Installation | None  # a forward-compat libcuda that covers it, if any


def _shortfalls(ctx: CheckContext) -> Iterator[_Shortfall]:
    driver = ctx.driver
    if driver is None:
        return
    for consumer in ctx.cuda_consumers:
        floor, _, unsure = _needs(ctx, consumer)
        if floor is None or ctx.version_at_least(driver.version, floor) is not False:
            continue
        yield _Shortfall(driver, consumer, floor, unsure, _covered_by_compat(ctx, floor))


def _cuda_shortfalls(
    ctx: CheckContext,
) -> Iterator[tuple[str, CudaConsumer, bool, tuple[Evidence, ...]]]:
    """Where only the driver's CUDA is shown (nvidia-smi's `CUDA Version: 11.4` said without
    the driver's version): each CUDA consumer it cannot run. Beyond its major it cannot; within
    it, minor-version compatibility runs it from CUDA 11 on (before, each release needs its
    own driver)."""
    driver = ctx.driver_shown
    if ctx.driver is not None or driver is None or not driver.cuda:
        return
    for consumer in ctx.cuda_consumers:
        fit = cuda_runs_on(ctx.matrix, driver.cuda, consumer.cuda)
        if fit is not None and not fit.runs:
            yield driver.cuda, consumer, fit.unsure, tuple(driver.evidence[:1])


class DriverTooOld(Rule):
    id = "SC101"
    name = "driver-too-old"
    family = "driver-cuda"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "Driver too old for the CUDA in use"
    doc = RuleDoc(
        what="Compares the NVIDIA driver with the CUDA version each PyTorch build, pip CUDA "
        "runtime and the default toolkit needs, using the matrix's per-major floors; where only "
        "the driver's CUDA is shown (nvidia-smi's `CUDA Version: 11.4` said without the "
        "driver's version), with that CUDA (beyond its major, or above it before CUDA 11). "
        "An NGC image the text runs or names (`nvcr.io/nvidia/tritonserver:21.10-py3-sdk`, "
        "its -sdk and -min variants too) whose release notes require a newer driver than the "
        "one shown (the matrix's `min_driver`): an error, as its start-up check refuses the "
        "driver; a warning where a data-center GPU is shown (forward compatibility may serve "
        "it).",
        why="Below the floor of a CUDA major, the runtime cannot start: `cudaGetDeviceCount` "
        "returns 35 (`CUDA driver version is insufficient for CUDA runtime version`) and "
        "`torch.cuda.is_available()` is False, so a job falls back to CPU or dies at start. "
        "Before CUDA 11 each release needs its own release's driver. Also reported from the "
        "messages that say so: error 35, PyTorch's `The NVIDIA driver on your system is too "
        "old`, nvidia-container-cli's `unsatisfied condition: cuda>=X`; and, as a warning, from "
        "a report's sentence that says the driver is too old for (or does not support) the CUDA "
        "release it needs, or the GPU it serves (`driver 450.142.00 is too old for A10`), or "
        "that updating to a newer driver fixed the failure (`Updating to 550.90.07 helped`; "
        "not where the driver shown is that one or newer: the text shows the fixed stack), and a "
        "CUDA a sentence names without its owner (`Install CUDA 9.2`) beside a stated driver "
        "that cannot run it, where nothing else shows what runs on the driver; and, as a "
        "warning, a GPU the matrix knows whose first CUDA release needs a newer driver than the "
        "one shown (an H100, CUDA 11.8, on R470: the branch predates the GPU); and, as a "
        "warning, a PyTorch release said without its build (`torch version 1.5.0`) beside a "
        "CUDA before 11 said without its owner (`CUDA version 10.0`) that the release has no "
        "build for, where some build of it is newer, no driver is shown and the process found "
        "no usable CUDA (`torch.cuda.is_available() returns False`). Error 35 is "
        "also what the runtime returns where it reaches no driver at "
        "all (a `docker build` step, a machine without an NVIDIA GPU): where the report says "
        "there is no NVIDIA GPU, or the driver it shows runs every CUDA it shows (the image's "
        "too), where a `docker build` step ran it, or where the report says the container "
        "lacked its GPU request or the nvidia runtime, the message alone is advice (`info`); "
        "not the container toolkit's or NGC's verdicts, which read the driver they judge.",
        example="PyTorch 2.9 built for CUDA 13.0 on a host with driver 535.161.07 (R535 runs "
        "CUDA 12.x at most).",
        fix="Upgrade the driver to the branch the CUDA major needs (for CUDA 13: R580 or newer; "
        "a current DLAMI brings it), or install the PyTorch build for the CUDA major the driver "
        "supports (e.g. a cu126 wheel on R535). On data-center GPUs the cuda-compat package is "
        "another way.",
        references=(
            "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html",
            "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        found = False
        for short in _shortfalls(ctx):
            if short.compat is not None:
                continue  # reported by the forward-compat rules
            found = True
            yield self.finding(
                f"{short.consumer.label} needs CUDA {short.consumer.cuda}, which needs driver >= "
                f"{short.floor}; the driver is {short.driver.version}.",
                [*short.driver.evidence, *short.consumer.evidence],
                severity=self.capped(short.unsure),
            )
        for short_cuda in _cuda_shortfalls(ctx):
            found = True
            driver_cuda, consumer, unsure, evidence = short_cuda
            yield self.finding(
                f"{consumer.label} needs CUDA {consumer.cuda}; the driver (its version not "
                f"shown) supports CUDA {driver_cuda} at most.",
                [*evidence, *consumer.evidence],
                severity=self.capped(unsure),
            )
        for gpu_short in [*self._gpu_shortfalls(ctx), *self._image_shortfalls(ctx)]:
            found = True
            yield gpu_short
        if not found:
            stated_cuda = self._stated_cuda_shortfall(ctx) or self._stated_release_shortfall(ctx)
            if stated_cuda is not None:
                found = True
                yield stated_cuda
        reported = ctx.snapshot.observations("driver-insufficient")
        if reported and not found:
            yield self._reported(ctx, reported)
        driver = ctx.driver
        stated = [
            o
            for o in ctx.snapshot.observations("driver-too-old-stated")
            if not self._shown_is_the_fix(ctx, o.value or "")
        ]
        settled = driver is not None and driver.version is not None and ctx.cuda_consumers
        if stated and not (found or reported or settled):
            # The reporter's word, where the versions shown do not settle it: a warning (where
            # they do, the check above has spoken: a driver they fit is not too old).
            shown = f" {driver.version}" if driver is not None and driver.version else ""
            yield self.finding(
                f"The report says the driver{shown} is too old for the CUDA or the GPU it serves "
                f"({(stated[0].value or '')[:100]}).",
                [stated[0].evidence] + (driver.evidence[:1] if driver else []),
                severity=Severity.WARNING,
            )

    @staticmethod
    def _shown_is_the_fix(ctx: CheckContext, said: str) -> bool:
        """A report that a newer driver fixed it, where the driver shown is that one or newer:
        the text shows the stack after the fix."""
        fixed = _FIXED_BY.match(said)
        driver = ctx.driver
        if fixed is None or driver is None or driver.version is None:
            return False
        return ctx.version_at_least(driver.version, fixed.group(1)) is True

    def _gpu_shortfalls(self, ctx: CheckContext) -> Iterator[Finding]:
        """A GPU newer than the driver's branch: below the driver of the GPU's first CUDA release
        (the matrix's `first_cuda`), the branch predates the GPU and does not bind to it. A
        warning: a branch may add a GPU before the toolkit that first targets it."""
        driver = ctx.driver
        if driver is None or driver.version is None:
            return
        for gpu in ctx.gpus:
            if gpu.known is None or not gpu.known.first_cuda:
                continue
            needs = driver_needs(ctx.matrix, gpu.known.first_cuda)
            if needs.full is None or ctx.version_at_least(driver.version, needs.full) is not False:
                continue
            yield self.finding(
                f"{gpu.name} came with CUDA {gpu.known.first_cuda}, whose driver is >= "
                f"{needs.full}; the driver {driver.version} predates the GPU.",
                [*driver.evidence[:1], *gpu.evidence[:1]],
                severity=Severity.WARNING,
            )

    def _image_shortfalls(self, ctx: CheckContext) -> Iterator[Finding]:
        """An NGC image the text runs or names whose release notes require a newer driver than
        the one shown: its start-up check refuses the driver (`This container was built for
        NVIDIA Driver Release ...`). Data-center GPUs may run it on older long-term branches
        through forward compatibility, so where the text shows one it is a warning."""
        driver = ctx.driver
        if driver is None or driver.version is None:
            return
        named = [
            (str(i.properties["image"]), i.evidence)
            for i in ctx.installations(ComponentName.CUDA_TOOLKIT)
            if i.properties.get("image")
        ] + [(spec.image, spec.evidence) for spec in ctx.snapshot.run_specs if spec.image]
        seen: set[str] = set()
        for reference, evidence in named:
            image = matrix_image(ctx.matrix, reference)
            if image is None or not image.min_driver or image.tag in seen:
                continue
            seen.add(image.tag)
            if ctx.version_at_least(driver.version, image.min_driver) is not False:
                continue
            datacenter = any(g.known is not None and g.known.datacenter for g in ctx.gpus)
            yield self.finding(
                f"{reference} (CUDA {image.cuda}) needs driver >= {image.min_driver}, as its "
                f"release notes say; the driver is {driver.version}, which its start-up check "
                "refuses"
                + (
                    " unless forward compatibility serves this data-center GPU on a long-term "
                    "branch the notes list."
                    if datacenter
                    else "."
                ),
                [*driver.evidence[:1], *evidence[:1]],
                severity=Severity.WARNING if datacenter else None,
            )

    def _stated_cuda_shortfall(self, ctx: CheckContext) -> Finding | None:
        """A CUDA a sentence names without its owner ("Install CUDA 9.2", "CUDA version is
        12.1") that the driver shown cannot run, where nothing else shows what runs on it: the
        CUDA the reporter installed (the driver's own CUDA never exceeds what it runs). A warning:
        the sentence does not say what uses that CUDA."""
        driver = ctx.driver
        if driver is None or driver.version is None or ctx.cuda_consumers:
            return None
        for said in ctx.snapshot.observations("version-stated"):
            value = said.value or ""
            if not value.startswith("CUDA "):
                continue
            needs = driver_needs(ctx.matrix, value.removeprefix("CUDA "))
            if (
                needs.floor is None
                or ctx.version_at_least(driver.version, needs.floor) is not False
            ):
                continue
            return self.finding(
                f"The report names {value}, which needs driver >= {needs.floor}; the driver is "
                f"{driver.version}.",
                [*driver.evidence[:1], said.evidence],
                severity=Severity.WARNING,
            )
        return None

    def _stated_release_shortfall(self, ctx: CheckContext) -> Finding | None:
        """A PyTorch release said without its build (`torch version 1.5.0`) beside a CUDA before
        11 said without its owner (`CUDA version 10.0`), where the process found no usable CUDA
        and no driver is shown: before CUDA 11 each runtime needs its own release's driver, so
        the release's builds for a newer CUDA (the matrix's variants) cannot run where that CUDA
        is what the driver supports. Only where the release has no build for that CUDA at all
        (a build of its own would fit) and some build is newer. A warning: the sentence does not
        say whether that CUDA is the driver's or a toolkit's."""
        if ctx.driver_shown is not None or ctx.cuda_consumers:
            return None
        failed = ctx.snapshot.observations("cuda-unavailable")
        if not failed:
            return None
        said_cuda = [
            o
            for o in ctx.snapshot.observations("version-stated")
            if (o.value or "").startswith("CUDA ")
        ]
        for torch in ctx.installations(ComponentName.TORCH):
            if not torch.version or torch.cuda or torch.properties.get("cpu_only") == "yes":
                continue
            release = ctx.matrix.torch_release(torch.version)
            if release is None or not release.variants:
                continue
            for said in said_cuda:
                cuda = (said.value or "").removeprefix("CUDA ")
                stated = versions.parse(cuda)
                if stated is None or stated.major >= 11:
                    continue  # from CUDA 11, minor-version compatibility runs newer builds
                if ctx.matrix.torch_variant(torch.version, cuda) is not None:
                    continue
                newer = [
                    v.cuda
                    for v in release.variants
                    if (built := versions.parse(v.cuda)) is not None and built > stated
                ]
                if not newer:
                    continue
                builds = ", ".join(v.cuda for v in release.variants)
                return self.finding(
                    f"PyTorch {torch.version} has builds for CUDA {builds}, none for the "
                    f"CUDA {cuda} the report names, and the process found no usable CUDA "
                    f"({(failed[0].value or '')[:60]}): before CUDA 11 each runtime needs its own "
                    f"release's driver, so its builds for CUDA {', '.join(newer)} cannot run on "
                    f"a driver of CUDA {cuda}.",
                    [*torch.evidence[:1], said.evidence, failed[0].evidence],
                    severity=Severity.WARNING,
                )
        return None

    def _reported(self, ctx: CheckContext, reported: list[Observation]) -> Finding:
        """The CUDA runtime's own verdict, where the versions were not all shown. Error 35 is
        also what the runtime returns where it finds no driver at all (a `docker build` step, a
        machine without an NVIDIA GPU), so there, and where the driver shown runs every CUDA
        shown, it is advice: the process did not reach a driver, rather than an old one."""
        driver = ctx.driver
        shown = f" {driver.version}" if driver is not None else ""
        said = (reported[0].value or "")[:120]
        evidence = [o.evidence for o in reported[:2]] + (driver.evidence[:1] if driver else [])
        # Only the runtime's error 35 can mean no driver at all: the container toolkit's and
        # NGC's checks, and PyTorch's "found version N", read the driver they judge.
        no_driver_possible = all(_NO_DRIVER.search(o.value or "") for o in reported)
        cpu = ctx.snapshot.observations("cpu-intended") if no_driver_possible else []
        # Any driver shown (PyTorch's "found version 12040" too) was reached: not that case.
        if cpu and not (ctx.has_nvidia_gpu or ctx.driver_shown):
            return self.finding(
                f"The CUDA runtime found no usable driver ({said}), where the report says there "
                f"is no NVIDIA GPU or driver to reach ({(cpu[0].value or '')[:60]}): a build "
                "step or a machine without an NVIDIA GPU gets this error from any CUDA build; "
                "the program needs a GPU at run time, or a CPU path.",
                [*evidence, cpu[0].evidence],
                severity=Severity.INFO,
            )
        unreached = ctx.snapshot.observations("gpu-request-stated") if no_driver_possible else []
        if unreached:
            # A container said to lack its GPU request or the nvidia runtime gets no driver
            # library, so CUDA's error 35 there says nothing of the driver's age (SC531 names it).
            return self.finding(
                f"The CUDA runtime found no usable driver ({said}), where the report says the "
                f"container lacked its GPU request or runtime "
                f"({(unreached[0].value or '')[:60]}): no driver library was injected, so this "
                "says nothing of the driver's version.",
                [*evidence, unreached[0].evidence],
                severity=Severity.INFO,
            )
        if no_driver_possible and _driver_fits(ctx):
            return self.finding(
                f"The process reported a driver too old for its CUDA ({said}), but the driver"
                f"{shown} runs every CUDA the text shows: the process most likely reached no "
                "driver at all (a `docker build` step, a container started without the NVIDIA "
                "runtime), or a CUDA the text does not show.",
                evidence,
                severity=Severity.INFO,
            )
        return self.finding(
            f"The driver{shown} is too old for the CUDA the process needs, as it reported: {said}.",
            evidence,
        )


# CUDA's error 35 as the runtime, the driver API and their wrappers print it.
_NO_DRIVER = re.compile(
    r"insufficient for CUDA runtime|cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER"
)


def _driver_fits(ctx: CheckContext) -> bool:
    """Whether a driver is shown, CUDA is shown (what runs on it, or an image's CUDA: a
    Dockerfile's base, an image the report names), and the driver runs every CUDA shown."""
    driver = ctx.driver
    images = [
        i.cuda
        for name in (ComponentName.CUDA_TOOLKIT, ComponentName.CUDA_RUNTIME)
        for i in ctx.installations(name)
        if i.cuda and (i.origin == "image-config" or "image" in i.properties)
    ]
    cudas = [c.cuda for c in ctx.cuda_consumers] + images
    if driver is None or driver.version is None or not cudas:
        return False
    for cuda in cudas:
        needs = driver_needs(ctx.matrix, cuda)
        if needs.floor is None or needs.unsure:
            return False
        if ctx.version_at_least(driver.version, needs.floor) is not True:
            return False
    return True


class MinorVersionCompatibility(Rule):
    id = "SC102"
    name = "minor-version-compatibility"
    family = "driver-cuda"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "CUDA runs through minor-version compatibility"
    doc = RuleDoc(
        what="Notes a CUDA runtime or toolkit newer than the driver's own CUDA but within the "
        "same major, which runs through CUDA minor-version compatibility (advice, `info`). A "
        "warning where the report shows that limit met: XLA's `The NVIDIA driver's CUDA "
        "version is 12.2 which is older than the ptxas CUDA version (12.3.107)` (or `... the "
        "PTX compiler version`), its serial-compilation flag "
        "`--xla_gpu_force_compilation_parallelism=1` said to work around a failure, or a "
        "sentence that says bringing nvcc to nvidia-smi's CUDA fixed it, or the runtime's "
        "error 36 (`API call is not supported in the installed CUDA driver`, "
        "`cudaErrorCallRequiresNewerDriver`: an API newer than the driver); where the text shows "
        "none of the versions, those alone are the warning, and a driver shown at or above the "
        "toolkit's release silences them.",
        why="It works, with limits: the driver cannot JIT-compile or link PTX built by the newer "
        "toolkit (XLA's parallel compilation links PTX through the driver: `no kernel image is "
        "available`, or serial compilation, slower), and features of the newer release that "
        "need driver support are missing. Wheels that carry SASS for the GPU are unaffected.",
        example="A PyTorch cu128 wheel on driver 535.161.07 (CUDA 12.2); as a warning, JAX's "
        "CUDA 11.7 ptxas on driver 470.82.01 (CUDA 11.4) failing with `no kernel image`.",
        fix="Nothing is required for the note. Where the limit is met, move to a driver at least "
        "the CUDA release's minimum (see `stackcheck matrix cuda <version>`), use the "
        "forward-compatibility package on a data-center GPU, or use a toolkit no newer than "
        "the driver's CUDA.",
        references=(
            "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html",
            "https://github.com/jax-ml/jax/issues/5723",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        met = ctx.snapshot.observations("ptx-jit-limit", "driver-call-too-new")
        found = False
        if ctx.driver is not None:
            for finding in self._within_compatibility(ctx, ctx.driver, met):
                found = True
                yield finding
        if met and not found and not self._fits(ctx):
            what = (
                "the driver cannot JIT or link that toolkit's PTX"
                if met[0].kind == "ptx-jit-limit"
                else "the runtime called an API the driver does not have"
            )
            yield self.finding(
                "The report shows a driver older than the CUDA it serves "
                f"({(met[0].value or '')[:120]}): {what} under minor-version compatibility.",
                [o.evidence for o in met[:2]],
                severity=Severity.WARNING,
            )

    def _within_compatibility(
        self, ctx: CheckContext, driver: Installation, met: list[Observation]
    ) -> Iterator[Finding]:
        """Each CUDA consumer the driver runs through minor-version compatibility only; a
        warning where the report shows the limit met (PTX the driver cannot JIT or link)."""
        for consumer in ctx.cuda_consumers:
            floor, full, _ = _needs(ctx, consumer)
            if floor is None or full is None:
                continue
            if ctx.version_at_least(driver.version, floor) and not ctx.version_at_least(
                driver.version, full
            ):
                said = (
                    f"; the report shows its limit met ({(met[0].value or '')[:100]})"
                    if met
                    else ""
                )
                yield self.finding(
                    f"{consumer.label} is built for CUDA {consumer.cuda} (full support from driver "
                    f"{full}); driver {driver.version} runs it through minor-version "
                    f"compatibility{said}.",
                    [*driver.evidence, *consumer.evidence, *(o.evidence for o in met[:1])],
                    severity=Severity.WARNING if met else Severity.INFO,
                )

    @staticmethod
    def _fits(ctx: CheckContext) -> bool:
        """Whether a driver shown with its version fully supports every CUDA the text shows (the
        limit then lies elsewhere). No CUDA shown is no toolkit the driver is known to reach:
        the limit the report shows stands (not a vacuous fit)."""
        driver = ctx.driver
        if driver is None or driver.version is None or not ctx.cuda_consumers:
            return False
        for consumer in ctx.cuda_consumers:
            _, full, _ = _needs(ctx, consumer)
            if full is None or not ctx.version_at_least(driver.version, full):
                return False
        return True


_PROC_VERSION = "/proc/driver/nvidia/version"


def _same_release(a: str, b: str) -> bool:
    """Whether two driver versions name one release: a package's "535.104" is 535.104.05."""
    x, y = a.split("."), b.split(".")
    return x[: len(y)] == y[: len(x)]


class DriverLibraryMismatch(Rule):
    id = "SC103"
    name = "driver-library-mismatch"
    family = "driver-cuda"
    severity = Severity.ERROR
    title = "Kernel module and user-space driver differ"
    doc = RuleDoc(
        what="Compares the loaded NVIDIA kernel module's version with the version of the "
        "user-space driver libraries (libcuda.so, libnvidia-ml.so) the loader would use, and "
        "reads the verdicts that say they differ (`Failed to initialize NVML: Driver/library "
        "version mismatch`, `NVRM: API mismatch`, said in Chinese: `驱动不一致`, and in "
        "English: `mismatched NVIDIA driver components`, `the kernel module does not match "
        "the userspace driver`), and the "
        "container toolkit's `mount error: file creation failed: …: file exists` (an image that "
        "ships driver files of its own, nvidia-smi or libnvidia-ml.so.1). In a pasted "
        "text, the kernel module is /proc/driver/nvidia/version and the user space a package "
        "listing's driver packages (`dpkg -l nvidia-smi`, `libnvidia-compute-550`, `libcuda1`, "
        "`xorg-x11-drv-nvidia-cuda-libs`).",
        why="They must be the same release. After a driver upgrade without a reboot, or a "
        "container carrying its own driver libraries, NVML fails with `Driver/library version "
        "mismatch` and CUDA cannot initialise.",
        example="/proc/driver/nvidia/version says 550.54.15 while libcuda.so.550.90.07 is on the "
        "loader path.",
        fix="Reboot after a driver upgrade (or reload the nvidia modules); in containers, do not "
        "ship driver libraries: the NVIDIA container toolkit mounts the host's.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("driver-library-mismatch")
        if said:
            # NVML's or the kernel module's own verdict, whether or not both versions were shown.
            yield self.finding(
                "The user-space driver and the loaded kernel module are different releases, as "
                f"reported: {(said[0].value or '')[:160]}.",
                [o.evidence for o in said[:2]],
            )
            return
        found = ctx.installations(ComponentName.DRIVER)
        # A probe knows each part's origin; a text shows the kernel module as
        # /proc/driver/nvidia/version and the user space as a package listing's driver packages.
        kernel = {
            i.version
            for i in found
            if i.version and (i.origin == "kernel" or i.path == _PROC_VERSION)
        }
        user = [
            i
            for i in found
            if i.version
            and (i.origin == "system" or (i.origin == "report" and "package" in i.properties))
            and not any(_same_release(i.version, k) for k in kernel)
        ]
        if kernel and user:
            yield self.finding(
                f"Kernel module {', '.join(sorted(kernel))} but user-space driver "
                f"{', '.join(sorted({u.version or '' for u in user}))}.",
                [e for i in found for e in i.evidence],
            )


class ForwardCompatUnsupportedGpu(Rule):
    id = "SC104"
    name = "forward-compat-unsupported-gpu"
    family = "driver-cuda"
    severity = Severity.ERROR
    title = "Forward compatibility on a GPU that does not allow it"
    doc = RuleDoc(
        what="Finds CUDA that only runs through the forward-compatibility libraries "
        "(cuda-compat) on a GPU that is not a data-center part, and reads CUDA's error 804 that "
        "says so; and a compat libcuda in use (nvidia-smi's `CUDA Version` above the driver's "
        "own release: 11.6 over R470) on a GPU whose last driver branch is older than the "
        "compat library's (a Kepler K80 is supported through R470 only; CUDA 11.6's compat "
        "libcuda is R510).",
        why="Forward compatibility is supported on NVIDIA data-center GPUs only, and only on "
        "GPUs the compat library's branch still supports; elsewhere CUDA "
        "initialisation fails with error 804 (`forward compatibility was attempted on non "
        "supported HW`).",
        example="An NGC image for CUDA 13 with /usr/local/cuda/compat first in LD_LIBRARY_PATH, on "
        "a GeForce RTX 4090 with driver 550.",
        fix="Upgrade the host driver to one that supports the image's CUDA natively, or use an "
        "image built for the driver's CUDA; remove the compat directory from LD_LIBRARY_PATH.",
        references=(
            "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        errors = [o for o in ctx.snapshot.observations("cuda-error") if o.value == "804"]
        if errors:
            yield self.finding(
                "CUDA failed with error 804 (forward compatibility was attempted on non supported "
                "HW): the driver is older than the CUDA the process needs, and this GPU cannot "
                "run newer CUDA through the compat libraries.",
                [o.evidence for o in errors[:2]]
                + [e for g in ctx.gpus[:1] for e in g.evidence[:1]],
            )
            return
        yield from self._compat_past_last_branch(ctx)
        consumer_gpus = [g for g in ctx.gpus if g.known is not None and not g.known.datacenter]
        if not consumer_gpus:
            return
        names = ", ".join(g.name for g in consumer_gpus)
        for short in _shortfalls(ctx):
            if short.compat is not None:
                yield self.finding(
                    f"{short.consumer.label} needs the forward-compat driver "
                    f"{short.compat.version} ({short.compat.path}), which {names} does not "
                    "support.",
                    [*short.compat.evidence, *(e for g in consumer_gpus for e in g.evidence)],
                )

    def _compat_past_last_branch(self, ctx: CheckContext) -> Iterable[Finding]:
        """A forward-compat libcuda comes from a newer branch (CUDA 11.6's from R510): a GPU whose
        last branch is older (a Kepler K80: R470) cannot run it, data-center part or not.
        nvidia-smi reports the CUDA of the libcuda it loaded, so a CUDA above the driver's own
        release says a compat libcuda is in use."""
        driver = ctx.driver
        if driver is None or not driver.cuda:
            return
        needed = driver_needs(ctx.matrix, driver.cuda).full
        if needed is None or ctx.version_at_least(driver.version, needed) is not False:
            return
        branch = versions.major(needed)
        for gpu in ctx.gpus:
            last = gpu.known.last_driver_branch if gpu.known is not None else None
            if gpu.known is None or last is None or branch is None or branch <= last:
                continue
            yield self.finding(
                f"The driver {driver.version} reports CUDA {driver.cuda}, which needs driver "
                f"{needed}: a forward-compatibility libcuda (R{branch}) is in use, and "
                f"{gpu.name} ({gpu.known.architecture}) is supported only through R{last}, so "
                "CUDA cannot initialise it through the compat libraries.",
                [*driver.evidence[:1], *gpu.evidence[:1]],
            )
            return


class ForwardCompatInUse(Rule):
    id = "SC105"
    name = "forward-compat-in-use"
    family = "driver-cuda"
    severity = Severity.INFO
    title = "CUDA runs through forward compatibility"
    doc = RuleDoc(
        what="Notes CUDA that is newer than the driver's branch supports but is covered by a "
        "cuda-compat library on a data-center GPU.",
        why="This works on data-center GPUs, but the compat library must stay on the loader "
        "path for every process (entrypoints that set LD_LIBRARY_PATH are often bypassed by "
        "`mpirun` or a Kubernetes `command:`), and it ties the image to specific driver branches.",
        example="NGC 25.10 (CUDA 13.0) on an H100 host with driver 535.",
        fix="Prefer a host driver that supports the CUDA major natively (R580+ for CUDA 13); "
        "otherwise make sure every rank gets the compat directory first in LD_LIBRARY_PATH.",
        references=(
            "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if any(g.known is not None and not g.known.datacenter for g in ctx.gpus):
            return  # SC104's case
        for short in _shortfalls(ctx):
            if short.compat is not None:
                yield self.finding(
                    f"{short.consumer.label} needs driver >= {short.floor}; driver "
                    f"{short.driver.version} runs it through the forward-compat libcuda "
                    f"{short.compat.version} in {short.compat.path}.",
                    [*short.driver.evidence, *short.compat.evidence],
                )


# NVIDIA's table of which driver branch supports which GPU architecture.
_ARCH_MATRIX = "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"


class DriverDropsGpu(Rule):
    id = "SC1406"
    name = "driver-drops-gpu"
    family = "driver-cuda"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "Driver branch newer than the GPU's last"
    doc = RuleDoc(
        what="Compares the driver's branch with the last branch that supports each GPU (the "
        "matrix's `last_driver_branch`: R470 for Kepler, R580 for Maxwell, Pascal and Volta), "
        "and reads the kernel module's `supported through the NVIDIA 470.xx Legacy drivers` "
        "(the driver ignores that GPU), and the driver notes reports quote (`The latest NVIDIA "
        "driver version does not support K80 GPUs`, `K80 requires nvidia-driver version to be "
        "<=470`).",
        why="A later branch does not take the GPU at all: NVRM names the legacy branch to use, "
        "nvidia-smi finds no devices, and CUDA sees none.",
        example="Driver 590.44.01 on a Tesla V100, or 535.129.03 on a Tesla K80.",
        fix="Install the GPU's last branch (R580 for a V100 or a Pascal card, R470 for a K80) "
        "with a CUDA it supports, or move the job to a newer GPU.",
        references=(_ARCH_MATRIX,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        legacy, driver = ctx.snapshot.observations("gpu-legacy-driver"), ctx.driver
        if legacy:
            # The kernel module's own verdict: it ignores a GPU its branch no longer supports.
            # The branch (the notice's second line) says more than the GPU's name (its first).
            first = next((o for o in legacy if (o.value or "").isdigit()), legacy[0])
            said = first.value or ""
            yield self.finding(
                "The driver ignores a GPU here: the text (the kernel module, or a driver note "
                f"it quotes) says it is supported only through the R{said} legacy branch."
                if said.isdigit()
                else f"The driver's branch no longer supports the {said} GPUs here, as the "
                "report says: the driver ignores them.",
                [first.evidence] + (driver.evidence[:1] if driver else []),
            )
            return
        branch = versions.major(driver.version) if driver is not None else None
        if driver is None or branch is None:
            return
        for gpu in ctx.gpus:
            last = gpu.known.last_driver_branch if gpu.known is not None else None
            if gpu.known is None or last is None or branch <= last:
                continue
            matrix = Evidence(
                kind="matrix", source=gpu.known.source, detail=f"gpu {gpu.known.name}"
            )
            yield self.finding(
                f"Driver {driver.version} (R{branch}) does not support {gpu.name}: R{last} is the "
                f"last branch for {gpu.known.architecture} GPUs.",
                [*driver.evidence[:1], *gpu.evidence[:1], matrix],
                severity=self.capped(gpu.known.unsure),
            )


class DriverModuleUnusable(Rule):
    id = "SC1327"
    name = "driver-module-unusable"
    family = "driver-cuda"
    severity = Severity.ERROR
    title = "No NVIDIA kernel module can run the GPU"
    doc = RuleDoc(
        what="Reads what the kernel, modprobe, the driver installer and nvidia-docker say when no "
        "NVIDIA kernel module runs: the module not installed for the running kernel (`modprobe: "
        "FATAL: Module nvidia not found in directory /lib/modules/...`, `Module nvidia_uvm not "
        "found`, nvidia-docker's `Could not load UVM kernel module`), DKMS failing to build it "
        "(`Consult /var/lib/dkms/nvidia/390.157/build/make.log`, `failed for nvidia(10)`, the "
        "installer's `Failed to install the kernel module through DKMS`), the installer's "
        "`Unable to load the kernel module 'nvidia.ko'`, and the open kernel module refusing "
        "the GPU: R515-R525's `Open nvidia.ko is only ready for use on Data Center GPUs` "
        "(GeForce and workstation GPUs need `NVreg_OpenRmEnableUnsupportedGpus=1`), "
        "and any release's `not supported by open nvidia.ko because it does not include the "
        "required GPU System Processor (GSP)` (the open modules run Turing and later GPUs "
        "only); and the other way round, the proprietary module on a GPU only the open one "
        "drives (R560+'s `installed in this system requires use of the NVIDIA open kernel "
        "modules`: Blackwell, Grace Hopper), also retold beside the proprietary module loaded "
        "or the driver failing (`is only supported by the open kernel modules, so the driver "
        "fails to initialize`); AWS ParallelCluster's validator refusing a GPU before Turing "
        "under its OpenRM AMIs (`is not supported by NVIDIA OpenRM drivers`), and nvidia-smi's "
        "`couldn't communicate with the NVIDIA driver` in a sentence that says it began after "
        "a reboot (the module is not loaded at boot).",
        why="Without a loaded kernel module nvidia-smi cannot reach the driver, no container "
        "gets a GPU and CUDA finds no device; it is the driver installation, not the program "
        "or the container toolkit, that needs fixing. The usual cause is a kernel update that "
        "DKMS did not rebuild the module for.",
        example="`modprobe: FATAL: Module nvidia_uvm not found in directory "
        "/lib/modules/4.4.0-83-generic` after a reboot into a new kernel.",
        fix="Reinstall the driver for the running kernel (its DKMS package with the kernel "
        "headers installed); on a GPU before Turing use the "
        "proprietary kernel module, not the open one.",
        references=("https://github.com/NVIDIA/open-gpu-kernel-modules#compatible-gpus",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("driver-module-unusable")
        if said:
            # The catalogue's value says which refusal it was and what to do about it.
            why = "; ".join(dict.fromkeys((o.value or "")[:300] for o in said[:2]))
            yield self.finding(
                f"No NVIDIA kernel module runs the GPU here: {why}.",
                [o.evidence for o in said[:3]],
            )


class StubDriverLibrary(Rule):
    id = "SC1416"
    name = "stub-driver-library"
    family = "driver-cuda"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "The CUDA toolkit's stub libcuda.so is used at run time"
    doc = RuleDoc(
        what="Reads a process that loaded the CUDA toolkit's stub driver library (CUDA error 34, "
        "`CUDA driver is a stub library`, `CUDA_ERROR_STUB_LIBRARY`, Warp's `Failed to get "
        "driver entry point 'cuInit' (CUDA error 34)`) and a run-time search path that holds "
        "the toolkit's `stubs` directory (readelf's `Library rpath: [...]`, Spack's "
        "`SPACK_RPATH_DIRS`, `-Wl,-rpath`, `LD_LIBRARY_PATH=`, an ldconfig row of libcuda from "
        "it). An error where the stub was loaded and the text shows a driver or the stubs "
        "directory on such a path; a warning for either alone (a loaded stub may also mean no "
        "driver is visible at all); advice where the report says the program should run on "
        "the CPU.",
        why="The stub exists to link against: every call into it fails with error 34, and "
        "programs that load `libcuda.so` by that name (NVIDIA's profilers, Warp, Triton) pick "
        "it up before the driver's library when its directory comes first, and fail or crash "
        "although the driver works.",
        example="`Library rpath: [...:/spack/opt/spack/.../cuda-10.2.89-.../targets/x86_64-"
        "linux/lib/stubs:...]` and `nsys` crashing (spack/spack#17607).",
        fix="Keep the stubs directory for linking only (`-L`, not `-rpath` or "
        "LD_LIBRARY_PATH); remove it from LD_LIBRARY_PATH and ld.so.conf, relink with runpath "
        "or without it, so that the driver's libcuda.so.1 is found.",
        references=("https://github.com/spack/spack/issues/17607",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        loaded = ctx.snapshot.observations("stub-libcuda-loaded")
        on_path = ctx.snapshot.observations("stub-dir-on-path")
        if not (loaded or on_path):
            return
        evidence = [o.evidence for o in [*loaded[:1], *on_path[:1]]]
        if loaded and (on_path or ctx.has_nvidia_gpu or ctx.driver_shown is not None):
            yield self.finding(
                f"A process loaded the CUDA toolkit's stub libcuda.so "
                f"({(loaded[0].value or '')[:80]}) where "
                + (
                    f"the stubs directory is on a run-time search path "
                    f"({(on_path[0].value or '')[:100]})"
                    if on_path
                    else "the text shows the driver"
                )
                + ": the stub is found before the driver's library.",
                evidence,
            )
            return
        if loaded:
            cpu = ctx.snapshot.observations("cpu-intended")
            yield self.finding(
                f"A process loaded the CUDA toolkit's stub libcuda.so "
                f"({(loaded[0].value or '')[:80]}): its stubs directory comes before the "
                "driver's library on the loader path, or no driver library is visible.",
                evidence,
                severity=Severity.INFO if cpu else Severity.WARNING,
            )
            return
        yield self.finding(
            "The CUDA toolkit's stubs directory is on a run-time search path "
            f"({(on_path[0].value or '')[:120]}): programs that load libcuda.so by that name "
            "get the stub, which fails every call, instead of the driver's library.",
            evidence,
            severity=Severity.WARNING,
        )


# NVIDIA's CUDA on WSL user guide, "Getting Started with CUDA on WSL 2".
_WSL_GUIDE = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"


class LinuxDriverInWsl(Rule):
    id = "SC1417"
    name = "linux-driver-in-wsl"
    family = "driver-cuda"
    severity = Severity.WARNING
    title = "A Linux NVIDIA driver package installed inside WSL 2"
    doc = RuleDoc(
        what="Reads a Linux NVIDIA user-space driver package (`libnvidia-compute-510`, "
        "`nvidia-driver-535`, `libcuda1`, `cuda-drivers`) that a package listing shows installed "
        "(`dpkg -l`, `apt list --installed`, `rpm -qa`, or `dpkg --get-selections`' `install` "
        "rows, which name no version) in a text that shows the distribution runs under WSL 2 "
        "(its `-microsoft-standard-WSL2` kernel release, or the report saying so). A warning: "
        "the listing and the WSL 2 statement may come from two machines.",
        why="Under WSL 2 the GPU driver is the Windows one: its libcuda is mapped into the "
        "distribution at /usr/lib/wsl/lib. A Linux driver package puts its own libcuda.so in "
        "the system library directory, found first by programs that load it by name, and that "
        "library cannot reach the GPU (there is no Linux kernel module): CUDA fails in some "
        "programs while others (PyTorch, which finds WSL's) work. NVIDIA's guide says no "
        "Linux NVIDIA driver may be installed inside WSL 2.",
        example="`dpkg --get-selections | grep nvidia` printing `libnvidia-compute-510:amd64 "
        "install` inside a WSL2 distribution, where Numba's CUDA failed (numba/numba#9032).",
        fix="Remove the Linux driver packages inside WSL (`sudo apt purge 'libnvidia-*' "
        "'nvidia-driver-*' cuda-drivers`), install only the toolkit (`cuda-toolkit-12-x` from "
        "NVIDIA's WSL-Ubuntu repository, not the `cuda` meta-package, which pulls the driver), "
        "and update the driver on Windows.",
        references=(_WSL_GUIDE,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        wsl = ctx.snapshot.observations("wsl-version-2")
        if not wsl:
            return
        listed = [
            (str(i.properties["package"]).split()[0], i.evidence[:1])
            for i in ctx.installations(ComponentName.DRIVER)
            if i.origin == "report" and "package" in i.properties
        ] + [
            (o.value or "", [o.evidence]) for o in ctx.snapshot.observations("linux-driver-package")
        ]
        if not listed:
            return
        names = ", ".join(dict.fromkeys(name for name, _ in listed[:3]))
        yield self.finding(
            f"A Linux NVIDIA driver package is installed ({names}) where the text shows WSL 2 "
            f"({(wsl[0].value or '')[:60]}): its libcuda.so comes before WSL's own "
            "(/usr/lib/wsl/lib) and cannot reach the GPU.",
            [e for _, evidence in listed[:2] for e in evidence] + [wsl[0].evidence],
        )
