"""Anchoring an image's findings to the Dockerfile it was built from.

An ENV setting maps to the ENV line that set it. A file maps through its layer: the last
layer-making instructions of the final stage (RUN, COPY, ADD) made the image's last layers, in
order, as the config's history confirms; earlier layers came with the base image, so the FROM
line. What cannot be mapped keeps its evidence as it is, anchored to the image reference.
"""

from __future__ import annotations

from stackcheck.check.model import Finding, Report
from stackcheck.dockerfile.build import plan_build
from stackcheck.dockerfile.lint import final_base
from stackcheck.errors import StackcheckError
from stackcheck.parsers.dockerfile import Dockerfile, Instruction
from stackcheck.snapshot.model import Evidence, ImageLayer

_LAYER_MAKERS = ("RUN", "COPY", "ADD")


def _final_stage(dockerfile: Dockerfile) -> list[Instruction]:
    """The FROM line and instructions of the stage ``docker build`` builds."""
    try:
        target = plan_build(dockerfile).target
    except StackcheckError:
        return []
    return [target.instruction, *(step.instruction for step in target.steps)]


def _agrees(instruction: Instruction, created_by: str | None) -> bool:
    """Whether a history step could be this instruction (unknown history agrees)."""
    if not created_by:
        return True
    step = created_by.upper()
    if instruction.keyword == "RUN":
        return "#(NOP)" not in step
    return instruction.keyword in step


def layer_lines(dockerfile: Dockerfile, layers: list[ImageLayer]) -> dict[str, Instruction]:
    """Which instruction made each layer, by digest."""
    stage = _final_stage(dockerfile)
    makers = [i for i in stage if i.keyword in _LAYER_MAKERS]
    if not makers or len(makers) > len(layers):
        return {}
    own = layers[len(layers) - len(makers) :]
    if not all(_agrees(i, layer.created_by) for i, layer in zip(makers, own, strict=True)):
        return {}
    mapping = {layer.digest: i for i, layer in zip(makers, own, strict=True)}
    base = final_base(dockerfile)
    if base is not None:
        for layer in layers[: len(layers) - len(makers)]:
            mapping[layer.digest] = base[1]
    return mapping


def env_lines(dockerfile: Dockerfile) -> dict[str, Instruction]:
    """The ENV instruction that last set each variable in the built stage (or a stage it is
    built FROM)."""
    try:
        target = plan_build(dockerfile).target
    except StackcheckError:
        return {}
    return {name: instruction for name, (_, instruction) in target.env.items()}


def anchor_findings(
    report: Report, dockerfile: Dockerfile, path: str, layers: list[ImageLayer]
) -> Report:
    by_env = env_lines(dockerfile)
    by_layer = layer_lines(dockerfile, layers)

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
