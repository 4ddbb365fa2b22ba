"""One decision for "does this known issue apply": the rules and `recommend` both ask it, so a
stack `recommend` proposes is never shown without an issue the check would then report."""

from __future__ import annotations

from collections.abc import Callable

from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.matrix.conditions import conditions_met, reported_for
from stackcheck.matrix.models import KnownIssue
from stackcheck.recommend.issues import stack_issues
from stackcheck.recommend.target import Target, TargetGpu
from stackcheck.snapshot.model import ComponentName

NCCL, EFA = ComponentName.NCCL, ComponentName.EFA_INSTALLER


def _issue(matrix: Matrix, fixed_in: str, table: str) -> KnownIssue:
    entries = matrix.nccl if table == "nccl" else matrix.efa_installer
    return next(i for e in entries for i in e.known_issues if i.fixed_in == fixed_in)


def _target(matrix: Matrix, *gpus: str) -> Target:
    index = MatrixIndex(matrix)
    return Target(gpus=tuple(TargetGpu(g, None, index.gpu(g)) for g in gpus), cpu_arch="x86_64")


def _installed(stack: dict[ComponentName, str]) -> Callable[[ComponentName], list[str]]:
    return lambda component: [stack[component]] if component in stack else []


def test_a_gpu_condition_needs_that_gpu_known(matrix: Matrix) -> None:
    nvls = _issue(matrix, "2.20.3", "nccl")  # Hopper and Blackwell only
    assert reported_for(nvls, "2.19.3") and not reported_for(nvls, "2.20.3")
    hopper, ampere = _target(matrix, "H100"), _target(matrix, "A100")
    met = conditions_met(nvls, hopper.gpus, "x86_64", _installed({}), str)
    assert met is not None and met.gpu is hopper.gpus[0]
    assert conditions_met(nvls, ampere.gpus, "x86_64", _installed({}), str) is None
    assert conditions_met(nvls, (), "x86_64", _installed({}), str) is None  # unknown: not a guess


def test_a_required_version_must_be_known_and_match(matrix: Matrix) -> None:
    efa = _issue(matrix, "1.29.0", "efa")  # needs NCCL >= 2.19
    met = conditions_met(efa, (), None, _installed({NCCL: "2.19.3"}), str)
    assert met is not None and met.installations == ("2.19.3",)
    assert conditions_met(efa, (), None, _installed({NCCL: "2.18.5"}), str) is None
    assert conditions_met(efa, (), None, _installed({}), str) is None


def test_documented_behaviours_are_never_reported(matrix: Matrix) -> None:
    behaviours = [i for e in matrix.nccl for i in e.known_issues if i.kind == "behaviour"]
    for issue in behaviours:
        assert not reported_for(issue, "99.0.0") and not reported_for(issue, None)


def test_recommend_sees_the_issues_the_conditions_allow(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    stack: dict[ComponentName, str | None] = {NCCL: "2.19.3", EFA: "1.28.0"}
    on_hopper = {s.issue.fixed_in for s in stack_issues(stack, _target(matrix, "H100"), index)}
    on_ampere = {s.issue.fixed_in for s in stack_issues(stack, _target(matrix, "A100"), index)}
    assert {"2.20.3", "1.29.0"} <= on_hopper
    assert "1.29.0" in on_ampere and "2.20.3" not in on_ampere
