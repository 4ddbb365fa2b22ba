"""Family ``env-vars``: settings that slow a job down without an error, or do not do what they say.

Many are workarounds copied from an old thread (NCCL_P2P_DISABLE=1 for a hang, NCCL_PROTO=simple
for aws-ofi-nccl 1.5) that outlive the problem; where the advice depends on versions, the matrix
(``env_vars.toml``) says which versions need the setting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import EnvVarAdvice
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import component_versions, infiniband_present, satisfies
from stackcheck.snapshot.model import ComponentName, EnvVar, Evidence

_TRUE = ("1", "true", "yes", "on")
NGC_IMAGE = re.compile(r"(?:^|/)nvcr\.io/nvidia/")


def _is_true(ctx: CheckContext, name: str) -> bool:
    return (ctx.snapshot.env_value(name) or "").strip().lower() in _TRUE


# Settings that turn an NCCL transport off: one of them stated as having changed nothing makes the
# others of the same run experiments of the diagnosis too (rwth-i6/returnn#1469: "Same behavior
# with NCCL_P2P_DISABLE=1", a log with NCCL_P2P_LEVEL=LOC beside it).
_TRANSPORT_OFF = ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_P2P_LEVEL", "NCCL_IB_DISABLE")


def _tried(ctx: CheckContext) -> Evidence | None:
    """Where the text says a transport setting changed nothing; None where it does not."""
    return next(
        (
            o.evidence
            for o in ctx.snapshot.observations("setting-tried")
            if o.value in _TRANSPORT_OFF
        ),
        None,
    )


def _geforce_only(ctx: CheckContext) -> list[str]:
    """The GPU names where every GPU known is a GeForce card, else none."""
    names = [g.known.name for g in ctx.gpus if g.known is not None]
    if not names or len(names) < len(ctx.gpus):
        return []
    return names if all(n.startswith("GeForce") for n in names) else []


def _network_test(ctx: CheckContext) -> EnvVar | None:
    """NCCL_NET, where P2P and SHM are both off beside it: every transfer, inside a node too,
    goes over the NICs, which is how a network is measured from one node; None otherwise."""
    network = ctx.snapshot.env.get("NCCL_NET")
    if network is None or not network.value.strip():
        return None
    if _is_true(ctx, "NCCL_P2P_DISABLE") and _is_true(ctx, "NCCL_SHM_DISABLE"):
        return network
    return None


_TRIED_SAID = (
    "the text says turning NCCL transports off changed nothing, so the run shown is an "
    "experiment of the diagnosis. Do not keep it set once the cause is found."
)


class NcclTransportDisabled(Rule):
    id = "SC601"
    name = "nccl-p2p-or-shm-disabled"
    family = "env-vars"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "NCCL's peer-to-peer or shared-memory transport is turned off"
    doc = RuleDoc(
        what="Flags NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1, and NCCL_P2P_LEVEL at 0 (LOC), "
        "or a text level (NVL, PIX) that NCCL before 2.6 reads as 0. P2P and SHM off together "
        "with NCCL_NET naming a network send every transfer, inside a node too, over the NICs: "
        "that is how a network is measured from one node, so it is an info; so is "
        "NCCL_SHM_DISABLE=1 alone passed on the command line of an nccl-tests binary (`mpirun "
        "-x NCCL_SHM_DISABLE=1 ./build/all_reduce_perf`): SHM carries only pairs P2P cannot, "
        "which the measurement then sends over the NICs. A text that says one of these settings "
        'changed nothing ("same behavior with NCCL_P2P_DISABLE=1") shows an experiment of the '
        "diagnosis: an info too; so is NCCL_P2P_DISABLE=1 where every GPU is a GeForce card, "
        "which has no PCIe peer-to-peer (and hangs NCCL where a driver offers it anyway).",
        why="They are workarounds (often for a hang caused by PCIe ACS or the IOMMU) that stay set "
        "after the problem is gone: GPUs in one node then talk through host memory or the "
        "network stack, at a fraction of NVLink/PCIe P2P bandwidth. The NCCL maintainers: 'no "
        "correctness problem, just reduced performance' (NVIDIA/nccl#631).",
        example="NCCL_P2P_DISABLE=1 exported in a training image to get past a hang on one server.",
        fix="Remove it, and fix the cause of the original hang: disable PCIe ACS or use "
        "`iommu=pt` on bare metal (see NCCL's troubleshooting guide).",
        references=(
            "https://github.com/NVIDIA/nccl/issues/631",
            "https://github.com/NVIDIA/nccl/issues/332",
            "https://github.com/NVIDIA/nccl-tests/issues/117 (RTX 4090: all_reduce_perf hangs "
            "with P2P, runs with NCCL_P2P_DISABLE=1)",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        network = _network_test(ctx)
        # Lines that run an nccl-tests binary: a setting passed there shapes a measurement.
        benchmarks = {o.evidence.line: o for o in ctx.snapshot.observations("nccl-tests-run")}
        for name, path in (
            ("NCCL_P2P_DISABLE", "NVLink/PCIe peer-to-peer"),
            ("NCCL_SHM_DISABLE", "shared-memory"),
        ):
            if not _is_true(ctx, name):
                continue
            said = (
                f"{name}={ctx.snapshot.env_value(name)} turns off NCCL's {path} transport "
                "between GPUs of one node"
            )
            var = ctx.snapshot.env[name]
            # SHM alone: NCCL's path only where P2P cannot go, so turning it off on a benchmark
            # sends those pairs over the NICs it measures. P2P off there is the usual workaround
            # for a hang (ACS, the IOMMU) and keeps its warning.
            benchmark = (
                benchmarks.get(var.evidence.line)
                if name == "NCCL_SHM_DISABLE" and not _is_true(ctx, "NCCL_P2P_DISABLE")
                else None
            )
            if benchmark is not None:
                yield self.finding(
                    f"{said}, on the command line of nccl-tests' {benchmark.value}: a setting of "
                    "the measurement. Remove it from a training job.",
                    [var.evidence],
                    severity=Severity.INFO,
                )
            elif network is not None:
                yield self.finding(
                    f"{said}; with P2P and SHM both off and NCCL_NET={network.value}, every "
                    "transfer goes over the NICs, as a network test wants. Remove them from a "
                    "training job.",
                    [ctx.snapshot.env[name].evidence, network.evidence],
                    severity=Severity.INFO,
                )
            elif (tried := _tried(ctx)) is not None:
                yield self.finding(
                    f"{said}; {_TRIED_SAID}", [var.evidence, tried], severity=Severity.INFO
                )
            elif name == "NCCL_P2P_DISABLE" and (geforce := _geforce_only(ctx)):
                yield self.finding(
                    f"{said}. The GPUs are GeForce cards ({', '.join(geforce)}), which have no "
                    "PCIe peer-to-peer; where a driver wrongly offers it, NCCL hangs without "
                    "this setting (NVIDIA/nccl-tests#117). It costs bandwidth only over an "
                    "NVLink bridge.",
                    [var.evidence],
                    severity=Severity.INFO,
                )
            else:
                yield self.finding(f"{said}.", [ctx.snapshot.env[name].evidence])
        yield from self._p2p_level_local(ctx)

    def _p2p_level_local(self, ctx: CheckContext) -> Iterable[Finding]:
        """NCCL_P2P_LEVEL at 0/LOC never uses P2P; NCCL before 2.6 reads a text level (NVL,
        PIX, ...) with atoi, i.e. as 0 (NVIDIA/nccl#332)."""
        var = ctx.snapshot.env.get("NCCL_P2P_LEVEL")
        if var is None:
            return
        value = var.value.strip().upper()
        tried = _tried(ctx)
        if value in ("0", "LOC") and tried is not None:
            yield self.finding(
                f"NCCL_P2P_LEVEL={var.value} never lets NCCL use peer-to-peer between GPUs of one "
                f"node; {_TRIED_SAID}",
                [var.evidence, tried],
                severity=Severity.INFO,
            )
            return
        if value in ("0", "LOC"):
            why = "never lets NCCL use peer-to-peer between GPUs of one node"
        elif value.isalpha() and any(
            ctx.version_at_least(nccl.version, "2.6") is False
            for nccl in ctx.installations(ComponentName.NCCL)
        ):
            why = "is read as 0 (LOC, no peer-to-peer) by NCCL before 2.6, which takes only numbers"
        else:
            return
        yield self.finding(
            f"NCCL_P2P_LEVEL={var.value} {why}; unset it and NCCL's topology search picks NVLink "
            "or PCIe P2P where the GPUs have it.",
            [var.evidence],
        )


class NcclIbDisabled(Rule):
    id = "SC602"
    name = "nccl-ib-disabled"
    family = "env-vars"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "NCCL_IB_DISABLE=1 keeps NCCL off InfiniBand and RoCE"
    doc = RuleDoc(
        what="Flags NCCL_IB_DISABLE=1 where InfiniBand or RoCE devices exist (info where the "
        "hardware is unknown; nothing on EFA-only or Ethernet-only machines).",
        why="It also turns off RoCE, so NCCL falls back to TCP sockets: a multi-node step went "
        "from 2.5 s to 5.7 s in scottclowe/pytorch-experiment-template#11; logs show "
        "`Using network Socket`.",
        example="NCCL_IB_DISABLE=1 left in a launcher script that moved to an InfiniBand cluster.",
        fix="Unset it on clusters with InfiniBand or RoCE; select interfaces with NCCL_IB_HCA "
        "instead if some NICs must not be used.",
        references=("https://github.com/pytorch/pytorch/issues/111424",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if not _is_true(ctx, "NCCL_IB_DISABLE"):
            return
        present = infiniband_present(ctx)
        if present is False or (present is None and not ctx.snapshot.partial):
            return
        yield self.finding(
            "NCCL_IB_DISABLE=1 keeps NCCL off InfiniBand and RoCE"
            + (
                " on a machine that has them."
                if present
                else "; on such clusters it falls back to TCP sockets."
            ),
            [ctx.snapshot.env["NCCL_IB_DISABLE"].evidence],
            severity=self.severity if present else Severity.INFO,
        )


def _needed(
    ctx: CheckContext, advice: EnvVarAdvice
) -> tuple[bool | None, list[str], list[Evidence]]:
    """Whether the versions in use need the variable; the versions read, and their evidence."""
    seen: list[str] = []
    evidence: list[Evidence] = []
    verdicts: list[bool | None] = []
    for alternative in advice.needed_when:
        holds: bool | None = True
        for component, specifier in alternative.items():
            found = component_versions(ctx, component)
            if not found:
                holds = None if holds is not False else False
                continue
            for version, where in found[:1]:
                seen.append(f"{component} {version}")
                evidence.extend(where)
            if not any(satisfies(v, specifier) for v, _ in found):
                holds = False
        verdicts.append(holds)
    if not advice.needed_when or all(v is False for v in verdicts):
        return False, seen, evidence
    return (True if True in verdicts else None), seen, evidence


class VersionBoundPreset(Rule):
    id = "SC603"
    name = "stale-efa-preset"
    family = "env-vars"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "An EFA preset that the versions in use do not need"
    doc = RuleDoc(
        what="Checks variables from old EFA guides against the versions that needed them "
        "(matrix table `env_var`): NCCL_PROTO=simple and FI_PROVIDER=efa (aws-ofi-nccl <= 1.5.0), "
        "FI_EFA_USE_DEVICE_RDMA=1 (aws-ofi-nccl < 1.7 or libfabric < 1.18), "
        "FI_EFA_SET_CUDA_SYNC_MEMOPS=0 (EFA installer < 1.29.1 with NCCL >= 2.19), "
        "FI_EFA_FORK_SAFE and RDMAV_FORK_SAFE. Versions come from the stack, else from what its "
        "EFA installer bundles.",
        why="Presets copied forward cost performance or do nothing: forcing the Simple protocol "
        "turns off LL/LL128 for every collective; the RDMAV_* fork-safety variables can break "
        "things on newer kernels. Where versions are unknown, only settings that cost something "
        "are reported.",
        example="NCCL_PROTO=simple in a job on a pytorch2.8-cu129 image "
        "(aws/sagemaker-hyperpod-cli#306).",
        fix="Remove the variable from the image, job or launcher; keep it only for the versions "
        "the finding names.",
        references=(
            "https://github.com/aws/aws-ofi-nccl/blob/master/doc/efa-env-var.md",
            "https://github.com/aws-samples/awsome-distributed-training/blob/main/1.architectures/efa-cheatsheet.md",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for advice in ctx.matrix.matrix.env_var:
            var = ctx.snapshot.env.get(advice.name)
            if var is None:
                continue
            if advice.values and var.value.strip().lower() not in (
                v.lower() for v in advice.values
            ):
                continue
            needed, seen, evidence = _needed(ctx, advice)
            if needed:
                continue
            level = advice.severity if needed is False else advice.severity_unknown
            if level is None:
                continue
            versions_read = f" (read: {', '.join(seen)})" if seen else ""
            yield self.finding(
                f"{advice.name}={var.value}: {advice.summary}{versions_read}.",
                [
                    var.evidence,
                    *evidence[:2],
                    Evidence(kind="matrix", source=advice.source, detail=f"env_var {advice.name}"),
                ],
                severity=Severity(level),
            )


class CudaLaunchBlocking(Rule):
    id = "SC604"
    name = "cuda-launch-blocking"
    family = "env-vars"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "CUDA_LAUNCH_BLOCKING=1 serialises every kernel launch"
    doc = RuleDoc(
        what="Flags CUDA_LAUNCH_BLOCKING=1 (PyTorch's error hints suggest it for debugging; the "
        "hint itself is not a setting and is not flagged); an info where the text says the run "
        "is for debugging (`Here is the service launch code for debugging`).",
        why="Every kernel launch waits for the GPU to finish: no overlap of CPU and GPU work, of "
        "compute and communication; training runs several times slower (OpenRLHF/OpenRLHF#46).",
        example="`os.environ['CUDA_LAUNCH_BLOCKING'] = '1'` left in a training script after "
        "debugging.",
        fix="Unset it outside debugging sessions.",
        references=("https://github.com/OpenRLHF/OpenRLHF/issues/46",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if _is_true(ctx, "CUDA_LAUNCH_BLOCKING"):
            # It is a debugging aid: in a run the report says is for debugging it is in its place.
            debugging = ctx.snapshot.observations("debugging-stated")[:1]
            said = "; the text says this run is for debugging: unset it after."
            yield self.finding(
                "CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous"
                + (said if debugging else "."),
                [ctx.snapshot.env["CUDA_LAUNCH_BLOCKING"].evidence]
                + [o.evidence for o in debugging],
                severity=Severity.INFO if debugging else None,
            )


class NcclBlockingWait(Rule):
    id = "SC605"
    name = "nccl-blocking-wait"
    family = "env-vars"
    severity = Severity.WARNING
    title = "Blocking wait makes every collective block the host"
    doc = RuleDoc(
        what="Flags TORCH_NCCL_BLOCKING_WAIT=1 and its old name NCCL_BLOCKING_WAIT=1.",
        why="Each collective then blocks the CPU until it completes, so communication no longer "
        "overlaps with computation: DDP on 4-8 GPUs ran as slow as on one (pytorch/pytorch#50820). "
        "Timeouts work without it through TORCH_NCCL_ASYNC_ERROR_HANDLING (on by default in "
        "recent PyTorch).",
        example="`export NCCL_BLOCKING_WAIT=1` in .bashrc to make NCCL timeouts fire.",
        fix="Unset it; rely on TORCH_NCCL_ASYNC_ERROR_HANDLING and the process group's timeout.",
        references=("https://github.com/pytorch/pytorch/issues/50820",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for name in ("TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT"):
            if _is_true(ctx, name):
                yield self.finding(
                    f"{name}={ctx.snapshot.env_value(name)} makes every NCCL collective block the "
                    "host until it completes.",
                    [ctx.snapshot.env[name].evidence],
                )


class NcclDebugVerbose(Rule):
    id = "SC606"
    name = "nccl-debug-verbose"
    family = "env-vars"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "NCCL logs everything"
    doc = RuleDoc(
        what="Flags NCCL_DEBUG=INFO together with NCCL_DEBUG_SUBSYS=ALL, and NCCL_DEBUG=TRACE "
        "(an info in a network test: NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 with NCCL_NET).",
        why="Every rank logs every operation: gigabytes per hour (10-12 GB per 30 min in "
        "goodfire-ai/spd#889), slower steps and full disks. NCCL_DEBUG=INFO alone, which logs "
        "setup, is fine.",
        example="NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=ALL left in a production job.",
        fix="Use NCCL_DEBUG=WARN in production; when debugging set up, INFO with "
        "NCCL_DEBUG_SUBSYS=INIT,NET.",
        references=("https://github.com/goodfire-ai/spd/issues/889",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        level = (ctx.snapshot.env_value("NCCL_DEBUG") or "").upper()
        subsys = (ctx.snapshot.env_value("NCCL_DEBUG_SUBSYS") or "").upper()
        if level == "TRACE" or (level == "INFO" and "ALL" in subsys.split(",")):
            shown = f"NCCL_DEBUG={level}" + (f" with NCCL_DEBUG_SUBSYS={subsys}" if subsys else "")
            testing = _network_test(ctx) is not None
            yield self.finding(
                f"{shown} logs every operation of every rank"
                + (
                    " (in a network test, as here, on purpose; never in a training job)."
                    if testing
                    else "."
                ),
                [
                    ctx.snapshot.env[n].evidence
                    for n in ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS")
                    if n in ctx.snapshot.env
                ],
                severity=Severity.INFO if testing else None,
            )


class MaxConnectionsWithFsdp(Rule):
    id = "SC607"
    name = "cuda-device-max-connections-fsdp"
    family = "env-vars"
    severity = Severity.WARNING
    title = "CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP"
    doc = RuleDoc(
        what="Flags CUDA_DEVICE_MAX_CONNECTIONS=1 where the job uses FSDP (ACCELERATE_USE_FSDP, "
        "FSDP_* variables, `fsdp` in a container's command, a config's `strategy: fsdp2`, "
        "`fully_shard`, FullyShardedDataParallel, or a report's words naming FSDP).",
        why="Megatron's tensor/sequence parallelism needs one connection to order its kernels; "
        "FSDP needs several, or its reduce-scatter serialises with compute and the overlap that "
        "makes FSDP fast is lost (pytorch/torchtitan#1147, verl-project/verl-omni#421).",
        example="A Megatron-style launcher exporting CUDA_DEVICE_MAX_CONNECTIONS=1 reused for an "
        "FSDP run.",
        fix="Unset it for FSDP jobs (keep it only where Megatron TP/SP needs it).",
        references=("https://github.com/pytorch/torchtitan/issues/1147",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        if (snapshot.env_value("CUDA_DEVICE_MAX_CONNECTIONS") or "").strip() != "1":
            return
        fsdp = [v.evidence for n, v in snapshot.env.items() if n.startswith("FSDP_")]
        if _is_true(ctx, "ACCELERATE_USE_FSDP"):
            fsdp.append(snapshot.env["ACCELERATE_USE_FSDP"].evidence)
        fsdp += [
            e
            for s in snapshot.run_specs
            if "fsdp" in (s.command or "").lower()
            for e in s.evidence[:1]
        ]
        # A config or a sentence naming FSDP (verl's `strategy: fsdp2`, "uses Torch FSDP2").
        fsdp += [o.evidence for o in snapshot.observations("fsdp-named")[:1]]
        if fsdp:
            yield self.finding(
                "CUDA_DEVICE_MAX_CONNECTIONS=1 serialises FSDP's communication with compute.",
                [snapshot.env["CUDA_DEVICE_MAX_CONNECTIONS"].evidence, *fsdp[:1]],
            )


class CompatFirstOnUnsupportedGpu(Rule):
    id = "SC608"
    name = "compat-first-on-unsupported-gpu"
    family = "env-vars"
    severity = Severity.ERROR
    title = "Forward-compat libraries first in LD_LIBRARY_PATH on a GPU that cannot use them"
    doc = RuleDoc(
        what="Flags LD_LIBRARY_PATH whose first entry is a CUDA forward-compatibility directory "
        "(`/usr/local/cuda/compat`, `.../compat/lib.real`) on a GPU that is not a data-center "
        "part, or where CUDA reported error 804.",
        why="The compat libcuda is loaded before the real driver's and CUDA fails to initialise "
        "with error 804 (`forward compatibility was attempted on non supported HW`) on GeForce "
        "and most workstation GPUs (gpustack/gpustack#1254).",
        example="An NGC image's LD_LIBRARY_PATH with /usr/local/cuda/compat/lib first, run on an "
        "RTX 4090.",
        fix="Take the compat directory out of LD_LIBRARY_PATH on such machines, and use an image "
        "whose CUDA the host driver supports natively.",
        references=("https://github.com/gpustack/gpustack/issues/1254",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        var = ctx.snapshot.env.get("LD_LIBRARY_PATH")
        if var is None:
            return
        first = next((p for p in var.value.split(":") if p.strip()), "")
        if "/compat" not in first:
            return
        consumer = [g for g in ctx.gpus if g.known is not None and not g.known.datacenter]
        errors = [o for o in ctx.snapshot.observations("cuda-error") if o.value == "804"]
        if consumer or errors:
            why = f"on {consumer[0].name}" if consumer else "and CUDA reported error 804"
            yield self.finding(
                f"LD_LIBRARY_PATH puts {first} first {why}: CUDA cannot use forward "
                "compatibility there.",
                [
                    var.evidence,
                    *(e for g in consumer[:1] for e in g.evidence[:1]),
                    *(o.evidence for o in errors[:1]),
                ],
            )


class DisableRequiresTypo(Rule):
    id = "SC609"
    name = "nvidia-disable-requires-typo"
    family = "env-vars"
    severity = Severity.WARNING
    title = "NVIDIA_DISABLE_REQUIRES has no effect"
    doc = RuleDoc(
        what="Flags NVIDIA_DISABLE_REQUIRES (plural) without NVIDIA_DISABLE_REQUIRE.",
        why="The NVIDIA container toolkit reads only NVIDIA_DISABLE_REQUIRE (singular, "
        "internal/config/image/cuda_image.go), although its changelog and a maintainer's "
        "comment spell it with an S; with the plural the requirement checks still run.",
        example="`-e NVIDIA_DISABLE_REQUIRES=1` to start a CUDA 12.8 image on a 535 driver.",
        fix="Use NVIDIA_DISABLE_REQUIRE=1 (and prefer a driver that meets the image's "
        "requirement, or forward compatibility on data-center GPUs).",
        references=("https://github.com/NVIDIA/nvidia-container-toolkit/issues/152",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        env = ctx.snapshot.env
        if "NVIDIA_DISABLE_REQUIRES" in env and "NVIDIA_DISABLE_REQUIRE" not in env:
            yield self.finding(
                "NVIDIA_DISABLE_REQUIRES is not a variable the NVIDIA container toolkit reads; "
                "NVIDIA_DISABLE_REQUIRE is.",
                [env["NVIDIA_DISABLE_REQUIRES"].evidence],
            )


class NgcEntrypointBypassed(Rule):
    id = "SC610"
    name = "ngc-entrypoint-bypassed"
    family = "env-vars"
    severity = Severity.INFO
    title = "An NGC image's entrypoint is overridden"
    doc = RuleDoc(
        what="Flags container specs that run an NGC image (nvcr.io/nvidia/...) with their own "
        "entrypoint (`--entrypoint`, a Kubernetes `command:`).",
        why="NGC images set up their environment in /opt/nvidia/nvidia_entrypoint.sh: forward "
        "compatibility on older drivers, LD_LIBRARY_PATH additions, and checks for the driver, "
        "the GPU architecture and /dev/shm. Overriding it skips all of them silently "
        "(NVIDIA/JAX-Toolbox#1589).",
        example='A pod with `command: ["python", "train.py"]` on nvcr.io/nvidia/pytorch:25.01-py3.',
        fix="Put the program in `args:` (Kubernetes) or after the image (docker) so the "
        "entrypoint still runs, or call /opt/nvidia/nvidia_entrypoint.sh first in your command.",
        references=("https://github.com/NVIDIA/JAX-Toolbox/issues/1589",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for spec in ctx.snapshot.run_specs:
            if spec.entrypoint and spec.image and NGC_IMAGE.search(spec.image):
                if "nvidia_entrypoint" in spec.entrypoint:
                    continue
                yield self.finding(
                    f"{spec.image} runs with entrypoint {spec.entrypoint!r}: the NGC entrypoint's "
                    "setup and checks are skipped.",
                    spec.evidence[:2],
                )


class NcclGraphFileSet(Rule):
    id = "SC1311"
    name = "nccl-graph-file-set"
    family = "env-vars"
    severity = Severity.WARNING
    title = "NCCL_GRAPH_FILE replaces NCCL's own search for rings and trees"
    doc = RuleDoc(
        what="Flags NCCL_GRAPH_FILE wherever it is set (environment, image, NCCL's "
        "`set by environment to` log line, which /etc/nccl.conf entries print too). "
        "NCCL_TOPO_FILE, which only describes the machine, is not flagged.",
        why="The file fixes the channels NCCL would otherwise search for, device by device: "
        "written for one machine and GPU count, it makes NCCL fail on another "
        "(`XML Import Channel : dev 1 not found`, NVIDIA/nccl#1240; runs on 2 or 3 of 4 GPUs, "
        "NVIDIA/nccl#1008) or keep a routing a newer NCCL would improve. The NCCL maintainers: "
        "it is a debugging aid and should never be set in production (NVIDIA/nccl#1240, #933).",
        example="NCCL_GRAPH_FILE=/opt/microsoft/ncv4/graph.xml from a VM image's /etc/nccl.conf, "
        "in a job that runs on one GPU.",
        fix="Unset it (and remove it from /etc/nccl.conf); keep NCCL_TOPO_FILE if the platform "
        "needs it. If NCCL's own search picks a poor graph, report it with NCCL_DEBUG=INFO "
        "rather than pinning one.",
        references=(
            "https://github.com/NVIDIA/nccl/issues/1240",
            "https://github.com/NVIDIA/nccl/issues/933",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        var = ctx.snapshot.env.get("NCCL_GRAPH_FILE")
        if var is None or not var.value.strip():
            return
        yield self.finding(
            f"NCCL_GRAPH_FILE={var.value} makes NCCL use channels read from a file instead of "
            "searching them for this machine; a file written for other GPUs or NICs fails or "
            "misroutes. Unset it in production.",
            [var.evidence],
        )


class NcclSettingStatedCause(Rule):
    id = "SC1333"
    name = "nccl-setting-stated-cause"
    family = "env-vars"
    severity = Severity.WARNING
    title = "The report names an NCCL setting as the cause"
    doc = RuleDoc(
        what="Reads a sentence that names an NCCL_* variable as what broke the run: set too "
        "large or too small (`the NCCL_BUFFSIZE variable was set too large`), the cause or the "
        "culprit, or removing it as the fix; not a question or a condition.",
        why="NCCL's defaults are tuned per platform; a size or a transport setting carried from "
        "another machine can make registration or connection fail (NCCL_BUFFSIZE too large: "
        "`ibv_reg_dmabuf_mr failed with error Cannot allocate memory`, vllm-project/vllm#19613), "
        "and the report's own words are then the best evidence of which setting it was.",
        example="A vLLM deployment with NCCL_BUFFSIZE raised far above its 4 MiB default.",
        fix="Unset the variable (or return it to NCCL's default) and keep it out of the job's "
        "environment, the image and /etc/nccl.conf.",
        references=("https://github.com/vllm-project/vllm/issues/19613",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for stated in ctx.snapshot.observations("nccl-setting-stated")[:1]:
            yield self.finding(
                f"The report names {stated.value} as the cause: NCCL's default for it would "
                "have worked.",
                [stated.evidence],
            )


class NcclSocketInterfaceMissing(Rule):
    id = "SC1312"
    name = "nccl-socket-interface-missing"
    family = "env-vars"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "NCCL found no network interface to bootstrap on"
    doc = RuleDoc(
        what="Reads NCCL's `Bootstrap : no socket interface found`, `NET/Socket : no interface "
        "found` and `NET/Socket : No usable listening interface found`, and names "
        "NCCL_SOCKET_IFNAME (or NCCL_COMM_ID) where the text sets it.",
        why="NCCL needs an IP interface for its bootstrap even on one node. With "
        "NCCL_SOCKET_IFNAME set it uses only the interfaces the value matches (a prefix, `=` "
        "for an exact name, `^` to exclude): a name copied from another host or cluster, or one "
        "that does not exist inside the container, matches nothing and communicator setup "
        "fails (marin-community/marin#6940). Without it, NCCL skips lo and docker*, so a "
        "container with no other interface fails the same way. The message alone (no "
        "setting in the text), or with an exclusion pattern (`^...`, which leaves every other "
        "interface to NCCL), is `info`: the fault then lies in the host's or cluster's network "
        "(no routable interface up in the container, a pattern that leaves a non-routable one; "
        "marin-community/marin#7018), not in the GPU stack.",
        example="NCCL_SOCKET_IFNAME=eth2 on hosts whose interfaces are ens5 and lo.",
        fix="Set NCCL_SOCKET_IFNAME to a prefix of the interface that carries the nodes' "
        "addresses (`ip -4 addr`), or unset it; in containers use host networking or pass the "
        "interface.",
        references=(
            "https://github.com/marin-community/marin/issues/6940",
            "https://github.com/NVIDIA/nccl/issues/1837",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        seen = ctx.snapshot.observations("socket-interface-missing")
        if not seen:
            return
        env = ctx.snapshot.env
        named = [(n, env[n]) for n in ("NCCL_SOCKET_IFNAME", "NCCL_COMM_ID") if n in env]
        said = ", ".join(f"{n}={v.value}" for n, v in named)
        # Only a value that names interfaces (not one that excludes them) is a setting at
        # fault; otherwise the host's network is, which is advice here (marin#7018).
        naming = any(not v.value.strip().startswith("^") for _, v in named)
        yield self.finding(
            "NCCL found no network interface to bootstrap on"
            + (
                f" with {said}: the value matches none of this host's interfaces."
                if naming
                else (f" with {said}" if named else "")
                + ": no interface NCCL may use has an address that reaches the other nodes. "
                "Check NCCL_SOCKET_IFNAME where it is set and the interfaces the process "
                "sees (`ip -4 addr`); unset, NCCL skips lo and docker*."
            ),
            [seen[0].evidence, *(v.evidence for _, v in named)],
            severity=None if naming else Severity.INFO,
        )


class NcclProtoLl128Forced(Rule):
    id = "SC1331"
    name = "nccl-proto-ll128-forced"
    family = "env-vars"
    severity = Severity.WARNING
    title = "NCCL_PROTO turns on LL128 by hand"
    doc = RuleDoc(
        what="Flags NCCL_PROTO values that name LL128 (`LL128`, `LL,LL128,Simple`); an exclusion "
        "(`^LL128`) is not flagged.",
        why="NCCL enables LL128 only where the path keeps its 128-byte stores intact (NVLink, "
        "and networks it has checked). Forced elsewhere, over sockets or through the CPU, it can "
        "corrupt data silently: nccl-tests' data check failed at random with LL128 forced over "
        "sockets (NVIDIA/nccl#831, maintainer: LL128 needs many conditions or it corrupts data), "
        "and NCCL 2.18.1's release notes tell HGX H100 users to set NCCL_PROTO=^LL128 where the "
        "Tree path transits the CPU. NCCL's docs list NCCL_PROTO under debugging variables "
        "that should not stay set in production.",
        example="mpirun -x NCCL_PROTO=LL128 -x NCCL_IB_DISABLE=1 all_reduce_perf ...",
        fix="Unset NCCL_PROTO and let NCCL choose; to rule a protocol out while debugging, "
        "exclude it (`NCCL_PROTO=^LL128`).",
        references=(
            "https://github.com/NVIDIA/nccl/issues/831",
            "https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-18-1.html",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        var = ctx.snapshot.env.get("NCCL_PROTO")
        if var is None:
            return
        value = var.value.strip().strip("'\"")
        named = {p.strip().lower() for p in value.split(",")}
        if value.startswith("^") or "ll128" not in named:
            return
        yield self.finding(
            f"NCCL_PROTO={var.value} makes NCCL use LL128 where it would not: on paths that do "
            "not keep its 128-byte stores whole (sockets, traffic through the CPU) it can corrupt "
            "data. Unset it.",
            [var.evidence],
        )
