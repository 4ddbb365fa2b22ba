"""Family ``gpu-visibility``: does the process get the GPUs it is meant to use?"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import gpu_image, spec_evidence
from stackcheck.snapshot.model import ComponentName, Observation


def parallelism(command: str | None) -> int | None:
    """GPUs a command asks for: vLLM's tensor x pipeline parallel size, torchrun's processes."""
    if not command:
        return None

    def option(*names: str) -> int | None:
        for name in names:
            found = re.search(rf"{name}[= ]{{1,4}}(\d{{1,4}})\b", command)
            if found is not None:
                return int(found.group(1))
        return None

    tensor = option("--tensor-parallel-size", "--tp-size", "--tensor_parallel_size")
    if tensor is not None:
        return tensor * (option("--pipeline-parallel-size", "--pp-size") or 1)
    return option("--nproc_per_node", "--nproc-per-node")


class ContainerWithoutGpus(Rule):
    id = "SC531"
    name = "container-without-gpus"
    family = "gpu-visibility"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "A GPU container is started without a GPU request"
    doc = RuleDoc(
        what="Checks `docker run` lines and compose services that run a GPU image (or on a "
        "machine with GPUs, or where a process of the report looked for a GPU and found none) "
        "for a GPU request: `--gpus`, `--runtime=nvidia`, `nvidia-docker`, "
        "`NVIDIA_VISIBLE_DEVICES`, or a compose `deploy.resources.reservations.devices` entry "
        "with `count` or `device_ids` (one with neither requests zero GPUs); "
        "Kubernetes containers that run a GPU image (or whose process found no GPU) for an "
        "`nvidia.com/gpu` limit. "
        "Where the text only says the process ran in a container and saw no GPU, without the "
        "command that started it, a warning names the likely cause; so does a sentence that "
        "names a GPU request as what was missing or as the fix.",
        why="Without one, the NVIDIA container toolkit injects no GPU and no driver: nvidia-smi "
        "is missing and `torch.cuda.is_available()` is False, unless the daemon's default "
        "runtime happens to be nvidia.",
        example="`docker run -it anibali/pytorch:1.4.0-cuda10.1 sh` (anibali/docker-pytorch#27).",
        fix="Add `--gpus all` (Docker 19.03+ with the NVIDIA container toolkit), or `--runtime "
        "nvidia` on older setups; in compose, a device reservation with `capabilities: [gpu]`.",
        references=("https://github.com/anibali/docker-pytorch/issues/27",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        unavailable = ctx.snapshot.observations("no-gpu", "cuda-unavailable")
        for spec in ctx.snapshot.run_specs:
            if spec.kind not in ("docker-run", "compose", "kubernetes") or spec.gpus is not None:
                continue
            # A process of the report that looked for a GPU shows the container was meant to
            # have one, whatever its image is called. A pod's other containers (sidecars, init)
            # need none: there only a GPU image or a process that found none says so.
            host = ctx.has_nvidia_gpu or bool(ctx.torch_cuda_builds)
            if not (gpu_image(spec) or unavailable or (host and spec.kind != "kubernetes")):
                continue
            unless = (
                "a pod gets no GPU without an `nvidia.com/gpu` limit (or, where the node's default "
                "runtime is nvidia, every GPU, outside the scheduler's count)"
                if spec.kind == "kubernetes"
                else "the container sees none unless the daemon's default runtime is nvidia"
            )
            yield self.finding(
                f"The {spec.kind} spec for {spec.image or 'the container'} requests no GPU: "
                + unless
                + (", and the report shows it saw none." if unavailable else "."),
                [*spec.evidence[:1], *(o.evidence for o in unavailable[:1])],
                severity=Severity.ERROR if unavailable else Severity.WARNING,
            )
        for spec in ctx.snapshot.run_specs:
            if spec.kind == "compose" and spec.gpu_count == 0 and spec.gpus:
                yield self.finding(
                    f"The compose spec for {spec.image or 'the container'} reserves GPUs without "
                    f"`count` or `device_ids` ({spec.gpus}): Docker Compose has passed that as "
                    "a request for zero GPUs (docker/docs#20588, though its docs say all), so the "
                    "container may get none; add `count: all`"
                    + (", and the report shows it saw none." if unavailable else "."),
                    spec_evidence(spec, "capabilities", "driver")[:2],
                    severity=Severity.ERROR if unavailable else Severity.WARNING,
                )
        yield from self._unshown_container(ctx, unavailable)
        stated = ctx.snapshot.observations("gpu-request-stated")
        if stated:
            yield self.finding(
                f"The report says the container lacked a GPU request ({stated[0].value}): without "
                "one it sees no GPU.",
                [stated[0].evidence, *(o.evidence for o in unavailable[:1])],
                severity=Severity.WARNING,
            )

    def _unshown_container(
        self, ctx: CheckContext, unavailable: list[Observation]
    ) -> Iterable[Finding]:
        """A process in a container saw no GPU, and the text does not show how the container
        was started: the missing GPU request is the likely cause, unless the text shows
        another (a CPU-only PyTorch, a driver too old for it)."""
        snapshot = ctx.snapshot
        if not (unavailable and snapshot.platform.container) or snapshot.run_specs:
            return
        cpu_only = any(
            t.properties.get("cpu_only") == "yes" for t in ctx.installations(ComponentName.TORCH)
        )
        if cpu_only or snapshot.observations("torch-cpu-only", "driver-insufficient"):
            return
        said = [
            e
            for e in snapshot.platform.evidence
            if re.search(r"container|docker|podman", e.detail or "", re.IGNORECASE)
        ] or snapshot.platform.evidence
        yield self.finding(
            "The process ran in a container and saw no GPU: the container was likely started "
            "without a GPU request (`--gpus all`, the nvidia runtime).",
            [*said[:1], *(o.evidence for o in unavailable[:1])],
            severity=Severity.WARNING,
        )


class NoGpuVisible(Rule):
    id = "SC532"
    name = "no-gpu-visible"
    family = "gpu-visibility"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "The process sees no GPU or no NVIDIA driver"
    doc = RuleDoc(
        what="Reads the messages of a process that found no GPU: `no CUDA-capable device is "
        "detected`, `CUDA_ERROR_NO_DEVICE`, `/proc/driver/nvidia/version does not exist`, "
        "`Found no NVIDIA driver on your system`, `nvidia-smi: command not found`. Where the "
        "report says the machine has no GPU or the program should run on the CPU, and shows "
        "no GPU, driver or container, it is advice (info) to give the program a CPU path.",
        why="Nothing GPU-related can work. In a container this means the GPUs and driver were "
        "not injected (no `--gpus`, no NVIDIA runtime, `NVIDIA_VISIBLE_DEVICES=void`); on a host "
        "that the driver is not loaded.",
        example="`failed call to cuInit: CUDA_ERROR_NO_DEVICE` and `kernel driver does not appear "
        "to be running on this host (16c54693e7f2)` inside a container (tensorflow#44869).",
        fix="Start the container with `--gpus all` through the NVIDIA container toolkit; on a "
        "host, check that the nvidia kernel module is loaded (`nvidia-smi`).",
        references=("https://github.com/tensorflow/tensorflow/issues/44869",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        seen = ctx.snapshot.observations("no-gpu")
        if not seen:
            return
        said = "; ".join(dict.fromkeys((o.value or "")[:80] for o in seen[:2]))
        cpu = ctx.snapshot.observations("cpu-intended")
        snapshot = ctx.snapshot
        # The reporter says the machine has no GPU and nothing in the text shows one, a driver
        # or a container that should pass one: the program, not the stack, needs a CPU path.
        # A GPU on the PCIe bus (lspci) counts too: a VM with one passed through is not GPU-less.
        on_bus = any(d.kind == "gpu" for d in snapshot.hardware.devices)
        if cpu and not (
            ctx.has_nvidia_gpu or on_bus or snapshot.platform.container or snapshot.run_specs
        ):
            yield self.finding(
                f"The process found no GPU or no NVIDIA driver ({said}), and the report says the "
                "machine has none or the program should run on the CPU: the program needs a CPU "
                "path (e.g. `torch.cuda.is_available()` before `.cuda()`).",
                [*(o.evidence for o in seen[:2]), cpu[0].evidence],
                severity=Severity.INFO,
            )
            return
        yield self.finding(
            f"The process found no GPU or no NVIDIA driver: {said}.",
            [o.evidence for o in seen[:3]],
        )


class FewerGpusThanParallelism(Rule):
    id = "SC533"
    name = "fewer-gpus-than-parallelism"
    family = "gpu-visibility"
    severity = Severity.ERROR
    title = "The container gets fewer GPUs than its command needs"
    doc = RuleDoc(
        what="Compares the GPUs a container spec exposes (`--gpus`, `device_ids`, `count`, "
        "`nvidia.com/gpu`, `CUDA_VISIBLE_DEVICES`) with what its command asks for "
        "(`--tensor-parallel-size` x `--pipeline-parallel-size`, `--nproc_per_node`).",
        why="The job cannot start: vLLM refuses a tensor-parallel size larger than the visible "
        "GPUs, torchrun ranks collide on one device.",
        example="A compose service with `device_ids: ['0']` and `CUDA_VISIBLE_DEVICES=0` running "
        "`--tensor-parallel-size 4` (vllm-project/vllm#3416).",
        fix="Expose as many GPUs as the command uses (`device_ids: ['0','1','2','3']` or `count: "
        "4`, and drop or widen CUDA_VISIBLE_DEVICES), or lower the parallel size.",
        references=("https://github.com/vllm-project/vllm/issues/3416",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for spec in ctx.snapshot.run_specs:
            wanted = parallelism(spec.command)
            if spec.gpu_count is None or wanted is None or wanted <= spec.gpu_count:
                continue
            yield self.finding(
                f"The {spec.kind} spec exposes {spec.gpu_count} GPU(s) but its command asks for "
                f"{wanted}.",
                spec_evidence(spec, "gpu", "device", "visible", "count", "parallel", "nproc")[:4],
            )
