"""Family ``dockerfile``: what a reviewer of a GPU image's recipe would raise. They read the
snapshot like every rule: the environment an image sets, the NCCL and PyTorch it holds, and the
observations a build recipe yields (a floating base, a cleared constraint file, an unquoted
specifier), each with the line that shows it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName, Installation

_COMPAT_DIR = re.compile(r"/cuda(?:-\d+(?:\.\d+)?)?/compat(?:/lib(?:\.real)?)?/?$")


class _Observed(Rule):
    """One finding per observation of ``kind``."""

    kind: str
    message: str  # formatted with {value}

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for observation in ctx.snapshot.observed:
            if observation.kind == self.kind and observation.value:
                yield self.finding(
                    self.message.format(value=observation.value), [observation.evidence]
                )


class _LibraryPath(Rule):
    """One finding when the image's LD_LIBRARY_PATH has what ``problem`` describes."""

    def problem(self, value: str) -> str | None:
        raise NotImplementedError

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        var = ctx.snapshot.env.get("LD_LIBRARY_PATH")
        message = self.problem(var.value) if var is not None else None
        if var is not None and message:
            yield self.finding(message, [var.evidence])


class FloatingBaseImage(_Observed):
    id = "SC1001"
    name = "floating-base-image"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "GPU image built on a floating base (no tag, or latest)"
    kind = "base-image-floating"
    message = (
        "base image {value} has no fixed tag: each build may get another CUDA, driver floor, "
        "NCCL and PyTorch"
    )
    doc = RuleDoc(
        what="Flags a GPU image whose base image has no tag or a moving one (`latest`, "
        "`nightly`) and no digest.",
        why="The base carries CUDA, cuDNN, NCCL and often PyTorch. A floating tag changes them "
        "between two builds of the same Dockerfile, so a rebuilt image can need a newer driver "
        "or load another NCCL without any line of the file changing.",
        example="`FROM nvcr.io/nvidia/pytorch:latest` or `FROM nvidia/cuda`.",
        fix="Pin a full tag (`nvidia/cuda:12.4.1-devel-ubuntu22.04`), or a digest with the tag "
        "beside it (`…:12.4.1-devel-ubuntu22.04@sha256:…`).",
        references=("https://docs.docker.com/build/building/best-practices/#from",),
    )


class CompatOnLibraryPath(_LibraryPath):
    id = "SC1002"
    name = "compat-on-library-path"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "CUDA forward-compat libraries put on LD_LIBRARY_PATH unconditionally"
    doc = RuleDoc(
        what="Flags an `LD_LIBRARY_PATH` set in the image that holds a CUDA forward-"
        "compatibility directory (`/usr/local/cuda/compat`, `/usr/local/cuda-12.4/compat`).",
        why="Forward compatibility is for a host driver older than the image's CUDA. On a host "
        "whose driver is as new or newer, the compat libcuda shadows the driver's own: CUDA "
        "fails (error 803/804) or runs on an older user-space driver. NGC images add the "
        "directory from their entrypoint only when the driver needs it, for that reason.",
        example="`ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:$LD_LIBRARY_PATH` in a Dockerfile.",
        fix="Leave compat off the image's environment; add it at run time on hosts whose driver "
        "is older than the image's CUDA (as NGC's entrypoint does), or run `ldconfig` for it "
        "only there.",
        references=(
            "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
        ),
    )

    def problem(self, value: str) -> str | None:
        entries = [e for e in value.split(":") if _COMPAT_DIR.search(e)]
        if not entries:
            return None
        return f"LD_LIBRARY_PATH holds {entries[0]} for every process, whatever the host's driver."


class PipConstraintCleared(_Observed):
    id = "SC1003"
    name = "pip-constraint-cleared"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "NGC's pip constraint file cleared before pip installs"
    kind = "pip-constraint-cleared"
    message = (
        "PIP_CONSTRAINT is emptied here, and a later install can replace the image's PyTorch "
        "or what it was built with ({value})"
    )
    doc = RuleDoc(
        what="Flags an NGC-based Dockerfile that empties `PIP_CONSTRAINT` (or removes "
        "`/etc/pip/constraint.txt`) and then runs `pip install`.",
        why="NGC's PyTorch is NVIDIA's own build; the constraint file pins it and the packages "
        "built against it. Without it, any dependency that asks for `torch` pulls a pytorch.org "
        "wheel over NVIDIA's (another CUDA, another NCCL), silently, in the middle of the build.",
        example="`ENV PIP_CONSTRAINT=` then `RUN pip install vllm` on `nvcr.io/nvidia/pytorch`.",
        fix="Keep the constraint file; where one pin must move, append to a copy of it and "
        "point PIP_CONSTRAINT at the copy, or install with `--no-deps`.",
        references=("https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/",),
    )


def _torch_nccl(ctx: CheckContext, torch: Installation) -> str | None:
    """The NCCL a PyTorch was built with: the image's own record, else the matrix variant."""
    if torch.properties.get("nccl"):
        return torch.properties["nccl"]
    variant = ctx.matrix.torch_variant(torch.version, torch.cuda)
    return variant.nccl if variant is not None else None


class NcclOlderThanTorchBuild(Rule):
    id = "SC1004"
    name = "nccl-older-than-torch-build"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "NCCL built or preloaded is older than the NCCL PyTorch was built with"
    doc = RuleDoc(
        what="Compares an NCCL the image builds from source, installs from apt or preloads "
        "with the NCCL its PyTorch was built with (from the image's matrix row or the PyTorch "
        "variant).",
        why="PyTorch calls the NCCL API of the version it was built against; an older library "
        "loaded in its place lacks fixes and features the build assumes (and may miss symbols "
        "outright), and it is what every collective then runs on.",
        example="`git clone -b v2.18.3-1 …/nccl` with `LD_PRELOAD` in an image whose PyTorch "
        "2.5 was built with NCCL 2.21.5.",
        fix="Build or pin an NCCL at least as new as PyTorch's (`torch.cuda.nccl.version()`), "
        "or drop the extra copy.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        nccls = [
            i for i in ctx.installations(ComponentName.NCCL) if i.version and i.origin == "system"
        ]
        for torch in ctx.installations(ComponentName.TORCH):
            built = _torch_nccl(ctx, torch)
            if not built:
                continue
            for nccl in nccls:
                if versions.key(nccl.version) < versions.key(built) and not versions.same_release(
                    nccl.version, built, 3
                ):
                    yield self.finding(
                        f"NCCL {nccl.version} is older than NCCL {built}, which PyTorch "
                        f"{torch.version} was built with.",
                        [*nccl.evidence[:1], *torch.evidence[:2]],
                    )


class LibraryPathRelativeEntry(_LibraryPath):
    id = "SC1005"
    name = "library-path-relative-entry"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "LD_LIBRARY_PATH has an empty or relative entry"
    doc = RuleDoc(
        what="Flags an `LD_LIBRARY_PATH` with an empty entry (a leading, trailing or doubled "
        "`:`) or a relative one.",
        why="The loader reads an empty or relative entry against the process's working "
        "directory: libraries then depend on where a job is started from, and a `libnccl.so` "
        "or `libcuda.so` lying in a dataset or checkout directory is loaded instead of the "
        "image's.",
        example="`ENV LD_LIBRARY_PATH=/opt/nccl/lib:$LD_LIBRARY_PATH` on a base that sets no "
        "LD_LIBRARY_PATH, which leaves a trailing `:`.",
        fix="Write only absolute directories; append `${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}` "
        "rather than `:$LD_LIBRARY_PATH`.",
        references=("https://man7.org/linux/man-pages/man8/ld.so.8.html",),
    )

    def problem(self, value: str) -> str | None:
        bad = [e for e in value.split(":") if "$" not in e and not e.startswith("/")]
        if not bad:
            return None
        what = "an empty entry" if "" in bad else f"the relative entry {bad[0]!r}"
        return f"LD_LIBRARY_PATH={value} has {what}: the loader reads it as the working directory."


class PipUnquotedSpecifier(_Observed):
    id = "SC1006"
    name = "pip-unquoted-specifier"
    family = "dockerfile"
    severity = Severity.WARNING
    title = "Unquoted version specifier in pip install: the shell redirects it"
    kind = "pip-unquoted-specifier"
    message = (
        "`{value}` is not quoted: the shell reads `>` or `<` as a redirection, so pip installs "
        "the package unconstrained (and a stray file is written)"
    )
    doc = RuleDoc(
        what="Flags `pip install pkg>=X` (or `<`, `<=`, `>`) written without quotes in a shell-"
        "form RUN.",
        why="`>=2.1` is a redirection of pip's output to a file named `=2.1`: the constraint "
        "never reaches pip, which installs whatever version it likes, and the build succeeds.",
        example="`RUN pip install numpy<2 transformers>=4.40`",
        fix="Quote the requirement: `pip install 'numpy<2' 'transformers>=4.40'`.",
        references=("https://pip.pypa.io/en/stable/cli/pip_install/#examples",),
    )


RULES: tuple[Rule, ...] = (
    FloatingBaseImage(),
    CompatOnLibraryPath(),
    PipConstraintCleared(),
    NcclOlderThanTorchBuild(),
    LibraryPathRelativeEntry(),
    PipUnquotedSpecifier(),
)
