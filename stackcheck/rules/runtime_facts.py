"""Derived facts the network, runtime and env-var rules share: is EFA meant to be used here, is
it visible, is NCCL in use, which versions of the EFA stack are in play.

Each answer comes with the evidence it rests on, so a finding can show why it applied.
"""

from __future__ import annotations

import re

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.snapshot.model import ComponentName, Evidence, RunSpec

# The EFA health check of aws-samples/awsome-distributed-training warns below 16 GiB of
# locked memory; libfabric's EFA provider documentation asks for unlimited.
MEMLOCK_FLOOR = 16 << 30
DOCKER_DEFAULT_SHM = 64 << 20
# Image names that say a GPU build, and (below) those that name a framework that also runs on
# CPUs: a GPU image is either.
_GPU_BUILD_IMAGE = re.compile(r"cuda|gpu|nvidia|nvcr\.io|vllm|sglang|triton|nemo", re.I)
_GPU_IMAGE = re.compile(rf"{_GPU_BUILD_IMAGE.pattern}|pytorch|tensorflow", re.I)
_DIAGNOSTIC = frozenset(
    [
        "nvidia-smi",
        "nvcc",
        "fi_info",
        "ibv_devinfo",
        "ibv_devices",
        "ls",
        "cat",
        "echo",
        "env",
        "df",
    ]
)


def runtime_evidence(ctx: CheckContext, *words: str) -> list[Evidence]:
    """The runtime evidence that mentions one of ``words`` (in its source or detail)."""
    return [
        e
        for e in ctx.snapshot.runtime.evidence
        if any(w.lower() in f"{e.source} {e.detail or ''}".lower() for w in words)
    ]


def spec_evidence(spec: RunSpec, *words: str) -> list[Evidence]:
    """The lines of a container spec that mention one of ``words``; else its first line."""
    found = [e for e in spec.evidence if any(w.lower() in (e.detail or "").lower() for w in words)]
    return found or spec.evidence[:1]


def efa_hardware(ctx: CheckContext) -> list[Evidence]:
    """Why this machine has EFA: an instance type with EFA interfaces, EFA devices in sysfs."""
    snapshot = ctx.snapshot
    found: list[Evidence] = []
    instance = ctx.matrix.instance(snapshot.instance.type)
    if instance is not None and instance.efa_interfaces > 0:
        found.extend(snapshot.instance.evidence[:1] or [_named(f"instance {instance.type}")])
    if snapshot.runtime.efa_devices:
        found.extend(
            runtime_evidence(ctx, "infiniband", "rdmap", "domain")[:1]
            or [_named(f"EFA devices {', '.join(snapshot.runtime.efa_devices)}")]
        )
    return found


def _named(what: str) -> Evidence:
    return Evidence(kind="matrix", source="stackcheck", detail=what)


def efa_expected(ctx: CheckContext) -> list[Evidence]:
    """Why EFA is meant to carry the traffic here: EFA hardware, EFA settings, a container spec
    asking for EFA, or NCCL's OFI plugin at work; [] when nothing says so. An EFA installer or
    aws-ofi-nccl alone says nothing: DLAMIs and DLCs carry them on every instance type."""
    snapshot = ctx.snapshot
    found = efa_hardware(ctx)
    for spec in snapshot.run_specs:
        if (spec.efa_requested or 0) > 0 or any("/dev/infiniband" in d for d in spec.devices):
            found.extend(spec.evidence[:1])
    for variable, var in snapshot.env.items():
        if (variable == "FI_PROVIDER" and var.value.lower() == "efa") or variable.startswith(
            "FI_EFA_"
        ):
            found.append(var.evidence)
    for observation in snapshot.observations(
        "efa-provider-present", "efa-provider-missing", "libfabric-provider", "gdr-disabled"
    ):
        found.append(observation.evidence)
    for observation in snapshot.observations("net-transport"):
        if "libfabric" in (observation.value or "").lower():
            found.append(observation.evidence)
    return list(dict.fromkeys(found))


def passes_efa(spec: RunSpec) -> bool | None:
    """Whether a run spec gives the container EFA devices; None when the spec does not say."""
    if spec.kind in ("kubernetes", "hyperpod-job"):
        if spec.efa_requested is None:
            return None
        return spec.efa_requested > 0 or spec.privileged
    mounted = [*spec.devices, *spec.volumes]
    return spec.privileged or any("/dev/infiniband" in m for m in mounted)


def efa_invisible(ctx: CheckContext) -> list[Evidence]:
    """Evidence that this process cannot reach the EFA devices; [] when none."""
    snapshot = ctx.snapshot
    # A sentence saying there is no EFA here (efa.ko absent: aws/libfabric#7; fi_info finds none).
    found = [
        o.evidence for o in snapshot.observations("efa-provider-missing", "efa-missing-stated")
    ]
    forced = (snapshot.env_value("FI_PROVIDER") or "efa").lower() != "efa"
    plugin_version = any(i.version for i in ctx.installations(ComponentName.OFI_NCCL))
    for provider in snapshot.observations("libfabric-provider"):
        # A current aws-ofi-nccl only settles for tcp when libfabric offers no EFA provider.
        if not (provider.value or "").startswith("efa") and plugin_version and not forced:
            found.append(provider.evidence)
    if snapshot.runtime.uverbs_devices == [] and efa_hardware(ctx):
        found.extend(runtime_evidence(ctx, "uverbs") or [_named("no /dev/infiniband/uverbs*")])
    return found


def nccl_in_use(ctx: CheckContext) -> bool:
    snapshot = ctx.snapshot
    return bool(
        ctx.installations(ComponentName.NCCL)
        or ctx.torch_cuda_builds
        or any(name.startswith("NCCL_") for name in snapshot.env)
        or snapshot.observations("nccl-loaded", "net-transport", "net-plugin-missing")
    )


def gpu_workload(ctx: CheckContext) -> bool:
    """Whether the stack runs GPU work: GPUs, a CUDA PyTorch, NCCL, or a spec asking for GPUs."""
    return bool(
        ctx.has_nvidia_gpu
        or ctx.torch_cuda_builds
        or nccl_in_use(ctx)
        or any(s.gpus for s in ctx.snapshot.run_specs)
    )


def gpu_image(spec: RunSpec) -> bool:
    return gpu_image_name(spec.image)


def gpu_image_name(image: str | None) -> bool:
    """Whether an image's name says it is built for NVIDIA GPUs (CUDA, NGC, a GPU framework)."""
    return bool(image and _GPU_IMAGE.search(image))


def framework_only_image(image: str | None) -> bool:
    """An image named only for a framework (``pytorch-mnist``, ``tensorflow/tensorflow:2.15``):
    such images also run on CPUs, so the name alone does not say the container needs a GPU."""
    return bool(image and _GPU_IMAGE.search(image) and not _GPU_BUILD_IMAGE.search(image))


def diagnostic_only(spec: RunSpec) -> bool:
    """A container started just to run a diagnostic (``nvidia-smi``, ``fi_info``), as its
    command or its entrypoint (a pod's ``command: ["nvidia-smi", "-L"]``)."""
    words = re.findall(r"[\w./-]+", f"{spec.entrypoint or ''} {spec.command or ''}")
    return any(w.rsplit("/", 1)[-1] in _DIAGNOSTIC for w in words[:4])


def rdma_expected(ctx: CheckContext) -> list[Evidence]:
    """Why RDMA (EFA or InfiniBand/RoCE) is meant to be used; [] when nothing says so."""
    found = efa_expected(ctx)
    runtime = ctx.snapshot.runtime
    infiniband = sorted(set(runtime.rdma_devices or []) - set(runtime.efa_devices or []))
    if infiniband:
        found.extend(
            runtime_evidence(ctx, *infiniband)[:1]
            or [Evidence(kind="file", source="/sys/class/infiniband", detail=", ".join(infiniband))]
        )
    for observation in ctx.snapshot.observations("net-transport"):
        if (observation.value or "") == "IB":
            found.append(observation.evidence)
    found.extend(o.evidence for o in ctx.snapshot.observations("rdma-fabric-stated"))
    return found


def infiniband_present(ctx: CheckContext) -> bool | None:
    """True when non-EFA RDMA devices exist (mlx5: InfiniBand or RoCE); None when unknown."""
    runtime = ctx.snapshot.runtime
    if runtime.rdma_devices is not None:
        return bool(set(runtime.rdma_devices) - set(runtime.efa_devices or []))
    if any(o.value == "IB" for o in ctx.snapshot.observations("net-transport")):
        return True
    if ctx.snapshot.observations("rdma-fabric-stated"):
        return True  # a report's words: the machines have InfiniBand or RoCE
    return None


# An HCA an NCCL_IB_HCA setting selects (not one it excludes with a leading '^'): Mellanox/NVIDIA
# mlx4/mlx5, Broadcom bnxt_re, Intel irdma, Alibaba erdma, Cornelis hfi1.
_HCA_NAMED = re.compile(r"^[^^]{0,400}?\b(?:mlx\d|bnxt_re|irdma|erdma|hfi\d)", re.IGNORECASE)


def infiniband_named(ctx: CheckContext) -> list[Evidence]:
    """NCCL_IB_HCA naming InfiniBand or RoCE HCAs: whoever set it means NCCL to use them."""
    var = ctx.snapshot.env.get("NCCL_IB_HCA")
    if var is None or not _HCA_NAMED.search(var.value):
        return []
    return [var.evidence]


def component_versions(ctx: CheckContext, component: str) -> list[tuple[str, list[Evidence]]]:
    """Versions of ``ofi-nccl``, ``libfabric``, ``efa-installer`` or ``nccl`` in use, each with
    where it was read; the EFA installer's bundled versions (matrix) stand in when the snapshot
    has no version of its own."""
    name = ComponentName(component)
    found = [(i.version, i.evidence[:1]) for i in ctx.installations(name) if i.version]
    if name is ComponentName.NCCL:
        found += [
            (o.value, [o.evidence]) for o in ctx.snapshot.observations("nccl-loaded") if o.value
        ]
    if found or name not in (ComponentName.OFI_NCCL, ComponentName.LIBFABRIC):
        return [(v, e) for v, e in found if v]
    for installer in ctx.installations(ComponentName.EFA_INSTALLER):
        entry = ctx.matrix.efa_installer(installer.version)
        if entry is None:
            continue
        bundled = getattr(entry, name.value.replace("-", "_"))
        if bundled:
            source = Evidence(
                kind="matrix",
                source=entry.source,
                detail=f"EFA installer {entry.version} bundles {name.display_name} {bundled}",
            )
            found.append((bundled, [*installer.evidence[:1], source]))
    return found


def satisfies(version: str, specifier: str) -> bool | None:
    parsed = versions.parse(version)
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return None
    return None if parsed is None else spec.contains(parsed, prereleases=True)
