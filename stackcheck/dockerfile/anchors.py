"""Anchoring an image's findings to the Dockerfile it was built from.

An ENV setting maps to the ENV line that set it. A file maps through its layer: the
layer-making instructions (RUN, COPY, ADD) of the built stage and the stages it is built FROM made
the image's last layers, in order, as the config's history confirms; earlier layers came with the
base image, so the FROM line. What cannot be mapped keeps its evidence as it is, anchored to the
image reference.
"""

from __future__ import annotations

from stackcheck.check.model import Finding, Report
from stackcheck.dockerfile.build import Build
from stackcheck.dockerfile.lint import LintedDockerfile
from stackcheck.parsers.dockerfile import Instruction
from stackcheck.snapshot.model import Evidence, ImageLayer

_LAYER_MAKERS = ("RUN", "COPY", "ADD")


def _agrees(instruction: Instruction, created_by: str | None) -> bool:
    """Whether a history step could be this instruction (unknown history agrees)."""
    if not created_by:
        return True
    step = created_by.upper()
    if instruction.keyword == "RUN":
        return "#(NOP)" not in step
    return instruction.keyword in step


def layer_lines(build: Build, layers: list[ImageLayer]) -> dict[str, Instruction]:
    """Which instruction made each layer, by digest: the layer-making instructions of the built
    stage and the stages it is built FROM, in order, made the image's last layers."""
    chain = build.chain()
    makers = [
        step.instruction
        for stage in chain
        for step in stage.steps
        if step.instruction.keyword in _LAYER_MAKERS
    ]
    if not makers or len(makers) > len(layers):
        return {}
    own = layers[len(layers) - len(makers) :]
    if not all(_agrees(i, layer.created_by) for i, layer in zip(makers, own, strict=True)):
        return {}
    mapping = {layer.digest: i for i, layer in zip(makers, own, strict=True)}
    for layer in layers[: len(layers) - len(makers)]:
        mapping[layer.digest] = chain[0].instruction  # the base image's FROM line
    return mapping


def env_lines(build: Build) -> dict[str, Instruction]:
    """The ENV instruction that last set each variable in the built stage (or a stage it is
    built FROM)."""
    return {name: instruction for name, (_, instruction) in build.target.env.items()}


def anchor_findings(
    report: Report, linted: LintedDockerfile, path: str, layers: list[ImageLayer]
) -> Report:
    if linted.build is None:
        return report
    by_env = env_lines(linted.build)
    by_layer = layer_lines(linted.build, layers)

    def anchored(finding: Finding) -> Finding:
        if any(e.line is not None for e in finding.evidence):
            return finding
        for evidence in finding.evidence:
            instruction = None
            if evidence.kind in ("image-config", "env"):
                instruction = by_env.get(evidence.source)
            elif evidence.layer is not None:
                instruction = by_layer.get(evidence.layer)
            if instruction is not None:
                line = Evidence(
                    kind="text",
                    source=path,
                    line=instruction.line,
                    detail=f"{instruction.keyword} {instruction.arguments}"[:200],
                )
                return finding.model_copy(update={"evidence": [line, *finding.evidence]})
        return finding

    return report.model_copy(update={"findings": [anchored(f) for f in report.findings]})
