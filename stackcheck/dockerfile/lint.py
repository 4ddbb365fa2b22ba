"""A Dockerfile's stack without building it.

The stage ``docker build`` would build (or ``--target``) and the stages it is built ``FROM`` are
read in order: the base image's stack (through the matrix), then every install step, each
replacing what an earlier one installed of the same component; ``COPY --from`` brings what the
named stage (or image) holds under the copied path. The result is a snapshot like any other, so
the rules do not know it came from a Dockerfile. Facts that only a recipe has (a floating base,
a constraint file cleared, an unquoted version specifier) are observations with their line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace

from stackcheck import limits
from stackcheck.dockerfile.base_image import (
    BaseStack,
    gpu_family,
    parse_reference,
    resolve_base_image,
)
from stackcheck.dockerfile.build import Build, BuildOptions, Stage, Step, plan_build
from stackcheck.dockerfile.installs import Installed, read_installs
from stackcheck.dockerfile.review import review_steps
from stackcheck.errors import StackcheckError
from stackcheck.inputs import read_regular, read_stream
from stackcheck.matrix.index import MatrixIndex
from stackcheck.parsers.dockerfile import (
    Dockerfile,
    DockerfileSyntaxError,
    parse_dockerfile,
)
from stackcheck.snapshot.model import (
    ComponentName,
    EnvVar,
    Evidence,
    Installation,
    Observation,
    ProbeNote,
    Snapshot,
    SnapshotSource,
)

_IGNORE = re.compile(r"#\s*stackcheck:\s*ignore\[([A-Za-z0-9_,\s-]+)\]")
# What a copied path brings: a path that names one of these carries the component.
_COPIED = (
    (re.compile(r"/usr/local/cuda|/cuda-\d"), (ComponentName.CUDA_TOOLKIT, ComponentName.CUDNN)),
    (re.compile(r"libnccl|/opt/nccl|/nccl/build"), (ComponentName.NCCL,)),
    (re.compile(r"/opt/amazon/efa"), (ComponentName.EFA_INSTALLER, ComponentName.LIBFABRIC)),
    (re.compile(r"libfabric"), (ComponentName.LIBFABRIC,)),
    (re.compile(r"ofi-nccl|aws-ofi"), (ComponentName.OFI_NCCL,)),
    (
        re.compile(r"site-packages|dist-packages|/opt/conda|venv|\.whl|torch"),
        (ComponentName.TORCH,),
    ),
)


@dataclass
class LintedDockerfile:
    path: str
    dockerfile: Dockerfile
    snapshot: Snapshot
    base: BaseStack | None
    ignores: dict[tuple[str, int], frozenset[str]]  # (file, line) -> rule IDs ignored there
    build: Build | None = None
    installs: list[Installed] = field(default_factory=list)


def read_dockerfile(path: str) -> str:
    """The Dockerfile's text ('-': standard input), bounded; a binary file is refused."""
    if path == "-":
        data, more = read_stream(sys.stdin.buffer, limits.DOCKERFILE_BYTES)
    else:  # opened without blocking: a FIFO is refused, never read
        data, more = read_regular(path, "Dockerfile", limits.DOCKERFILE_BYTES, cut=True)
    if more or b"\x00" in data:
        raise StackcheckError(
            f"{path}: not a Dockerfile (binary, or over {limits.DOCKERFILE_BYTES >> 20} MiB)"
        )
    return data.decode("utf-8", errors="replace")


def parse(text: str, path: str) -> Dockerfile:
    """The file's instructions; a syntax error becomes one line naming the file and line."""
    try:
        dockerfile = parse_dockerfile(text)
    except DockerfileSyntaxError as exc:
        raise StackcheckError(f"{path}:{exc.line}: {exc.reason}") from None
    if not any(i.keyword == "FROM" for i in dockerfile.instructions):
        raise StackcheckError(f"{path}: not a Dockerfile (no FROM instruction)")
    return dockerfile


def inline_ignores(
    text: str, path: str, dockerfile: Dockerfile
) -> dict[tuple[str, int], frozenset[str]]:
    """``# stackcheck: ignore[SC601]`` comment lines directly above an instruction cover all of
    its lines (Dockerfile comments stand on their own lines)."""
    lines = text.splitlines()
    ignores: dict[tuple[str, int], frozenset[str]] = {}
    for instruction in dockerfile.instructions:
        ids: set[str] = set()
        above = instruction.line - 2  # 0-based index of the line above
        while above >= 0 and lines[above].lstrip().startswith("#"):
            match = _IGNORE.search(lines[above])
            if match:
                ids.update(i.strip().upper() for i in match.group(1).split(",") if i.strip())
            above -= 1
        if ids:
            for line in range(instruction.line, instruction.end_line + 1):
                ignores[(path, line)] = frozenset(ids)
    return ignores


Stack = dict[ComponentName, list[Installation]]


class _Reader:
    """Stacks of stages, each computed once; ``COPY --from`` recursion is bounded."""

    def __init__(self, build: Build, path: str, index: MatrixIndex | None) -> None:
        self.build = build
        self.path = path
        self.index = index
        self.stacks: dict[int, Stack] = {}
        self.bases: dict[int, BaseStack] = {}
        self.installs: list[Installed] = []
        self.notes: list[str] = []

    def base(self, stage: Stage) -> BaseStack:
        if stage.index not in self.bases:
            evidence = Evidence(
                kind="text",
                source=self.path,
                line=stage.instruction.line,
                detail=f"FROM {stage.reference}",
            )
            self.bases[stage.index] = (
                resolve_base_image(self.index, stage.reference, evidence)
                if self.index is not None
                else BaseStack(stage.reference)
            )
        return self.bases[stage.index]

    def stack(self, stage: Stage, depth: int = 0) -> Stack:
        if stage.index in self.stacks:
            return self.stacks[stage.index]
        if depth > limits.DOCKERFILE_STAGE_DEPTH:
            return {}
        if stage.parent is not None:
            parent = self.build.stages[stage.parent]
            stack = {k: list(v) for k, v in self.stack(parent, depth + 1).items()}
        else:
            stack = {}
            base = self.base(stage)
            for name, installation in base.installations:
                if name is ComponentName.TORCH and base.torch_nccl:
                    installation.properties.setdefault("nccl", base.torch_nccl)
                stack.setdefault(name, []).append(installation)
        for step in stage.steps:
            if step.instruction.keyword in ("COPY", "ADD") and step.instruction.flag("from"):
                self._copy(stack, step, depth)
                continue
            installed = read_installs([step], self.path)
            self.installs.extend(installed)
            for item in installed:
                self._layer(stack, item.component, item.installation)
                if item.component is ComponentName.EFA_INSTALLER:
                    self._efa_bundle(stack, item)
        self.stacks[stage.index] = stack
        return stack

    def _layer(self, stack: Stack, name: ComponentName, installation: Installation) -> None:
        """A later install replaces an earlier one of the component; a step that installs two
        versions (an if/else for two platforms) keeps both."""
        line = installation.evidence[0].line if installation.evidence else None
        same_step = [i for i in stack.get(name, []) if i.evidence and i.evidence[0].line == line]
        if installation.version is None and stack.get(name) and not same_step:
            # An install that names no version (a preload of whatever libnccl.so is there)
            # keeps the version known so far, with its own evidence added.
            previous = stack[name][-1]
            merged = replace(
                previous,
                path=installation.path or previous.path,
                properties={**previous.properties, **installation.properties},
                evidence=[*installation.evidence, *previous.evidence],
            )
            stack[name] = [merged]
            return
        stack[name] = [*same_step, installation]

    def _efa_bundle(self, stack: Stack, item: Installed) -> None:
        """The EFA installer brings libfabric and aws-ofi-nccl; the matrix says which."""
        release = self.index.efa_installer(item.installation.version) if self.index else None
        if release is None:
            return
        source = Evidence(
            kind="matrix", source=release.source, detail=f"EFA installer {release.version}"
        )
        for name, version in (
            (ComponentName.LIBFABRIC, release.libfabric),
            (ComponentName.OFI_NCCL, release.ofi_nccl),
        ):
            if version:
                stack[name] = [
                    Installation(
                        version=version,
                        origin="vendor",
                        path=release.plugin_path if name is ComponentName.OFI_NCCL else None,
                        properties={"bundled": f"efa-installer {release.version}"},
                        evidence=[*item.installation.evidence, source],
                    )
                ]

    def _copy(self, stack: Stack, step: Step, depth: int) -> None:
        source_name = step.instruction.flag("from") or ""
        source_stage = self.build.stage(source_name)
        if source_stage is not None:
            copied = self.stack(source_stage, depth + 1)
        else:
            evidence = Evidence(
                kind="text", source=self.path, line=step.instruction.line, detail=step.text[:200]
            )
            base = (
                resolve_base_image(self.index, source_name, evidence)
                if self.index is not None
                else BaseStack(source_name)
            )
            copied = {}
            for name, installation in base.installations:
                copied.setdefault(name, []).append(installation)
        paths = " ".join(step.text.split()[:-1]) or step.text
        evidence = Evidence(
            kind="text",
            source=self.path,
            line=step.instruction.line,
            detail=f"COPY --from={source_name} {step.text}"[:200],
        )
        for pattern, names in _COPIED:
            if not pattern.search(paths):
                continue
            for name in names:
                for installation in copied.get(name, []):
                    moved = replace(installation, evidence=[evidence, *installation.evidence])
                    self._layer(stack, name, moved)


def _is_gpu(stack: Stack, base: BaseStack) -> bool:
    return (
        bool(base.vendor)
        or gpu_family(base.reference)
        or any(stack.get(name) for name in ComponentName)
    )


@dataclass
class Reading:
    """What a Dockerfile holds for the stage that is built: the same for every command."""

    build: Build
    stack: Stack
    base: BaseStack
    installs: list[Installed]
    observations: list[Observation]
    notes: list[str]


def read_stack(
    dockerfile: Dockerfile,
    path: str,
    index: MatrixIndex | None,
    options: BuildOptions | None = None,
) -> Reading:
    """The built stage's stack, layered in order; without a matrix, only what the file pins."""
    try:
        build = plan_build(dockerfile, options)
    except DockerfileSyntaxError as exc:
        raise StackcheckError(f"{path}:{exc.line}: {exc.reason}") from None
    reader = _Reader(build, path, index)
    chain = build.chain()
    stack = reader.stack(build.target)
    root = chain[0]
    base = reader.base(root)
    steps = [step for stage in chain for step in stage.steps]
    observations = [
        Observation(kind=kind, value=value, evidence=evidence)
        for kind, value, evidence in review_steps(steps, path, base.vendor)
    ]
    reference = parse_reference(root.reference)
    if reference.floating and not root.unset and _is_gpu(stack, base):
        observations.append(
            Observation(
                kind="base-image-floating",
                value=root.reference,
                evidence=Evidence(
                    kind="text",
                    source=path,
                    line=root.instruction.line,
                    detail=f"FROM {root.reference}",
                ),
            )
        )
    notes = _notes(build, root, base, dockerfile, index is not None)
    return Reading(build, stack, base, reader.installs, observations, notes)


def lint_dockerfile(
    text: str,
    path: str,
    index: MatrixIndex,
    options: BuildOptions | None = None,
    dockerfile: Dockerfile | None = None,
) -> LintedDockerfile:
    """``dockerfile``: the text already parsed (by :func:`parse`), where the caller needed it."""
    if dockerfile is None:
        dockerfile = parse(text, path)
    reading = read_stack(dockerfile, path, index, options)
    snapshot = Snapshot(source=SnapshotSource(kind="dockerfile", target=path), partial=True)
    for component, installations in reading.stack.items():
        snapshot.installations(component).extend(installations)
    for variable, (value, instruction) in reading.build.target.env.items():
        snapshot.env[variable] = EnvVar(
            value=value,
            evidence=Evidence(
                kind="text",
                source=path,
                line=instruction.line,
                detail=f"ENV {variable}={value}"[:200],
            ),
        )
    snapshot.observed.extend(reading.observations)
    snapshot.notes.extend(ProbeNote(probe="dockerfile", message=m) for m in reading.notes)
    return LintedDockerfile(
        path,
        dockerfile,
        snapshot,
        reading.base,
        inline_ignores(text, path, dockerfile),
        reading.build,
        reading.installs,
    )


def _notes(
    build: Build, root: Stage, base: BaseStack, dockerfile: Dockerfile, resolved: bool
) -> list[str]:
    notes = []
    target = build.target
    if len(build.stages) > 1:
        notes.append(
            f"stage {target.label} (line {target.instruction.line}) is the one built; "
            f"{len(build.stages)} stages in all"
        )
    if root.unset:
        names = ", ".join(sorted(set(root.unset)))
        notes.append(
            f"base image {root.reference} names build arguments with no value ({names}): "
            "pass --build-arg to check its stack"
        )
    elif base.known_as:
        notes.append(f"base image {root.reference} is {base.known_as}")
    elif resolved:
        notes.append(f"base image {root.reference} is not in the matrix: its stack was not checked")
    if root.reference == "scratch" and target is root:
        notes.append(
            f"stage {target.label} is FROM scratch: it holds only what it copies; "
            "use --target to check another stage"
        )
    unknown = list(dockerfile.of("UNKNOWN"))
    if unknown:
        # Only the word is quoted: the rest of such a line may be anything, secrets included.
        first = unknown[0]
        more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
        notes.append(
            f"line {first.line}: unknown instruction {first.word!r} skipped{more} "
            "(docker build would refuse it)"
        )
    return notes
