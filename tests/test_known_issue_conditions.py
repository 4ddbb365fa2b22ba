"""One decision for "does this known issue apply": the rules and `recommend` both ask it, so a
stack `recommend` proposes is never shown without an issue the check would then report."""

from __future__ import annotations

from collections.abc import Callable

from stackcheck.check.engine import check
from stackcheck.ingest import read_report
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
    # Hopper and Blackwell only (2.20.3 also fixed a hang that needs no GPU condition)
    nvls = next(i for e in matrix.nccl for i in e.known_issues if i.fixed_in == "2.20.3" and i.gpus)
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


def test_a_series_stated_without_its_patch_needs_the_whole_series_affected(matrix: Matrix) -> None:
    dmabuf = _issue(matrix, "2.14.3", "nccl")  # >=2.13,<2.14.3: every 2.13 release
    assert reported_for(dmabuf, "2.13") and reported_for(dmabuf, "2.13.4")
    assert not reported_for(dmabuf, "2.14")  # 2.14.3 and later are fixed
    nccl1 = next(i for e in matrix.nccl for i in e.known_issues if i.affected == "<2")
    assert reported_for(nccl1, "1.0") and reported_for(nccl1, "1.3.4")
    assert not reported_for(nccl1, "2.0")


def test_an_env_condition_needs_one_of_its_variables_set_to_a_matching_value(
    matrix: Matrix,
) -> None:
    plugin = _issue(matrix, "2.27.5", "nccl")  # a plugin named by a path, in 2.27.3 only
    assert reported_for(plugin, "2.27.3") and not reported_for(plugin, "2.27.5")
    env = {"NCCL_PROFILER_PLUGIN": "./libnccl_example_profiler_plugin.so"}
    met = conditions_met(plugin, (), None, _installed({}), str, env.get)
    assert met is not None and met.variables == ("NCCL_PROFILER_PLUGIN",)
    by_name = {"NCCL_NET_PLUGIN": "ofi"}.get
    assert conditions_met(plugin, (), None, _installed({}), str, by_name) is None
    assert conditions_met(plugin, (), None, _installed({}), str) is None  # unknown: not a guess


def test_an_observed_condition_needs_what_the_stack_printed(matrix: Matrix) -> None:
    cudart = next(
        i
        for e in matrix.ofi_nccl
        for i in e.known_issues
        if "libcudart" in i.observed.get("net-plugin-failed", "")
    )
    assert reported_for(cudart, "1.7.1") and not reported_for(cudart, "1.8.0")
    printed = {"net-plugin-failed": ["aws-ofi-nccl cannot open libcudart.so"]}
    met = conditions_met(
        cudart, (), None, _installed({}), str, None, lambda kind: printed.get(kind, [])
    )
    assert met is not None and met.observed == (("net-plugin-failed", 0),)
    other = {"net-plugin-failed": ["libefa lacks EFA_1.2 that libfabric needs"]}
    assert (
        conditions_met(cudart, (), None, _installed({}), str, None, lambda k: other.get(k, []))
        is None
    )
    assert conditions_met(cudart, (), None, _installed({}), str) is None  # nothing printed
    # The observation cited is the one that matched, not the first of its kind.
    both = {"net-plugin-failed": [*other["net-plugin-failed"], *printed["net-plugin-failed"]]}
    met = conditions_met(cudart, (), None, _installed({}), str, None, lambda k: both.get(k, []))
    assert met is not None and met.observed == (("net-plugin-failed", 1),)


def test_a_failed_rendezvous_is_not_a_failed_collective_of_nccls(matrix: Matrix) -> None:
    """NCCL 2.28.3-2.29.1's known issue asks for a collective that failed (or a hang); a
    TCPStore client timing out before any communicator (lllyasviel/ControlNet#382's text) is the
    rendezvous, not NCCL, while PyTorch's watchdog timeout still is a collective's."""

    def nccl_issues(text: str) -> list[str]:
        findings = check(read_report(text, "report.txt").snapshot, matrix).findings
        return [f.id for f in findings if f.id == "SC311"]

    nccl = "NCCL version 2.28.9+cuda12.9\n"
    rendezvous = (
        "TimeoutError: The client socket has timed out after 1800s while trying to connect to "
        "(127.0.0.1, 48391).\n"
    )
    watchdog = (
        "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran "
        "for 1800226 milliseconds before timing out.\n"
    )
    assert not nccl_issues(nccl + rendezvous)
    assert nccl_issues(nccl + watchdog) == ["SC311"]
