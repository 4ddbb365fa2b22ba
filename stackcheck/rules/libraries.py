"""Families ``cudnn`` and ``nccl-multiple``: the libraries PyTorch loads, and their copies."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName, Evidence, Installation


def _holds(installation: Installation, path: str) -> bool:
    """Whether ``path`` (a resolved library file) is this installation's file or in its folder."""
    return installation.path is not None and (
        path == installation.path or posixpath.dirname(path) == installation.path
    )


def loaded_by_torch(
    ctx: CheckContext, torch: Installation, key: str, component: ComponentName
) -> Installation | None:
    path = torch.properties.get(f"loads_{key}", "")
    if not path.startswith("/"):
        return None
    return next((i for i in ctx.installations(component) if _holds(i, path)), None)


# The cuDNN major a missing library names: a soname's (libcudnn_cnn_infer.so.8.9.2) or a Windows
# DLL's (cudnn_ops_infer64_8.dll).
_CUDNN_MAJOR = re.compile(r"^(?:lib)?cudnn\w{0,40}?(?:\.so\.|64_)(\d{1,2})")
# An nvidia/cuda tag without cuDNN (10.1-base-ubuntu18.04, 12.4.1-runtime-ubuntu22.04): only
# `<cuda>-cudnn[N]-<flavor>-<os>` tags carry it (hub.docker.com/r/nvidia/cuda).
_CUDA_IMAGE_WITHOUT_CUDNN = re.compile(
    r"(?:^|/)nvidia/cuda:\d{1,2}\.\d{1,2}(?:\.\d{1,2})?-(?:base|runtime|devel)(?:-|$)"
)
# TensorFlow's 'Unable to load cuDNN DSO' (libcudnn), Paddle's 'library (libcudnn.so)'
_CUDNN_UNVERSIONED = re.compile(r"^(?:lib)?cudnn(?:\.so|\.dll)?$")


def _with_installed_cudnn(ctx: CheckContext, evidence: Evidence) -> list[Evidence]:
    """What a process said, and where the cuDNN releases installed were read (three at most)."""
    return [
        evidence,
        *(e for c in ctx.installations(ComponentName.CUDNN) for e in c.evidence[:1]),
    ][:3]


class CudnnCudaMismatch(Rule):
    id = "SC301"
    name = "cudnn-cuda-mismatch"
    family = "cudnn"
    severity = Severity.ERROR
    lowest = Severity.INFO  # a lookup of the unversioned libcudnn.so alone
    title = "cuDNN built for another CUDA major"
    doc = RuleDoc(
        what="Compares the CUDA major of the cuDNN a PyTorch build would load (or that sits in its "
        "environment as an nvidia-cudnn-cuXX wheel) with the CUDA major PyTorch is built for.",
        why="A cuDNN for CUDA 11 cannot work with a CUDA 12 runtime (and 12 with 13): "
        "convolutions fail with `CUDNN_STATUS_NOT_INITIALIZED` or the library does not load. "
        "Also reported from what processes print when they meet the wrong cuDNN: PyTorch's "
        "`cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked "
        "against (8, 0, 3)` (usually LD_LIBRARY_PATH putting another cuDNN first), or a library "
        "built for one cuDNN major that finds only another; and cuDNN's own statuses for "
        "parts of two releases mixed (`CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH`, "
        "`CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED`, 8.x's `CUDNN_STATUS_VERSION_MISMATCH`: a "
        "pip or bundled cuDNN 9 whose sub-libraries are partly resolved from a system-wide "
        "one), or a process shown loading cuDNN libraries from two folders (`LD_DEBUG=libs`, "
        "`ldd`); PaddlePaddle's `The installed Paddle is compiled with CUDNN 7.6, but CUDNN "
        "version in your machine is 7.3` and `libcudnn v5 with header v7 unmatched`; ONNX "
        "Runtime's `Failed to create CUDAExecutionProvider. Require cuDNN 8.*` where only "
        "another cuDNN major is shown installed (and, as a warning, a GPU package of ONNX "
        "Runtime 1.5-1.17, all built for cuDNN 8, named by its release beside only cuDNN 9: "
        "its CUDA provider will not load and it runs on the CPU), and its Windows `which "
        "depends on \"cudnn64_9.dll\" which is missing`; TensorFlow 0.x-1.x's `Couldn't open "
        "CUDA library libcudnn.so.5` and `Unable to load cuDNN DSO`; JAX's `CUDA backend failed "
        "to initialize: Unable to load cuDNN. Is it installed?`; PaddlePaddle's `The "
        "third-party dynamic library (cudnn64_8.dll) that Paddle depends on is not "
        "configured correctly`; a cuDNN library said missing in a report's words (`it will "
        "report lost of libcudnn.so.9`); a report's words that cuDNN is not in the image or "
        "was installed wrongly (`an NVIDIA image (nvidia/cuda:10.1-base-ubuntu18.04) which "
        "does not include the CUDA Deep Neural Network libraries`, `I was installing cudnn "
        "incorrectly`) are a warning, naming an nvidia/cuda tag without `cudnn` where one is "
        "shown; and, on WSL 2, cuDNN 8's sub-library unable to load "
        "the driver's libcuda.so, which lives only in /usr/lib/wsl/lib (a report that had to "
        "link it into a pip cuDNN's folder). "
        "A program that looked only for the unversioned `libcudnn.so` (TensorFlow 0.8-0.9's "
        "`Couldn't open CUDA library libcudnn.so`) is advice: that name is the development "
        "package's symlink, absent from runtime images, so the failure is the build's lookup, "
        "not by itself a missing cuDNN; a versioned name (`libcudnn.so.5`) is the error.",
        example="torch 2.4.0+cu121 with nvidia-cudnn-cu11 in the same venv.",
        fix="Install the cuDNN wheel for PyTorch's CUDA major (the one its METADATA requires, "
        "e.g. nvidia-cudnn-cu12) and remove the other.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for torch in ctx.torch_cuda_builds:
            want = versions.major(torch.cuda)
            candidates = [
                c
                for c in ctx.installations(ComponentName.CUDNN)
                if c.python_env == torch.python_env and c.origin in ("pip", "report")
            ]
            loaded = loaded_by_torch(ctx, torch, "cudnn", ComponentName.CUDNN)
            if loaded is not None and loaded not in candidates:
                candidates.append(loaded)
            for cudnn in candidates:
                have = versions.major(cudnn.cuda)
                if have is not None and want is not None and have != want:
                    yield self.finding(
                        f"PyTorch {torch.version} is built for CUDA {torch.cuda} but cuDNN "
                        f"{cudnn.version} at {cudnn.path} is built for CUDA {have}.",
                        [*torch.evidence[:1], *cudnn.evidence],
                    )
        yield from self._observed(ctx)

    def _observed(self, ctx: CheckContext) -> Iterable[Finding]:
        """What a process said when it met the wrong cuDNN."""
        path = ctx.snapshot.env.get("LD_LIBRARY_PATH")
        shadow = [path.evidence] if path is not None and "cudnn" in path.value.lower() else []
        for mismatch in ctx.snapshot.observations("cudnn-mismatch"):
            yield self.finding(
                "The process (PyTorch, TensorFlow, JAX, an application) loaded a cuDNN other "
                "than the one it was built with, or parts of two cuDNN releases "
                f"({mismatch.value}).",
                [mismatch.evidence, *shadow],
            )
        for unfound in ctx.snapshot.observations("cudnn-libcuda-unfound")[:1]:
            # cuDNN itself is there; its sub-library dlopens libcuda.so, which WSL 2 keeps only
            # in /usr/lib/wsl/lib, off the loader path of a pip cuDNN.
            yield self.finding(
                f"cuDNN's library ({unfound.value}) could not load the driver's libcuda.so: on "
                "WSL 2 it lives only in /usr/lib/wsl/lib.",
                [unfound.evidence],
                fix="Put /usr/lib/wsl/lib on LD_LIBRARY_PATH (or link libcuda.so beside cuDNN's "
                "libraries).",
            )
        installed = {versions.major(c.version) for c in ctx.installations(ComponentName.CUDNN)}
        missed = ctx.snapshot.observations("library-missing")
        unnamed = [m for m in missed if _CUDNN_UNVERSIONED.match(m.value or "")]
        for missing in missed:
            name = missing.value or ""
            soname = _CUDNN_MAJOR.search(name)  # libcudnn_cnn.so.9.1.0, cudnn_ops_infer64_8.dll
            wanted = versions.major(soname.group(1)) if soname is not None else None
            if wanted is None:
                continue
            unnamed = []  # the named library says more
            others = sorted(str(m) for m in installed - {wanted} if m is not None)
            yield self.finding(
                f"A library needs cuDNN {wanted} ({name}) "
                + (
                    f"but only cuDNN {', '.join(others)} is installed."
                    if others
                    else "and the loader does not find it."
                ),
                _with_installed_cudnn(ctx, missing.evidence),
            )
        lookup = ctx.snapshot.observations("cudnn-unversioned-lookup")
        if lookup and not any(_CUDNN_MAJOR.search(m.value or "") for m in missed):
            # The bare name is the -dev package's symlink: runtime images do not ship it, and a
            # build that asks for it (TensorFlow 0.8-0.9) fails on a healthy cuDNN.
            yield self.finding(
                "A program looked for the unversioned libcudnn.so, the cuDNN development "
                "package's symlink that runtime images do not ship: a lookup bug of that build "
                "(TensorFlow 0.8-0.9), not by itself a missing cuDNN. Use a fixed build, or "
                "install the cuDNN -dev package (or link libcudnn.so to libcudnn.so.N).",
                [lookup[0].evidence, *(m.evidence for m in unnamed[:1])],
                severity=Severity.INFO,
            )
            unnamed = []
        for missing in unnamed[:1]:
            yield self.finding(
                f"A program could not load cuDNN ({missing.value}): the cuDNN release it was "
                "built for is not installed or not on the library path.",
                _with_installed_cudnn(ctx, missing.evidence),
            )
        stated = ctx.snapshot.observations("cudnn-fault-stated")
        if stated:
            # An image of NVIDIA's CUDA repository carries cuDNN only where its tag names it.
            bare = [
                i
                for component in ctx.snapshot.components.values()
                for i in component.installations
                if _CUDA_IMAGE_WITHOUT_CUDNN.search(i.properties.get("image", ""))
            ]
            image = bare[0].properties["image"] if bare else ""
            yield self.finding(
                f"The report says cuDNN is missing or was installed wrongly ({stated[0].value})"
                + (
                    f"; {image} carries no cuDNN (nvidia/cuda tags have it only where they name "
                    "`cudnn`)"
                    if image
                    else ""
                )
                + ": a program that loads the system's cuDNN (TensorFlow's wheels before "
                "tensorflow[and-cuda], jaxlib's cudnnNN builds, ONNX Runtime) fails on the GPU "
                "or falls back to the CPU.",
                [stated[0].evidence, *(i.evidence[0] for i in bare[:1] if i.evidence)],
                severity=Severity.WARNING,
            )
        for required in ctx.snapshot.observations("cudnn-required", "cudnn-built-for"):
            # The program names its build's cuDNN after failing for any missing dependency:
            # only another major installed makes cuDNN the cause.
            wanted = versions.major(required.value or "")
            others = sorted(str(m) for m in installed - {wanted} if m is not None)
            if wanted is None or not others or wanted in installed:
                continue
            # A package's release (not its failure) names the major: the provider will not
            # load and the program falls back to the CPU, a silent risk rather than a failure.
            listed = required.kind == "cudnn-built-for"
            yield self.finding(
                f"A program is built for cuDNN {wanted}"
                + (f" {(required.value or '').partition(' ')[2]}" if listed else "")
                + f", but only cuDNN {', '.join(others)} is installed: cuDNN majors are not "
                "interchangeable"
                + (", so its CUDA provider will not load (it runs on the CPU)." if listed else "."),
                _with_installed_cudnn(ctx, required.evidence),
                severity=Severity.WARNING if listed else None,
            )


class MultipleNccl(Rule):
    id = "SC302"
    name = "multiple-nccl"
    family = "nccl-multiple"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "PyTorch may load a different NCCL than its own"
    doc = RuleDoc(
        what="Resolves the libnccl.so.2 PyTorch's libtorch_cuda.so would load (RPATH, "
        "LD_LIBRARY_PATH, RUNPATH, ld.so.conf) and compares it with the NCCL wheel PyTorch was "
        "installed with; also flags two NCCL wheels of different CUDA majors in one environment, "
        "and an NCCL a process reported loading (`NCCL version 2.14.3+cuda11.8` in a log, "
        "`torch.cuda.nccl.version()`) that differs from another one reported or installed; and "
        "what a second NCCL makes programs print: an NCCL symbol undefined when a library "
        "loads (`libtorch_cuda.so: undefined symbol: ncclCommRegister`), NCCL 2.14 refusing a "
        "config from newer headers (`Invalid config blocking attribute value -2147483648`), "
        "CMake's `link library [libnccl.so] in X may be hidden by files in`; and two "
        "libnccl.so.2 of different releases in different folders outside Python environments "
        "(`ls -l`, `ldconfig -p`, `find`). A program's own NCCL copy loaded beside PyTorch's "
        "(vLLM 0.4's `Loading nccl from library ~/.config/vllm/nccl/cu12/libnccl.so.2.18.1`) is "
        "an info, a warning where the process is then shown dying of a signal.",
        why="A second NCCL on the search path silently wins: the job runs with a version it was "
        "not built or tested with — missing fixes, different tuning, or undefined symbols such "
        "as `ncclCommRegister` depending on import order (pytorch/pytorch#112285, "
        "NVIDIA/nccl#809).",
        example="LD_LIBRARY_PATH=/usr/local/cuda/lib64 holding NCCL 2.18.5 while torch's wheel "
        "pins nvidia-nccl-cu12 2.21.5.",
        fix="Remove the foreign NCCL directory from LD_LIBRARY_PATH (or remove the extra "
        "installation) so PyTorch loads the NCCL it pins; to use a newer NCCL deliberately, "
        "upgrade the nvidia-nccl wheel instead.",
        references=(
            "https://github.com/pytorch/pytorch/issues/112285",
            "https://github.com/NVIDIA/nccl/issues/1784",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        nccl = ctx.installations(ComponentName.NCCL)
        yield from self._private_copy(ctx)
        shadowed = ctx.snapshot.observations("nccl-shadowed")
        if shadowed:
            yield self.finding(
                f"A program met an NCCL other than the one it was built against "
                f"({(shadowed[0].value or '')[:120]}): another NCCL comes first on its loader or "
                "linker path.",
                [o.evidence for o in shadowed[:2]],
            )
        for torch in ctx.torch_cuda_builds:
            own = [n for n in nccl if n.origin == "pip" and n.python_env == torch.python_env]
            loaded = loaded_by_torch(ctx, torch, "nccl", ComponentName.NCCL)
            if loaded is not None and own and loaded not in own:
                how = next((e for e in torch.evidence if "libnccl" in (e.detail or "")), None)
                yield self.finding(
                    f"PyTorch {torch.version} would load NCCL {loaded.version} from {loaded.path}, "
                    f"not the NCCL {own[0].version} wheel it was installed with.",
                    [*([how] if how else []), *loaded.evidence, *own[0].evidence],
                )
        for n in nccl:
            if "wheels" in n.properties:
                yield self.finding(
                    f"{n.python_env} has several NCCL wheels writing one libnccl.so.2 "
                    f"({n.properties['wheels']}); the file there is NCCL {n.version or 'unknown'}.",
                    n.evidence,
                )
        said = list(self._observed(ctx, nccl))
        yield from said or self._listed_copies(nccl)

    def _private_copy(self, ctx: CheckContext) -> Iterable[Finding]:
        """A program's own NCCL copy loaded beside PyTorch's (vLLM 0.4.0-0.4.1 downloaded 2.18.1
        to ~/.config/vllm/nccl): a design of that release, so advice, unless the process is shown
        dying of a signal, as it did with a broken copy (vllm-project/vllm#4077)."""
        private = ctx.snapshot.observations("nccl-private-copy")
        if not private:
            return
        crashed = ctx.snapshot.observations("process-crashed")
        said = f"A program loads its own NCCL copy ({(private[0].value or '')[:160]})"
        if crashed:
            yield self.finding(
                f"{said}, and the process then died ({crashed[0].value}): remove that copy (or "
                "upgrade the program) so it loads the NCCL PyTorch ships.",
                [private[0].evidence, crashed[0].evidence],
            )
            return
        yield self.finding(
            f"{said} beside the one PyTorch ships: two NCCLs in one process. If the program "
            "crashes or hangs in NCCL, remove that copy so it loads PyTorch's.",
            [private[0].evidence],
            severity=Severity.INFO,
        )

    def _listed_copies(self, nccl: list[Installation]) -> Iterable[Finding]:
        """Two libnccl.so.2 of different releases in different folders outside any Python
        environment (a source build beside the system package): a program built against one
        gets the other by its loader path (NVIDIA/nccl#1784: nccl-tests built with 2.27.0
        loaded the system 2.23.4). Wheels are left to the checks above: torch finds its own."""
        copies: dict[str, Installation] = {}
        for n in nccl:
            release = versions.release(n.version, 3) if n.version else None
            if release is None or not n.path or "-packages/" in n.path or n.origin == "pip":
                continue
            copies.setdefault(release, n)
        if len(copies) < 2 or len({posixpath.dirname(n.path or "") for n in copies.values()}) < 2:
            return
        shown = ", ".join(f"{n.version} ({n.path})" for n in copies.values())
        yield self.finding(
            f"Two NCCL builds are installed: {shown}. A program built against one loads "
            "whichever comes first on its loader path (RPATH, LD_LIBRARY_PATH, ld.so.conf).",
            [e for n in copies.values() for e in n.evidence[:1]],
        )

    def _observed(self, ctx: CheckContext, nccl: list[Installation]) -> Iterable[Finding]:
        """The NCCL processes reported loading (``NCCL version ...``, torch.cuda.nccl.version())
        against each other and against the NCCLs installed."""
        loaded: dict[str, Evidence] = {}
        for observation in ctx.snapshot.observations("nccl-loaded"):
            version = versions.release(observation.value, 3)
            if version is not None:
                loaded.setdefault(version, observation.evidence)
        if len(loaded) > 1:
            yield self.finding(
                f"Processes of this stack loaded different NCCLs: {', '.join(loaded)}.",
                list(loaded.values()),
            )
            return
        for version, evidence in loaded.items():
            # A version a sentence names may be the reporter's belief, not a copy on disk
            # (a static build's NCCL against the image's documented one).
            others = [
                n
                for n in nccl
                if n.version
                and versions.release(n.version, 3) != version
                and n.properties.get("stated") != "prose"
            ]
            if others:
                shown = ", ".join(
                    f"{n.version}" + (f" ({n.path})" if n.path else "") for n in others
                )
                yield self.finding(
                    f"The process loaded NCCL {version}, but the stack also carries NCCL {shown}: "
                    "which one a process gets depends on its loader path and import order.",
                    [evidence, *(e for n in others for e in n.evidence[:1])],
                )
