"""Families ``cpu-only-build`` and ``gpu-arch``: is the PyTorch build able to use these GPUs?"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck import versions
from stackcheck.archs import arch_list_archs, flag_archs, runs_on
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import Gpu
from stackcheck.matrix.requirements import cuda_runs_on
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName, Evidence, Installation


class CpuOnlyTorch(Rule):
    id = "SC201"
    name = "cpu-only-torch"
    family = "cpu-only-build"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "CPU-only PyTorch on a GPU host"
    doc = RuleDoc(
        what="Finds PyTorch builds without CUDA (`+cpu`, `torch.version.cuda` None, no "
        "libtorch_cuda.so) on a machine that has NVIDIA GPUs or an NVIDIA driver, or in an image "
        "built for GPUs (a CUDA base image, NVIDIA_REQUIRE_CUDA or CUDA_VERSION in its config); "
        "and reads PyTorch's `Torch not compiled with CUDA enabled` (not where Inductor's "
        "`Error getting cuda arch` caught it: a compile's probe on a CPU machine). Where the "
        "report says the machine has no NVIDIA GPU (an Apple-silicon Mac, a CPU-only box) and "
        "nothing shows one, that message is advice (`info`): no build gives CUDA there. Where no "
        "GPU is shown, a CPU build (`+cpu`, pip's plain Windows wheel, conda's `_pytorch_select` "
        "or `pytorch-mutex` of build `cpu`) beside a program that found CUDA unavailable or no "
        "GPU is a warning: the build is why; so is a CPU build beside a CUDA "
        "toolkit (nvcc, an installer that detected CUDA and fetched the CPU build), beside a "
        "report that the program ran on the CPU instead of the GPU (`yolo is using only Cpu "
        "for traning instead of my gpu`), or beside "
        "the CUDA packages only a CUDA PyTorch brings (conda's `cudatoolkit`, pip's "
        "`nvidia-cuda-runtime-cu12`). A sentence that says an install put the CPU build in "
        "place (`it installs the cpu only version`), or that the torch there is the CPU build "
        "(`torch都是普通的cpu版本`), is read as PyTorch's own message. On a GPU host a CPU "
        "build beside a CUDA build elsewhere is advice, a warning where a program's banner "
        "(Ultralytics' `torch-2.0.0+cpu CPU`) shows it ran on the CPU with it; a driver "
        "shown by its CUDA alone (conda info's `__cuda=10.2`) marks an NVIDIA host too.",
        why="`torch.cuda.is_available()` is False: training silently runs on the CPU or fails "
        "at `.cuda()`. A dependency resolver installing the CPU wheel over the CUDA one is a "
        "common cause (pytorch/pytorch#43493).",
        example="torch 2.13.0+cpu in /opt/pytorch on a p5.48xlarge.",
        fix="Reinstall PyTorch from the CUDA index that matches the driver, e.g. `pip install "
        "torch --index-url https://download.pytorch.org/whl/cu126`, and pin it so other "
        "packages cannot replace it.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("torch-cpu-only")
        cpu = ctx.snapshot.observations("cpu-intended")
        if said and cpu and not (ctx.has_nvidia_gpu or ctx.driver_shown or ctx.built_for_gpus):
            # A machine without an NVIDIA GPU (a Mac, a CPU box): no build gives it CUDA, so
            # the stack is not at fault; the program needs a CPU or MPS path.
            yield self.finding(
                "PyTorch has no CUDA support and the program asked it for a GPU, on a machine "
                f"the report says has no NVIDIA GPU ({(cpu[0].value or '')[:60]}): no PyTorch "
                "build can use CUDA there; the program needs a CPU path (or `mps` on a Mac).",
                [*(o.evidence for o in said[:1]), cpu[0].evidence],
                severity=Severity.INFO,
            )
            return
        if said:
            # PyTorch's own verdict: the program asked a CPU-only build for a GPU.
            yield self.finding(
                "PyTorch has no CUDA support, and the program asked it for a GPU: "
                f"{(said[0].value or '')[:120]}.",
                [o.evidence for o in said[:2]],
            )
            return
        builds = ctx.installations(ComponentName.TORCH)
        cpu_only = [t for t in builds if t.properties.get("cpu_only") == "yes"]
        # A driver shown by its CUDA alone (conda's `__cuda=10.2`, nvidia-smi's `CUDA Version`
        # in a sentence) is installed all the same: an NVIDIA GPU host.
        if not (ctx.has_nvidia_gpu or ctx.driver_shown):
            if ctx.built_for_gpus and len(cpu_only) == len(builds):
                for torch in cpu_only:
                    yield self.finding(
                        f"{_named(torch)} has no CUDA support, but this image is "
                        "built for NVIDIA GPUs.",
                        [*torch.evidence[:2], *ctx.built_for_gpus[:2]],
                    )
                return
            # A process that found no GPU at all (Lightning's `But your machine only has: []`)
            # is what a CPU build sees on any machine, as much as CUDA found unavailable.
            # So is a report that the program ran on the CPU instead of the reporter's GPU.
            unavailable = ctx.snapshot.observations(
                "cuda-unavailable", "no-gpu", "cpu-instead-of-gpu"
            )
            if cpu_only and len(cpu_only) == len(builds) and unavailable and not cpu:
                # The process looked for CUDA and the only PyTorch shown is a CPU build: that
                # build is why (a pip that fetched the plain Windows wheel, pytorch/pytorch#52662).
                torch = cpu_only[0]
                yield self.finding(
                    f"{_named(torch)} has no CUDA support, and the report shows the "
                    f"program found CUDA unavailable ({(unavailable[0].value or '')[:60]}).",
                    [*torch.evidence[:1], unavailable[0].evidence],
                    severity=Severity.WARNING,
                )
                return
            toolkits = ctx.installations(ComponentName.CUDA_TOOLKIT)
            if cpu_only and len(cpu_only) == len(builds) and toolkits and not cpu:
                # A CUDA toolkit is installed for a GPU: the CPU build is what an installer fell
                # back to (R torch on a CUDA it had no LibTorch for, mlverse/torch#285).
                torch, toolkit = cpu_only[0], toolkits[0]
                yield self.finding(
                    f"{_named(torch)} has no CUDA support, on a machine with the "
                    f"CUDA {toolkit.version or ''} toolkit installed.",
                    [*torch.evidence[:1], *toolkit.evidence[:1]],
                    severity=Severity.WARNING,
                )
                return
            yield from self._next_to_cuda_packages(ctx, cpu_only)
            return
        others = len(builds) - len(cpu_only)
        gpu_evidence = ctx.nvidia_host_evidence  # GPUs and the driver: what makes it a GPU host
        for torch in cpu_only:
            message = f"PyTorch {torch.version} in {torch.python_env} has no CUDA support"
            if others and torch.properties.get("ran_on") == "CPU":
                # A program's banner shows this build running it on the CPU: the job's own,
                # whatever other environments (or earlier runs) had.
                yield self.finding(
                    message + f": a program ran on the CPU with it, though {others} other "
                    "environment(s) or run(s) here have a CUDA build.",
                    [*torch.evidence, *gpu_evidence],
                    severity=Severity.WARNING,
                )
            elif others:
                # Another environment has a CUDA build: this one is likely not the job's.
                yield self.finding(
                    message + f"; {others} other environment(s) have a CUDA build.",
                    [*torch.evidence, *gpu_evidence],
                    severity=Severity.INFO,
                )
            else:
                yield self.finding(
                    message + ", but this host has NVIDIA GPUs.", [*torch.evidence, *gpu_evidence]
                )

    def _next_to_cuda_packages(
        self, ctx: CheckContext, cpu_only: list[Installation]
    ) -> Iterable[Finding]:
        """A CPU build next to conda's cudatoolkit, which is installed only for a CUDA PyTorch,
        or next to the CUDA runtime wheel a CUDA PyTorch wheel pulls in
        (nvidia-cuda-runtime-cu12): the environment was set up for CUDA and the resolver picked
        (or later put back) the CPU build."""
        for torch in cpu_only:
            cuda = [
                r
                for r in ctx.installations(ComponentName.CUDA_RUNTIME)
                if r.python_env == torch.python_env
                and r.properties.get("package", "").startswith(_CUDA_FOR_TORCH)
            ]
            if cuda:
                yield self.finding(
                    f"{_named(torch)} has no CUDA support, although CUDA "
                    f"{cuda[0].version} was installed with it: the resolver picked the CPU build.",
                    [*torch.evidence[:2], *cuda[0].evidence[:1]],
                    severity=Severity.WARNING,
                )


# Packages installed only to give PyTorch CUDA: conda's cudatoolkit, and the runtime wheel pip
# installs with a CUDA PyTorch wheel (its requirement since 1.13).
_CUDA_FOR_TORCH = ("cudatoolkit ", "nvidia-cuda-runtime-cu")

_NVCC_RELEASE = re.compile(r"Cuda compilation tools, release (\d{1,2}\.\d{1,2})")

# CUDA libraries whose soname carries the CUDA release they belong to (cuFFT, cuRAND, cuSOLVER,
# cuSPARSE and NVTX number their own versions).
_CUDA_RUNTIME = re.compile(
    r"^lib(cudart|cublas|cublasLt|nvrtc|nvJitLink|cupti)\.so\.(\d{1,2}(?:\.\d{1,2})?)$"
)


class TorchCudaBaseMismatch(Rule):
    id = "SC203"
    name = "torch-cuda-base-mismatch"
    family = "driver-cuda"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "Built for another CUDA than the one provided"
    doc = RuleDoc(
        what="Compares the CUDA a PyTorch build targets (the `cuXXX` wheel index or local "
        "version a Dockerfile installs) with the CUDA of the image's base (nvidia/cuda, a DLC "
        "or an NGC tag) (a warning). Reads the messages of an extension build that found "
        "another CUDA toolkit than PyTorch's (PyTorch's `The detected CUDA version (11.8) "
        "mismatches the version that was used to compile PyTorch (12.1)`, DeepSpeed's "
        "`Installed CUDA version 12.0 does not match the version torch was compiled with "
        "11.8`), and a CUDA runtime library of one release that the loader does not find "
        "(`libcudart.so.9.0: cannot open shared object file`, `version 'libcudart.so.9.0' not "
        "found`) (errors; info where the report says the machine has no GPU); also apex's "
        "`Cuda extensions are being compiled with a version of Cuda that does not match`; a "
        "report's words that contrast the two (`torch.version.cuda is 9.0.176, but my nvcc "
        "--version is 10.0`) are a warning, and so are a report's words that a library is built "
        "for a newer CUDA than the system has, across a major or before CUDA 11 (`my nccl "
        "depends on a different CUDA version (11.0) than I have on my system(10.2)`). An "
        "assembler's refusal of PTX of a newer ISA (ptxas' `Unsupported .version 7.3; current "
        "version is '7.2'`: a ptxas of an older toolkit than the compiler that wrote the PTX, "
        "Triton 1.x's included) is an error; under Triton 2.0+'s `Internal Triton PTX codegen "
        "error` it is advice (those releases derive the ISA from the ptxas they run, so "
        "Triton's table misjudged it).",
        why="The image then carries two CUDA majors: the driver must serve the one PyTorch "
        "loads, the base image's toolkit goes unused, and building CUDA extensions fails with "
        "`The detected CUDA version mismatches the version that was used to compile PyTorch`. "
        "A program built for CUDA 9.0 needs libcudart.so.9.0 itself: a 9.2 runtime beside it "
        "(or a symlink to it) does not serve it.",
        example="FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 with `pip install torch --index-url "
        "https://download.pytorch.org/whl/cu118`; `nvcc` 11.8 building vLLM against torch "
        "2.1.2+cu121 (OpenBMB/MiniCPM#44).",
        fix="Install the PyTorch wheel for the base image's CUDA (e.g. the cu124 index on a "
        "CUDA 12.4 base), or start from a base image of the wheel's CUDA; to build extensions, "
        "put a toolkit of PyTorch's CUDA first (`CUDA_HOME`, `PATH`), or install the PyTorch "
        "build of the toolkit's CUDA; for a missing runtime, install the CUDA runtime the "
        "program was built for (conda `cudatoolkit=9.0`, the `nvidia-cuda-runtime-cu12` "
        "wheel) or the program's build for the CUDA that is installed; for a library built "
        "for a newer CUDA, its build for the system's CUDA (`libnccl2=2.9.8-1+cuda10.2`) or a "
        "newer driver; for PTX newer than its ptxas, the ptxas of a toolkit at least as new "
        "(`TRITON_PTXAS_PATH`, `PATH`).",
        references=("https://github.com/OpenBMB/MiniCPM/issues/44",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for base in ctx.cuda_base:
            want = versions.major(base.cuda)
            for torch in ctx.torch_cuda_builds:
                have = versions.major(torch.cuda)
                if want is not None and have is not None and have != want:
                    yield self.finding(
                        f"PyTorch {torch.version or ''} is built for CUDA {torch.cuda}, the base "
                        f"image for CUDA {base.cuda}.",
                        [*torch.evidence[:1], *base.evidence[:1]],
                        severity=Severity.WARNING,
                    )
        mismatches = ctx.snapshot.observations("cuda-build-mismatch")
        for seen in mismatches:
            toolkit, torch_cuda = (seen.value or " ").split(" ", 1)
            if torch_cuda == "?":
                # apex's link alone (a traceback cut before its message): PyTorch's CUDA is the
                # build's, where the text shows one; once only, beside the message itself.
                if any(o.value != seen.value for o in mismatches) or seen is not mismatches[0]:
                    continue
                builds = [t.cuda for t in ctx.torch_cuda_builds if t.cuda]
                torch_cuda = str(builds[0]) if builds else "another CUDA"
            if toolkit == "?":
                # apex names only PyTorch's CUDA; the toolkit is the nvcc it printed before.
                nvcc = _NVCC_RELEASE.search(seen.evidence.detail or "")
                toolkit = nvcc.group(1) if nvcc else self._other_toolkit(ctx, torch_cuda) or ""
            built = f"the CUDA {toolkit} toolkit" if toolkit else "a toolkit of another CUDA"
            torch_cuda = torch_cuda if torch_cuda == "another CUDA" else f"CUDA {torch_cuda}"
            # DeepSpeed with DS_SKIP_CUDA_CHECK=1 prints it as a [WARNING] and goes on.
            allowed = "WARNING" in (seen.evidence.detail or "")
            yield self.finding(
                f"A CUDA extension was built with {built} against a PyTorch "
                f"built for {torch_cuda}"
                + (": allowed, but the build may fail." if allowed else ": the build stopped."),
                [seen.evidence],
                severity=Severity.WARNING if allowed else Severity.ERROR,
            )
        for seen in ctx.snapshot.observations("cuda-build-mismatch-stated"):
            toolkit, torch_cuda = (seen.value or " ").split(" ", 1)
            if versions.same_release(toolkit, torch_cuda, 2):
                continue
            # Said by the reporter, not by a build: it matters to a CUDA extension built here.
            yield self.finding(
                f"The CUDA toolkit (nvcc) is {toolkit} and PyTorch is built for CUDA "
                f"{torch_cuda}: a CUDA extension built here fails or mismatches PyTorch.",
                [seen.evidence],
                severity=Severity.WARNING,
            )
        yield from self._library_stated(ctx)
        yield from self._runtime_missing(ctx)
        yield from self._ptx_newer_than_ptxas(ctx)

    def _ptx_newer_than_ptxas(self, ctx: CheckContext) -> Iterable[Finding]:
        """PTX of a newer ISA than the ptxas that assembles it knows: built for a newer CUDA
        than that ptxas' toolkit. Triton 2.0+ derives the ISA it writes from the ptxas it runs,
        so there the refusal is Triton's table misjudging that release: advice."""
        wrapped = ctx.snapshot.observations("triton-ptx-codegen")
        for seen in ctx.snapshot.observations("ptx-newer-than-ptxas")[:1]:
            wrote, knows = (seen.value or " ").split(" ")[:2]
            if versions.key(knows) >= versions.key(wrote):
                continue
            if wrapped:
                yield self.finding(
                    f"ptxas refused Triton's PTX of ISA {wrote} (it knows {knows}), but Triton "
                    "2.0 and later derive the ISA from the ptxas they run: Triton's table "
                    "misjudged this ptxas' release (a CUDA release the Triton release does not "
                    "know). Upgrade Triton, or point TRITON_PTXAS_PATH at a ptxas it knows.",
                    [seen.evidence, wrapped[0].evidence],
                    severity=Severity.INFO,
                )
                continue
            yield self.finding(
                f"The PTX is of ISA {wrote}, newer than the {knows} the ptxas that assembles it "
                "knows: that ptxas comes from an older CUDA toolkit than the compiler that wrote "
                "the PTX (a local toolkit found first on PATH, TRITON_PTXAS_PATH or CUDA_HOME); "
                "use the ptxas of a toolkit at least as new.",
                [seen.evidence],
            )

    def _library_stated(self, ctx: CheckContext) -> Iterable[Finding]:
        """A library the report says is built for a newer CUDA than the system has. Only a
        newer one that no compatibility covers: another major, or a release before CUDA 11
        (minor-version compatibility within a major starts with 11)."""
        for seen in ctx.snapshot.observations("library-cuda-stated"):
            library, built, system = ((seen.value or "") + "  ").split(" ", 2)
            system = system.strip()
            fit = cuda_runs_on(ctx.matrix, system, built)
            if fit is None or fit.runs:
                continue
            yield self.finding(
                f"The report says {library} is built for CUDA {built} and the system has CUDA "
                f"{system}: a driver of CUDA {system} cannot run code built for {built}, so its "
                "first CUDA call fails (NCCL's 'unhandled cuda error').",
                [seen.evidence],
                severity=Severity.WARNING,
            )

    @staticmethod
    def _other_toolkit(ctx: CheckContext, torch_cuda: str) -> str | None:
        """The release of a CUDA toolkit the text shows (nvcc -V) that is not PyTorch's."""
        for toolkit in ctx.installations(ComponentName.CUDA_TOOLKIT):
            release = str(toolkit.version or toolkit.cuda or "")
            if release and not versions.same_release(release, torch_cuda, 2):
                return release
        return None

    def _runtime_missing(self, ctx: CheckContext) -> Iterable[Finding]:
        """A CUDA runtime library of one release that the loader does not find: the program was
        built for that CUDA, and its runtime is not installed (another CUDA may be)."""
        hint = ctx.snapshot.observations("cpu-intended")
        for missing in ctx.snapshot.observations("library-missing"):
            found = _CUDA_RUNTIME.match(missing.value or "")
            if found is None:
                continue
            cuda = found.group(2)
            others = sorted(
                {
                    str(i.version or i.cuda)
                    for name in (ComponentName.CUDA_TOOLKIT, ComponentName.CUDA_RUNTIME)
                    for i in ctx.installations(name)
                    if (i.version or i.cuda) and not str(i.version or i.cuda).startswith(cuda)
                }
            )
            # A GPU library's dlerror on a machine meant to run on the CPU is expected there;
            # so is TensorFlow's dso_loader warning, which it prints on every machine without
            # the runtime ("Ignore above cudart dlerror if you do not have a GPU"), unless the
            # text shows a GPU.
            detail = missing.evidence.detail or ""
            optional = "Could not load dynamic library" in detail
            quiet = (bool(hint) or optional) and not ctx.has_nvidia_gpu
            yield self.finding(
                f"A program built for CUDA {cuda} cannot find its runtime ({found.group(0)})"
                + (f"; CUDA {', '.join(others)} is installed instead." if others else ".")
                + (" Expected on a machine without a GPU." if quiet else ""),
                [missing.evidence],
                severity=Severity.INFO
                if quiet
                else Severity.ERROR
                if "Error" in detail
                else Severity.WARNING,
            )


_ARCH_ASKED = re.compile(r"(?:compute|sm)_(\d{2,3})")


def _first_cuda_of(ctx: CheckContext, known: Gpu | None, capability: str | None) -> Gpu | None:
    """The matrix's GPU, else a listed GPU of the same compute capability that names its first
    CUDA (CUDA adds an architecture, not a model)."""
    return known or next(
        (g for g in ctx.matrix.matrix.gpu if g.compute_capability == capability and g.first_cuda),
        None,
    )


def _held_archs(ctx: CheckContext) -> set[int]:
    """The architectures (80 for sm_80) of the GPUs the text shows, else of the instance type's
    GPU; empty when neither is known."""
    held = {
        int(gpu.compute_capability.replace(".", ""))
        for gpu in ctx.gpus
        if gpu.compute_capability and gpu.compute_capability.replace(".", "").isdigit()
    }
    if held:
        return held
    instance = ctx.matrix.instance(ctx.snapshot.instance.type)
    known = ctx.matrix.gpu(instance.gpu) if instance is not None else None
    if known is None or not known.compute_capability:
        return set()
    return {int(known.compute_capability.replace(".", ""))}


class TorchMissingArch(Rule):
    id = "SC202"
    name = "torch-missing-arch"
    family = "gpu-arch"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "PyTorch build lacks the GPU's architecture (or the GPU a feature a program needs)"
    doc = RuleDoc(
        what="Compares each GPU's compute capability with the architectures the PyTorch build "
        "carries (read from libtorch_python.so, else from the matrix for that wheel variant; "
        "a PyTorch named without its build, `torch==2.1.2`, where no variant of that release "
        "carries the GPU's architecture: a warning; TensorFlow's `not built with CUDA kernel "
        "binaries compatible with compute capability X`, PTX only: a warning); "
        "reads `no kernel image is available` (and NCCL's `Cuda failure 'named symbol not "
        "found'`, what a library without the GPU's kernels gives under lazy loading; advice, "
        "`info`, where the report shows a driver older than the toolkit's PTX, XLA's own "
        "warning or its serial-compilation workaround: SC102's case, not a missing "
        "architecture), and "
        "nvcc's `Unsupported gpu architecture "
        "'compute_86'`, ptxas' `Value 'sm_120' is not defined for option 'gpu-name'` and "
        "PyTorch's extension builder's `Unknown CUDA arch (9.0) or GPU not supported` (a "
        "compiler or a PyTorch older than the GPU; advice, `info`, where the GPUs the text "
        "shows or the instance type's are all of other architectures: the build asks for a "
        "GPU the machine does not hold; so where no GPU is shown and the report says undoing a "
        "change of the program, a pull request or a commit, resolved it: the change put the "
        "architecture in the build's list); where no PyTorch is shown, the only CUDA a report "
        "shows (a toolkit, or a template's `CUDA Version: 11.7`) older than a GPU's first CUDA "
        "(an RTX 4080's 11.8): a warning, what is built with it (the cuDNN or TensorRT built for "
        "that CUDA) having no cubin for the GPU; a program whose builds start at a compute "
        "capability (Ollama's runner offloading layers: 5.0+) shown on an older GPU: a "
        "warning; a TensorRT release a report names (`TensorRT Version: 8.6.1.6`) on a GPU "
        "below that release's oldest supported architecture (8.6 dropped Kepler; the "
        "`tensorrt` table): a warning; a program that refuses a feature the GPU lacks by design "
        "(FP8 before compute capability 8.9, bfloat16 or FlashAttention 2 before 8.0): advice, "
        "`info`, where nothing else is found. A build's explicit nvcc arch flags set in a "
        "variable (mmcv's MMCV_CUDA_ARGS, NCCL's NVCC_GENCODE, CUDA_NVCC_FLAGS; in an extension "
        "build they replace TORCH_CUDA_ARCH_LIST) are compared with each GPU the text shows: "
        "none for its architecture is an error, PTX only a warning; where no such flags are "
        "shown, a TORCH_CUDA_ARCH_LIST without the GPU's architecture is a warning (PTX only: "
        "advice), since extension builds follow it. Libraries that say they "
        "lack the GPU's architecture (tiny-cuda-nn's `Could not find compatible tinycudann "
        "extension`, TensorRT 10's `Target GPU SM 70 is not supported by this TensorRT "
        "release`, TensorFlow's generated kernels failing with `CUDA_ERROR_INVALID_PTX`) count "
        "as `no kernel image is available`.",
        why="Without a cubin for the GPU, kernels either fail (`no kernel image is available for "
        "execution on the device`) or, when only PTX exists, are JIT-compiled at start-up: "
        "minutes of delay on every new process and no arch-specific instructions.",
        example="PyTorch 2.8 cu128 (sm_75 and newer) on a p3 V100 (sm_70); or a cu126 wheel on "
        "a B200 (sm_100).",
        fix="Install the wheel variant whose arch list covers the GPU (`stackcheck matrix torch "
        "<version>` lists them): cu126 still has sm_50-sm_90, cu128+/cu13x have sm_75-sm_120. "
        "Where nvcc or ptxas does not know the architecture, build with a CUDA toolkit that "
        "does (CUDA 11.1+ for sm_86, 11.8 for sm_89/sm_90, 12.8 for sm_120), or point Triton "
        "at one (`TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas`).",
        references=("https://github.com/pytorch/pytorch/issues/157517",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        shown = False
        for finding in (*self._missing(ctx), *self._build_flags(ctx)):
            shown = True
            yield finding
        refused = ctx.snapshot.observations("gpu-feature-unsupported")
        if refused and not shown:
            # FP8, bfloat16, FlashAttention 2 on an older GPU: the hardware's limit, by design;
            # advice only where nothing else here is wrong with the GPU's architecture.
            yield self.finding(
                f"A program refused a feature this GPU does not have ({refused[0].value}): by "
                "design, not a fault of the stack; choose a precision or implementation the GPU "
                "supports, or a GPU that has it.",
                [refused[0].evidence],
                severity=Severity.INFO,
            )

    def _build_flags(self, ctx: CheckContext) -> Iterable[Finding]:
        """A build whose explicit nvcc arch flags (-gencode, -arch) leave out a GPU the text
        shows; else, a TORCH_CUDA_ARCH_LIST that does (the list extension builds follow unless
        their own flags name an arch, so it is a warning: it speaks of what will be built)."""
        builds: list[tuple[str, list[str], list[Evidence], bool]] = []
        for seen in ctx.snapshot.observations("build-archs"):
            archs = flag_archs(seen.value or "")
            name = (seen.value or "").split("=", 1)[0]
            if archs:
                builds.append(
                    (f"The build's nvcc flags ({name}) compile", archs, [seen.evidence], True)
                )
        listed = ctx.snapshot.env.get("TORCH_CUDA_ARCH_LIST")
        arch_list = arch_list_archs(listed.value) if listed is not None and not builds else None
        if listed is not None and arch_list:
            builds.append(
                ("TORCH_CUDA_ARCH_LIST builds extensions", arch_list, [listed.evidence], False)
            )
        for gpu in ctx.gpus:
            if gpu.compute_capability is None:
                continue
            sm = gpu.compute_capability.replace(".", "")
            for label, archs, evidence, explicit in builds:
                verdict = runs_on(archs, gpu.compute_capability)
                if verdict == "sass":
                    continue
                severity = Severity.ERROR if verdict == "none" else Severity.WARNING
                if not explicit:
                    severity = Severity.WARNING if verdict == "none" else Severity.INFO
                yield self.finding(
                    f"{label} for {' '.join(archs)} only: "
                    + (
                        f"{gpu.name} (sm_{sm}) would run its kernels only JIT-compiled from PTX."
                        if verdict == "ptx"
                        else f"nothing built so runs on {gpu.name} (compute capability "
                        f"{gpu.compute_capability}); add its architecture ("
                        + (
                            f"-gencode arch=compute_{sm},code=sm_{sm})."
                            if explicit
                            else f"{gpu.compute_capability})."
                        )
                    ),
                    [*evidence, *gpu.evidence[:1]],
                    severity=severity,
                )
                break

    def _missing(self, ctx: CheckContext) -> Iterable[Finding]:
        found = False
        for torch in ctx.torch_cuda_builds:
            for finding in self._check_build(ctx, torch):
                found = True
                yield finding
        if not found:
            for torch in ctx.installations(ComponentName.TORCH):
                if torch not in ctx.torch_cuda_builds and torch.properties.get("cpu_only") != "yes":
                    yield from self._no_variant_fits(ctx, torch)
        failures = ctx.snapshot.observations("no-kernel-image")
        linked = ctx.snapshot.observations("ptx-jit-limit")
        if failures and not found and linked:
            # XLA links PTX through the driver: from a toolkit newer than the driver that fails
            # with the same words (SC102 names it), whatever the GPU's architecture.
            yield self.finding(
                "A CUDA kernel found no code for the GPU "
                f"({(failures[0].value or 'no kernel image is available')[:120]}), where the "
                f"report shows a driver older than the toolkit's PTX ({linked[0].value or ''}"
                "): most likely the driver could not load that PTX, not a missing architecture.",
                [*(o.evidence for o in failures[:1]), linked[0].evidence],
                severity=Severity.INFO,
            )
        elif failures and not found:
            yield self.finding(
                "A CUDA kernel found no code for the GPU "
                f"({(failures[0].value or 'no kernel image is available')[:120]}): the build "
                "lacks this GPU's architecture.",
                [o.evidence for o in failures[:2]],
            )
        if not found and not failures:
            yield from self._cuda_older_than_gpu(ctx)
            yield from self._below_program_floor(ctx)
            yield from self._below_tensorrt_floor(ctx)
        jit = ctx.snapshot.observations("ptx-jit-only")
        if jit and not found and not failures:
            yield self.finding(
                f"The framework has no cubin for this GPU ({jit[0].value}): its kernels are "
                "JIT-compiled from PTX at start (minutes, or longer), and fail where the PTX's "
                "toolkit predates the GPU.",
                [o.evidence for o in jit[:2]],
                severity=Severity.WARNING,
            )
        unknown = ctx.snapshot.observations("toolkit-arch-unsupported")
        if unknown:
            held = _held_archs(ctx)
            asked = _ARCH_ASKED.search(unknown[0].value or "")
            elsewhere = bool(held and asked and int(asked.group(1)) not in held)
            undone = ctx.snapshot.observations("program-change-undone")
            if undone and not elsewhere and not (held and asked):
                # The report says undoing one change of the program resolved it: that change
                # put the architecture in the build's list (a fatbin default), not the GPU.
                yield self.finding(
                    "The build's toolchain does not support the architecture the build asked "
                    f"for ({unknown[0].value}), and the report says undoing a change of the "
                    f"program resolved it ({(undone[0].value or '')[:80]}): that change added "
                    "the architecture to the build's list; the toolkit serves the program's "
                    "own build. Keep the change out, or build with a toolkit that knows the "
                    "architecture.",
                    [unknown[0].evidence, undone[0].evidence],
                    severity=Severity.INFO,
                )
                return
            # Where the build targets a GPU the machine does not hold (a script that adds
            # compute_90 on an A100 host), the build's flags, not the stack, are at fault.
            shown = ", ".join(f"sm_{a}" for a in sorted(held))
            yield self.finding(
                "The build's toolchain (the CUDA compiler, or PyTorch's extension builder) does "
                f"not support the architecture the build asked for "
                f"({unknown[0].value})"
                + (
                    f", but no GPU here is of it (the machine holds {shown}): drop that "
                    "architecture from the build (TORCH_CUDA_ARCH_LIST, -gencode) or build with "
                    "a toolkit that knows it."
                    if elsewhere
                    else ": the toolkit that builds the kernels (nvcc for an extension, Triton's "
                    "bundled ptxas for torch.compile and Triton kernels, the PyTorch that drives "
                    "an extension build) predates the GPU, or "
                    "has dropped an architecture the build still lists."
                ),
                [o.evidence for o in unknown[:2]],
                severity=Severity.INFO if elsewhere else Severity.ERROR,
            )

    def _below_tensorrt_floor(self, ctx: CheckContext) -> Iterable[Finding]:
        """A TensorRT release the report names, on a GPU older than the oldest architecture that
        release supports (8.6 dropped Kepler): TensorRT has no kernels for it."""
        for said in ctx.snapshot.observations("version-stated"):
            value = said.value or ""
            if not value.startswith("TensorRT "):
                continue
            release = value.removeprefix("TensorRT ")
            floor = ctx.matrix.tensorrt_floor(release)
            if floor is None:
                continue
            for gpu in ctx.gpus:
                cc = gpu.compute_capability
                if (
                    cc is None
                    or ctx.version_at_least(cc, floor.min_compute_capability) is not False
                ):
                    continue
                yield self.finding(
                    f"TensorRT {release} supports GPUs of compute capability "
                    f"{floor.min_compute_capability} and newer (from {floor.version} on); "
                    f"{gpu.name} is {cc}: TensorRT has no kernels for it. Use an older TensorRT "
                    "that supports it, or a newer GPU.",
                    [
                        said.evidence,
                        *gpu.evidence[:1],
                        Evidence(
                            kind="matrix", source=floor.source, detail=f"tensorrt {floor.version}"
                        ),
                    ],
                    severity=Severity.WARNING,
                )
                return

    def _below_program_floor(self, ctx: CheckContext) -> Iterable[Finding]:
        """A program whose builds support GPUs from a compute capability on (Ollama's CUDA
        builds: 5.0+), shown using a GPU below it: that GPU is not used (or its kernels fail)."""
        for seen in ctx.snapshot.observations("gpu-floor")[:1]:
            program, _, floor = (seen.value or "").rpartition(" ")
            for gpu in ctx.gpus:
                cc = gpu.compute_capability
                if cc is None or ctx.version_at_least(cc, floor) is not False:
                    continue
                yield self.finding(
                    f"{program}'s builds carry code for GPUs of compute capability {floor} and "
                    f"newer; {gpu.name} is {cc}: {program} cannot use it (a build of its own "
                    "for that architecture can).",
                    [seen.evidence, *gpu.evidence[:1]],
                    severity=Severity.WARNING,
                )
                return

    def _cuda_older_than_gpu(self, ctx: CheckContext) -> Iterable[Finding]:
        """The only CUDA the text shows (a toolkit, or a CUDA a sentence or a template's field
        names: "CUDA version - 9.0, V9.0.176") predates a GPU it shows: code built with that
        CUDA (the program, and the libraries built for it: cuDNN, TensorRT) carries no cubin
        for the GPU's architecture, at best PTX of an older one. A warning: the text does not
        say what was built with it. Not where a PyTorch CUDA build or a newer CUDA is shown."""
        if ctx.installations(ComponentName.TORCH):
            return
        named = [
            (o.value.removeprefix("CUDA "), o.evidence)
            for o in ctx.snapshot.observations("version-stated")
            if o.value and o.value.startswith("CUDA ")
        ] + [
            (str(t.version), t.evidence[0])
            for name in (ComponentName.CUDA_TOOLKIT, ComponentName.CUDA_RUNTIME)
            for t in ctx.installations(name)
            if t.version and t.evidence
        ]
        if not named:
            return
        for gpu in ctx.gpus:
            known = _first_cuda_of(ctx, gpu.known, gpu.compute_capability)
            if known is None or known.first_cuda is None:
                continue
            first = known.first_cuda
            if any(ctx.version_at_least(release, first) is not False for release, _ in named):
                continue  # a CUDA that knows the GPU is shown too (or one that does not read)
            release, evidence = named[0]
            matrix = Evidence(kind="matrix", source=known.source, detail=f"gpu {known.name}")
            yield self.finding(
                f"The CUDA the report shows ({release}) predates {gpu.name} (compute capability "
                f"{gpu.compute_capability}; its first CUDA is {first}): what is built with it "
                "(the program, and the cuDNN or TensorRT built for that CUDA) has no cubin for "
                "this GPU, at best PTX of an older architecture.",
                [evidence, *gpu.evidence[:1], matrix],
                severity=Severity.WARNING,
            )
            return

    def _check_build(self, ctx: CheckContext, torch: Installation) -> Iterable[Finding]:
        archs, evidence, unsure = self._archs(ctx, torch)
        if not archs:
            yield from self._by_cuda_release(ctx, torch)
            return
        label = f"PyTorch {torch.version}" if torch.version else "The PyTorch in use"
        for gpu in ctx.gpus:
            if gpu.compute_capability is None:
                continue
            verdict = runs_on(archs, gpu.compute_capability)
            if verdict == "sass":
                continue
            shown = " ".join(archs)
            if verdict == "ptx":
                yield self.finding(
                    f"{label} has no cubin for {gpu.name} (sm_"
                    f"{gpu.compute_capability.replace('.', '')}); its kernels would be "
                    f"JIT-compiled from PTX ({shown}).",
                    [*evidence, *gpu.evidence[:1]],
                    severity=Severity.WARNING,
                )
            else:
                yield self.finding(
                    f"{label} carries {shown}: nothing runs on {gpu.name} "
                    f"(compute capability {gpu.compute_capability}).",
                    [*evidence, *gpu.evidence[:1]],
                    severity=self.capped(unsure),
                )

    def _by_cuda_release(self, ctx: CheckContext, torch: Installation) -> Iterable[Finding]:
        """Without an arch list: a CUDA release older than the GPU, or newer than its last."""
        if torch.cuda is None:
            return
        for gpu in ctx.gpus:
            # A GPU the matrix does not list shares its first CUDA with the listed GPUs of its
            # compute capability (CUDA adds an architecture, not a model): an RTX 3090 is an
            # sm_86 like the A10G, from CUDA 11.1.
            known = gpu.known or next(
                (
                    g
                    for g in ctx.matrix.matrix.gpu
                    if g.compute_capability == gpu.compute_capability and g.first_cuda
                ),
                None,
            )
            if known is None:
                continue
            matrix = Evidence(kind="matrix", source=known.source, detail=f"gpu {known.name}")
            major = versions.major(torch.cuda)
            if (
                known.last_cuda_major is not None
                and major is not None
                and (major > known.last_cuda_major)
            ):
                yield self.finding(
                    f"PyTorch {torch.version} is built with CUDA {torch.cuda}; CUDA "
                    f"{known.last_cuda_major} was the last to support {gpu.name} (compute "
                    f"capability {gpu.compute_capability}): nothing in it runs there.",
                    [*torch.evidence[:1], *gpu.evidence[:1], matrix],
                    severity=self.capped(known.unsure),
                )
            elif known.first_cuda and ctx.version_at_least(torch.cuda, known.first_cuda) is False:
                yield self.finding(
                    f"PyTorch {torch.version} is built with CUDA {torch.cuda}, older than the "
                    f"first CUDA for {gpu.name} ({known.first_cuda}): it has no cubin for compute "
                    f"capability {gpu.compute_capability}, at best PTX to JIT-compile.",
                    [*torch.evidence[:1], *gpu.evidence[:1], matrix],
                    severity=Severity.WARNING,
                )

    def _no_variant_fits(self, ctx: CheckContext, torch: Installation) -> Iterable[Finding]:
        """A PyTorch named without its build (`torch==2.1.2` in a requirements file or a
        Dockerfile) on a GPU that no CUDA variant of that release carries code for: whichever
        wheel pip picks, nothing runs there (an RTX 50's sm_120 before 2.7)."""
        release = ctx.matrix.torch_release(torch.version)
        archs = [v.archs for v in release.variants if v.archs] if release is not None else []
        if release is None or not archs:
            return
        for gpu in ctx.gpus:
            cc = gpu.compute_capability
            if cc is None or any(runs_on(a, cc) != "none" for a in archs):
                continue
            evidence = Evidence(
                kind="matrix", source=release.source, detail=f"torch {release.version}"
            )
            variants = ", ".join(f"cu{v.cuda}" for v in release.variants)
            yield self.finding(
                f"PyTorch {torch.version} has no CUDA build with code for {gpu.name} (compute "
                f"capability {cc}): none of its variants ({variants}) "
                "carries that architecture, so whichever wheel is installed, nothing runs there.",
                [*torch.evidence[:1], evidence, *gpu.evidence[:1]],
                severity=Severity.WARNING,
            )

    @staticmethod
    def _archs(ctx: CheckContext, torch: Installation) -> tuple[list[str], list[Evidence], bool]:
        if torch.archs:
            read = [
                e for e in torch.evidence if e.kind == "binary" and "arch list" in (e.detail or "")
            ]
            return torch.archs, read or torch.evidence[:1], False
        release = ctx.matrix.torch_release(torch.version)
        variant = ctx.matrix.torch_variant(torch.version, torch.cuda)
        if release is None or variant is None or not variant.archs:
            return [], [], True
        unsure = release.unsure if variant.unsure is None else variant.unsure
        source = variant.source or release.source
        evidence = [
            *torch.evidence[:1],
            Evidence(
                kind="matrix", source=source, detail=f"torch {release.version} cu{variant.cuda}"
            ),
        ]
        return variant.archs, evidence, unsure


def _named(torch: Installation) -> str:
    """ "PyTorch 2.3.1", or "PyTorch" where only its build was read (`torch.version.cuda` None)."""
    return f"PyTorch {torch.version}" if torch.version else "PyTorch"
