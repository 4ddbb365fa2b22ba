"""Family ``gpu-visibility``: does the process get the GPUs it is meant to use?"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import (
    framework_only_image,
    gpu_image,
    gpu_image_name,
    spec_evidence,
)
from stackcheck.snapshot.model import (
    UNCOUNTED_RESERVATION,
    ComponentName,
    Evidence,
    Observation,
    RunSpec,
)


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
    lowest = Severity.INFO
    title = "A GPU container is started without a GPU request"
    doc = RuleDoc(
        what="Checks `docker run` lines and compose services that run a GPU image (or on a "
        "machine with GPUs, or where a process of the report looked for a GPU and found none) "
        "for a GPU request: `--gpus`, `--runtime=nvidia`, `nvidia-docker`, a CDI device "
        "(`--device nvidia.com/gpu=all`, podman and Docker 25+), "
        "`NVIDIA_VISIBLE_DEVICES`, or a compose `deploy.resources.reservations.devices` entry "
        "with `count` or `device_ids` (one with neither requests zero GPUs); "
        "Kubernetes containers that run a GPU image (or whose process found no GPU) for an "
        "`nvidia.com/gpu` limit (or a MIG instance's `nvidia.com/mig-1g.10gb`, a shared GPU's "
        "`nvidia.com/gpu.shared`); a pod whose image names only a framework "
        "(`pytorch-mnist`, no CUDA or GPU tag) and whose process saw no lack of a GPU is "
        "info: such examples also run on CPUs. "
        "Where the text only says the process ran in a container and saw no GPU, without the "
        "command that started it, a warning names the likely cause (not where only the "
        "container toolkit's own hook failed: it runs only for a container given GPUs); so "
        "does a sentence that "
        "names a GPU request as what was missing or as the fix (advice where the report says "
        "the program should run on the CPU: the container was left without GPUs on purpose). "
        "A compose GPU reservation run "
        "by podman-compose older than 1.2.0 (or of no stated version) is a warning: it ignores "
        "the reservation, and so is one beside docker-compose 1.x's warning that it ignores "
        "the `deploy` key; a compose tool refusing `devices` under `deploy.resources` "
        "(docker-compose before 1.28, `docker stack deploy`) is a GPU request missing. "
        "A Singularity or Apptainer command without `--nv` or `--nvccli` is a GPU request "
        "missing too (an error where a process then saw no GPU, a warning for a GPU image). So "
        "is a containerd config that defines an NVIDIA runtime without making it the CRI "
        "plugin's `default_runtime_name` (pods then need `runtimeClassName: nvidia`; a warning, "
        "not where a pod of the text names that class). So "
        "is `NVIDIA_DRIVER_CAPABILITIES` set without "
        "`NVIDIA_VISIBLE_DEVICES` or `--gpus` where a process then missed a driver library "
        "(FFmpeg's `Cannot load libnvcuvid.so.1`, libcuda): the runtime injects nothing without "
        "the device list.",
        why="Without one, the NVIDIA container toolkit injects no GPU and no driver: nvidia-smi "
        "is missing and `torch.cuda.is_available()` is False, unless the daemon's default "
        "runtime happens to be nvidia.",
        example="`docker run -it anibali/pytorch:1.4.0-cuda10.1 sh` (anibali/docker-pytorch#27).",
        fix="Add `--gpus all` (Docker 19.03+ with the NVIDIA container toolkit), or `--runtime "
        "nvidia` on older setups; in compose, a device reservation with `capabilities: [gpu]` "
        "(Docker Compose 1.28+, podman-compose 1.2.0+; or a CDI name under `devices:`); with "
        "the nvidia runtime alone, `NVIDIA_VISIBLE_DEVICES=all` beside any "
        "`NVIDIA_DRIVER_CAPABILITIES`.",
        references=("https://github.com/anibali/docker-pytorch/issues/27",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        unavailable = ctx.snapshot.observations(
            "no-gpu", "cuda-unavailable", "no-gpu-probed", "no-gpu-banner"
        )
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
                severity=Severity.ERROR
                if unavailable
                else Severity.INFO
                if spec.kind == "kubernetes" and framework_only_image(spec.image)
                else Severity.WARNING,
            )
        for spec in ctx.snapshot.run_specs:
            if spec.kind == "compose" and (spec.gpus or "").endswith(UNCOUNTED_RESERVATION):
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
        yield from self._podman_compose_reservation(ctx, unavailable)
        yield from self._capabilities_without_devices(ctx, unavailable)
        yield from self._singularity_without_nv(ctx, unavailable)
        yield from self._nvidia_runtime_not_default(ctx, unavailable)
        stated = ctx.snapshot.observations("gpu-request-stated")
        cpu = ctx.snapshot.observations("cpu-intended")
        if stated and cpu:
            # The container was left without GPUs on purpose: the report says the program is
            # meant to run on the CPU, so what asks for CUDA there is the program's setting.
            yield self.finding(
                f"The report says the container lacked a GPU request ({stated[0].value}), and "
                f"that the program should run on the CPU ({(cpu[0].value or '')[:60]}): without "
                "a request the container sees no GPU, so the program needs its CPU setting "
                "(a `cpu` device) there, or the container a GPU request.",
                [stated[0].evidence, cpu[0].evidence, *(o.evidence for o in unavailable[:1])],
                severity=Severity.INFO,
            )
        elif stated:
            yield self.finding(
                f"The report says the container lacked a GPU request ({stated[0].value}): without "
                "one it sees no GPU.",
                [stated[0].evidence, *(o.evidence for o in unavailable[:1])],
                severity=Severity.WARNING,
            )

    def _podman_compose_reservation(
        self, ctx: CheckContext, unavailable: list[Observation]
    ) -> Iterable[Finding]:
        """A compose file's GPU reservation run by a tool that ignores it: podman-compose before
        1.2.0 translated no `deploy.resources.reservations.devices` entry
        (containers/podman-compose#919), and 1.2.0 passes each as a CDI device (`--device
        nvidia.com/gpu=...`, which needs `nvidia-ctk cdi generate` on the host); docker-compose
        1.x said so itself ("use the 'deploy' key, which will be ignored") before 1.28.0."""
        named = ctx.snapshot.observations("podman-compose-named")
        shown = [v for o in named if (v := o.value or "") and v[0].isdigit()]
        if shown and all(ctx.version_at_least(v, _PODMAN_COMPOSE_GPU) for v in shown):
            named = []
        ignored = ctx.snapshot.observations("compose-deploy-ignored")
        if not (named or ignored):
            return
        version = f" {shown[0]}" if shown else ""
        why = (
            f"runs under podman-compose{version}: podman-compose before {_PODMAN_COMPOSE_GPU} "
            "ignores `deploy.resources.reservations.devices`, so the container gets no GPU; use "
            "podman-compose 1.2.0+ (it passes the reservation as CDI devices "
            "`nvidia.com/gpu=...`, which need `nvidia-ctk cdi generate` on the host) or name the "
            "CDI device under `devices:`"
            if named
            else "docker-compose said it ignores the `deploy` key (1.x before 1.28.0 knows no "
            "GPU reservation), so the container gets no GPU; use Docker Compose 1.28+ or v2 "
            "(`docker compose`), or `runtime: nvidia`"
        )
        for spec in ctx.snapshot.run_specs:
            if spec.kind != "compose" or not _reserved(spec):
                continue
            yield self.finding(
                f"The compose spec for {spec.image or 'the container'} reserves GPUs "
                f"({spec.gpus}) and {why}"
                + (", and the report shows it saw none." if unavailable else "."),
                [
                    *spec_evidence(spec, "capabilities", "driver", "count", "device_ids")[:2],
                    (named or ignored)[0].evidence,
                ],
                severity=Severity.ERROR if unavailable else Severity.WARNING,
            )

    def _capabilities_without_devices(
        self, ctx: CheckContext, unavailable: list[Observation]
    ) -> Iterable[Finding]:
        """NVIDIA_DRIVER_CAPABILITIES set without NVIDIA_VISIBLE_DEVICES and no `--gpus`: the
        container toolkit's hook (legacy mode: nvidia-container-runtime, nvidia-docker2) injects
        nothing unless NVIDIA_VISIBLE_DEVICES names GPUs; the nvidia/cuda images set it in their
        ENV, other images do not, so the capabilities alone mount no driver library
        (NVIDIA/nvidia-docker#766). Said only where a process then missed the driver."""
        env = ctx.snapshot.env
        capabilities = env.get("NVIDIA_DRIVER_CAPABILITIES")
        if capabilities is None or "NVIDIA_VISIBLE_DEVICES" in env:
            return
        if any(_gpu_flag(s) for s in ctx.snapshot.run_specs):
            return  # `--gpus`, a reservation or a CDI device names the GPUs itself; the legacy
            # runtime flag (`--runtime=nvidia`, `nvidia-docker`) does not
        missed = [
            o
            for o in ctx.snapshot.observations("library-missing")
            if _DRIVER_LIBRARY.match(o.value or "")
        ] + unavailable
        if not missed or all(_toolkit_hook(o) for o in missed):
            return  # the toolkit's hook runs only for a container given devices: they were named
        yield self.finding(
            f"NVIDIA_DRIVER_CAPABILITIES={capabilities.value} is set but NVIDIA_VISIBLE_DEVICES "
            "is not, and no `--gpus` request is shown: the NVIDIA runtime injects no GPU and no "
            "driver library unless NVIDIA_VISIBLE_DEVICES names GPUs (images built from "
            "nvidia/cuda set it; others do not), and the process then missed the driver "
            f"({missed[0].value}). Add `-e NVIDIA_VISIBLE_DEVICES=all` or `--gpus all`.",
            [capabilities.evidence, missed[0].evidence],
            severity=Severity.WARNING,
        )

    def _singularity_without_nv(
        self, ctx: CheckContext, unavailable: list[Observation]
    ) -> Iterable[Finding]:
        """A Singularity/Apptainer container started without `--nv` or `--nvccli`: neither tool
        binds an NVIDIA device or driver library without one (apptainer's launcher runs its GPU
        setup only under those flags). An error where a process then saw no GPU, a warning where
        the image is a GPU one; not where the text also shows a run with the flag (the fix, or
        another run) or sets APPTAINER_NV / SINGULARITY_NV."""
        started = ctx.snapshot.observations("singularity-without-nv")
        if not started or any(
            re.match(r"(?:singularity|apptainer)\s", o.value or "")
            for o in ctx.snapshot.observations("gpu-implied")
        ):
            return
        if any(name in ctx.snapshot.env for name in ("APPTAINER_NV", "SINGULARITY_NV")):
            return
        image = (started[0].value or "").rsplit(" ", 1)[-1]
        if not (unavailable or gpu_image_name(image)):
            return
        yield self.finding(
            f"`{started[0].value}` starts the container without `--nv` (or `--nvccli`): "
            "Singularity and Apptainer bind no NVIDIA device or driver library into it without "
            "one, so CUDA inside sees no GPU"
            + (", and the report shows it saw none." if unavailable else ".")
            + " Add `--nv` (`singularity exec --nv IMAGE ...`).",
            [started[0].evidence, *(o.evidence for o in unavailable[:1])],
            severity=Severity.ERROR if unavailable else Severity.WARNING,
        )

    def _nvidia_runtime_not_default(
        self, ctx: CheckContext, unavailable: list[Observation]
    ) -> Iterable[Finding]:
        """containerd's config defines an NVIDIA runtime but keeps another as the CRI plugin's
        default: a pod that names no `runtimeClassName: nvidia` runs under runc, which injects
        no GPU or driver library even where the device plugin allots it one. Not where a pod of
        the text names an NVIDIA RuntimeClass."""
        config = ctx.snapshot.observations("nvidia-runtime-not-default")
        if not config or any(
            "nvidia" in (s.runtime or "") for s in ctx.snapshot.run_specs if s.kind == "kubernetes"
        ):
            return
        yield self.finding(
            f"The containerd config defines an NVIDIA runtime but not as the default "
            f"({config[0].value}): a pod that names no `runtimeClassName: nvidia` runs under "
            "runc and gets no GPU or driver library"
            + (", and the report shows a process that saw none." if unavailable else ".")
            + ' Set `default_runtime_name = "nvidia"` (`nvidia-ctk runtime configure '
            "--runtime=containerd --set-as-default`) or give GPU pods the nvidia RuntimeClass.",
            [config[0].evidence, *(o.evidence for o in unavailable[:1])],
            severity=Severity.ERROR if unavailable else Severity.WARNING,
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
        if all(_toolkit_hook(o) or (o.value or "").startswith(_HOST_SIDE) for o in unavailable):
            # The toolkit's hook runs only for a container given GPUs: one was asked for; a
            # host without its nvidia_uvm module or device nodes gives none to any container.
            return
        cpu_only = any(
            t.properties.get("cpu_only") == "yes" for t in ctx.installations(ComponentName.TORCH)
        )
        # nvidia-smi said to work there: the GPUs were passed in, the cause lies elsewhere.
        if cpu_only or snapshot.observations(
            "torch-cpu-only", "driver-insufficient", "smi-works-stated"
        ):
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


# A library of the NVIDIA driver (what the container toolkit mounts), not the CUDA toolkit's.
_DRIVER_LIBRARY = re.compile(r"lib(?:cuda|nvcuvid|nvidia-[\w-]{1,40})\.so")

# podman-compose 1.2.0 (2024-06-26): "Added support for enabling GPU access" (its
# docs/Changelog-1.2.0.md)
_PODMAN_COMPOSE_GPU = "1.2.0"


def _reserved(spec: RunSpec) -> bool:
    """Whether a compose service asks for GPUs through a `deploy` device reservation (not the
    `runtime: nvidia` key, a CDI name under `devices:` or Compose's `gpus:` short form)."""
    gpus = spec.gpus or ""
    return gpus.startswith(("capabilities", "driver", "count", "device_ids"))


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
        "report says the machine has no GPU (or has none by design: a cluster's CPU nodes, a "
        "build service, hosted CI) or the program should run on the CPU, and shows "
        "no GPU, driver or container, it is advice (info) to give the program a CPU path; so "
        "it is where the container toolkit's own hook found no driver on such a host (a "
        "scheduler that starts a GPU image on a CPU instance). Where CUDA_VISIBLE_DEVICES is "
        "empty or `-1` (it hides every GPU) the message follows from it: a warning naming it, "
        "advice where the report says the program should run on the CPU. A "
        "probe's warning alone (PyTorch's `CUDA initialization: Found no NVIDIA driver`, "
        "TensorFlow's `Could not find cuda drivers on your machine`: the program went on without "
        "a GPU) is info where no GPU, driver or container is shown. An image's start-up banner "
        "(NGC's `The NVIDIA Driver was not detected`) in a container the text shows started "
        "with a GPU request is info (the banner's check misfires on WSL2), and so is Docker's "
        "`Unknown runtime specified nvidia` on Docker 19.03 where no `--gpus` request is shown "
        "(the legacy runtime flag; `--gpus all` needs no registered runtime). A message any "
        "machine without an NVIDIA GPU prints (`Found no NVIDIA driver`, nvidia-smi failing or "
        "missing) is an error only where the text shows the GPU was meant to be visible: a GPU "
        "or driver shown, a GPU instance type, a container or a GPU request, or a message only "
        "such a machine prints (NVML's `Unknown Error`, the container toolkit's errors, "
        "`No CUDA GPUs are available`); with none of these it is a warning (a CPU node or a CI "
        "runner prints the same), and info on a hosted notebook (Colab, Kaggle), whose "
        "runtime has no GPU until one is chosen. After NVRM's `RmInitAdapter failed` where "
        "the report names the firmware's Above 4G Decoding or Resizable BAR, it is advice to "
        "enable them (a platform setting, not the stack). On a Windows Insider preview build "
        "(`Microsoft Windows [Version 10.0.21343.1000]`, a build no release carries, or one "
        "named so) it is advice: GPU support for WSL2 broke in known preview builds. Where a "
        "scheduler gave the task no GPU it did not ask for (a Ray task or actor without "
        "`num_gpus`, whose worker Ray gives an empty CUDA_VISIBLE_DEVICES) it is advice to "
        "request one. WSL 1 (its `4.4.0-<build>-Microsoft` kernel, `wsl -l -v`'s version 1), "
        "which gives Linux no GPU, is read as such a message where a process found no GPU or "
        "the text shows a GPU or driver. Open MPI's notice that it found no libcuda and "
        "disabled CUDA-aware support (the libcuda paths it lists under it are part of the "
        "notice), with nothing else failing, is advice (what a CUDA-built Open MPI prints on "
        "every node without a GPU), a warning where the text shows a GPU or driver.",
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
        probed = ctx.snapshot.observations("no-gpu-probed")
        notices = ctx.snapshot.observations("mpi-cuda-optional")
        failed = [
            o
            for o in ctx.snapshot.observations("no-gpu")
            if not _probe_wrapped(o, probed) and not _in_notice(o, notices)
        ]
        # A banner or a legacy flag's refusal that the text itself explains is advice; where
        # nothing explains it, it counts as a process that found no GPU.
        for refused, explained in (
            (ctx.snapshot.observations("no-gpu-banner"), _banner_despite_request(ctx)),
            (ctx.snapshot.observations("nvidia-runtime-unknown"), _legacy_runtime_flag(ctx)),
        ):
            advice = list(explained)
            for said, evidence in advice:
                yield self.finding(said, evidence, severity=Severity.INFO)
            if not advice:
                failed += refused
        # WSL 1 gives Linux no GPU: the cause where a process found none or a GPU is shown; alone
        # (a report about something else run under WSL 1) it says nothing of a GPU.
        wsl1 = ctx.snapshot.observations("wsl-version-1")
        if wsl1 and (failed or probed or ctx.has_nvidia_gpu or ctx.driver_shown is not None):
            failed = wsl1[:1] + failed
        seen = failed or probed
        if not seen:
            yield from self._cuda_aware_off(ctx, notices)
            return
        firmware = ctx.snapshot.observations("firmware-bar-off")
        if firmware and ctx.snapshot.observations("gpu-init-failed"):
            # The driver found the GPU and could not map it: the firmware setting the report
            # names, not a container or a missing driver.
            yield self.finding(
                f"The process found no GPU ({(seen[0].value or '')[:80]}) after the driver "
                "failed to initialise one, and the report names the firmware's "
                f"{(firmware[0].value or '')[:40]}: enable Above 4G Decoding and Resizable BAR "
                "in the BIOS.",
                [seen[0].evidence, firmware[0].evidence],
                severity=Severity.INFO,
            )
            return
        said = "; ".join(dict.fromkeys((o.value or "")[:80] for o in seen[:2]))
        preview = ctx.snapshot.observations("windows-preview-build")
        if preview:
            # GPU paravirtualisation for WSL2 broke in known Insider builds (microsoft/WSL#6617,
            # #6773): on a preview build the missing GPU is likely the build's, not the stack's.
            yield self.finding(
                f"The process found no GPU ({said}) on a Windows Insider preview build "
                f"({(preview[0].value or '')[:60]}), whose GPU support for WSL2 has broken in "
                "known builds: check the build's known issues, or move to the next build or a "
                "release, before the driver or the CUDA install.",
                [seen[0].evidence, preview[0].evidence],
                severity=Severity.INFO,
            )
            return
        snapshot = ctx.snapshot
        # The reporter says the machine has no GPU and nothing in the text shows one, a driver
        # or a container that should pass one: the program, not the stack, needs a CPU path.
        # A GPU on the PCIe bus (lspci) counts too: a VM with one passed through is not GPU-less.
        on_bus = any(d.kind == "gpu" for d in snapshot.hardware.devices)
        held = ctx.has_nvidia_gpu or on_bus or ctx.driver_shown is not None
        asked = bool(snapshot.platform.container or snapshot.run_specs)
        yield self._no_gpu_finding(ctx, failed, seen, said, held, asked)

    def _cuda_aware_off(self, ctx: CheckContext, notices: list[Observation]) -> Iterable[Finding]:
        """Open MPI's notice that it found no libcuda and left CUDA-aware support off, with nothing
        else failing: what a CUDA-built Open MPI prints on every node without a GPU; a warning
        only where the text shows a GPU or driver on the machine (GPU buffers then fail in MPI)."""
        if not notices:
            return
        held = ctx.has_nvidia_gpu or ctx.driver_shown is not None
        yield self.finding(
            f"{notices[0].value}. "
            + (
                "The report shows an NVIDIA GPU or driver here, so libcuda is not on the "
                "process's library path: MPI calls on GPU buffers fail; add the driver's library "
                "directory to LD_LIBRARY_PATH."
                if held
                else "Expected on a node without a GPU (a CUDA-built Open MPI prints it on every "
                "such node; `--mca opal_warn_on_missing_libcuda 0` or `mpi_cuda_support 0` "
                "silences it); on a GPU node, the driver's libcuda is not on the library path."
            ),
            [o.evidence for o in notices[:1]],
            severity=Severity.WARNING if held else Severity.INFO,
        )

    def _no_gpu_finding(
        self,
        ctx: CheckContext,
        failed: list[Observation],
        seen: list[Observation],
        said: str,
        held: bool,
        asked: bool,
    ) -> Finding:
        """How sure the text makes the fault: an error needs a sign that an NVIDIA GPU was meant
        to be visible; what every machine without one prints is a warning alone, and advice
        where the program only asked, the report says the machine has none, or it ran on a
        hosted notebook."""
        cpu = ctx.snapshot.observations("cpu-intended")
        hosted = ctx.snapshot.observations("notebook-hosted")
        shown = held or asked
        meant = shown or _gpu_meant(ctx)
        # Nothing shows a GPU here, and no container was asked for one, or the toolkit's hook
        # found none on the host itself (a GPU request does not put a GPU in a machine).
        gpu_less = not held and (not asked or _host_refused(failed))
        evidence = [o.evidence for o in seen[:2]]
        unrequested = ctx.snapshot.observations("gpu-unrequested")
        if unrequested and not any(_toolkit_hook(o) for o in seen):
            # The scheduler hid the GPUs from a task that asked for none (Ray sets an empty
            # CUDA_VISIBLE_DEVICES in such a worker): the program's request, not the stack; read
            # before the empty CUDA_VISIBLE_DEVICES, which is then the scheduler's, not the user's.
            return self.finding(
                f"The process found no GPU ({said}), and {unrequested[0].value}: the scheduler "
                "gives a task only the GPUs it requests and hides the rest. Request them "
                "(`@ray.remote(num_gpus=1)`, the scheduler's GPU resource) where the task "
                "needs a GPU.",
                [*evidence, unrequested[0].evidence],
                severity=Severity.INFO,
            )
        hidden = ctx.snapshot.env.get("CUDA_VISIBLE_DEVICES")
        if hidden is not None and hidden.value.strip("'\"") in _HIDES_ALL:
            # The process was told to see no GPU: the message follows from the setting, on any
            # machine; advice where the report says the program should run on the CPU.
            evidence.append(hidden.evidence)
            return self.finding(
                f"The process found no GPU ({said}), and CUDA_VISIBLE_DEVICES="
                f"{hidden.value or '(empty)'} hides every GPU from it: "
                + (
                    "the report says it should run on the CPU, so the program needs a CPU path."
                    if cpu
                    else "unset it, or name the GPUs the process should use."
                ),
                evidence,
                severity=Severity.INFO if cpu else Severity.WARNING,
            )
        if not failed and not shown:
            # Only a probe's warning (is_available(), TensorFlow's import): the program asked, got
            # no GPU and went on, as any CUDA build does on a machine without an NVIDIA GPU.
            message = (
                f"The program's CUDA probe found no NVIDIA driver ({said}) and went on without "
                "a GPU (PyTorch's `is_available()` False, TensorFlow's import). Expected on a "
                "machine without an NVIDIA GPU; "
                "where there is one, its driver is not loaded or not visible to the process."
            )
        elif cpu and gpu_less:
            # The toolkit's hook found no driver on the host itself: a GPU request does not put
            # a GPU in a machine the report says has none (a scheduler placing a GPU image on a
            # CPU instance). A process in a container that merely saw none may lack a request.
            message = (
                f"The process found no GPU or no NVIDIA driver ({said}), and the report says the "
                "machine has none or the program should run on the CPU: the program needs a CPU "
                "path (e.g. `torch.cuda.is_available()` before `.cuda()`)."
            )
            evidence.append(cpu[0].evidence)
        elif gpu_less and (absent := _no_nvidia_gpu_there(ctx)):
            said_absent, absent_evidence = absent
            message = (
                f"The process found no GPU or no NVIDIA driver ({said}), and {said_absent}: no "
                "NVIDIA GPU can be visible there, so NVIDIA's driver, container toolkit and device "
                "plugin find none. Run GPU work on a GPU machine or instance type, keep NVIDIA's "
                "components off this one (a node selector for the device plugin), or give the "
                "program a CPU path."
            )
            evidence.append(absent_evidence)
        elif hosted and not meant:
            message = (
                f"The process found no GPU or no NVIDIA driver ({said}) on a hosted notebook "
                f"({hosted[0].value}), and nothing in the report shows a GPU: a notebook runtime "
                "without a GPU accelerator has no NVIDIA driver. Choose a GPU runtime (Colab: "
                "Runtime > Change runtime type; Kaggle: Settings > Accelerator), or give the "
                "program a CPU path."
            )
            evidence.append(hosted[0].evidence)
        elif not meant:
            # Nothing says an NVIDIA GPU should be there: "Found no NVIDIA driver" is what any
            # CUDA build prints on a machine without one (a CPU node, a CI runner) as much as
            # on a GPU host whose driver is missing.
            return self.finding(
                f"The process found no GPU or no NVIDIA driver ({said}), and nothing in the "
                "report shows an NVIDIA GPU meant for it (no GPU, driver, GPU instance, container "
                "or GPU request): where the machine has one, its driver is not installed or not "
                "loaded; where it has none (a notebook's CPU runtime, a CPU node, a CI runner), "
                "choose a GPU runtime or machine, or give the program a CPU path.",
                evidence,
                severity=Severity.WARNING,
            )
        else:
            return self.finding(
                f"The process found no GPU or no NVIDIA driver: {said}.",
                [o.evidence for o in seen[:3]],
            )
        return self.finding(message, evidence, severity=Severity.INFO)


def _gpu_meant(ctx: CheckContext) -> bool:
    """Whether the text gives a sign, beyond a GPU, driver or container shown, that an NVIDIA
    GPU should be visible to the process: a message only a GPU machine, an installed driver or
    a GPU request prints (NVML's `Unknown Error`, the container toolkit's errors, CUDA's "no
    CUDA-capable device" once libcuda loaded, a device plugin's), or a GPU instance type."""
    if ctx.snapshot.observations("gpu-implied"):
        return True
    instance = ctx.matrix.instance(ctx.snapshot.instance.type)
    return instance is not None and instance.gpu_count > 0


# CUDA_VISIBLE_DEVICES values that leave CUDA no device: empty, or an index no machine has (CUDA
# stops at the first invalid one; `-1` is the idiom TensorFlow's and XGBoost's docs use).
_HIDES_ALL = frozenset({"", "-1"})


def _toolkit_hook(said: Observation) -> bool:
    """Whether the container toolkit's own hook (`nvidia-container-cli`, which names itself at the
    start of every message, or enroot's hook that runs it) said it: it runs before any process of
    the container, and only for a container given GPUs."""
    return (said.value or "").startswith(("nvidia-container-cli", _ENROOT_HOOK))


# How the catalogue's enroot GPU-hook entries begin their value, and those whose cause is the
# host's own state (nvidia_uvm, device nodes) (messages.toml).
_ENROOT_HOOK = "enroot's GPU hook"
_HOST_SIDE = "the host's "


def _host_refused(failed: list[Observation]) -> bool:
    """Whether the container toolkit itself found no GPU or driver on the host."""
    return any(_toolkit_hook(o) for o in failed)


def _no_nvidia_gpu_there(ctx: CheckContext) -> tuple[str, Evidence] | None:
    """Positive evidence that the machine has no NVIDIA GPU at all: an instance type of a family
    the matrix knows has none (an Inferentia or CPU-only EC2 type), or the kernel refusing the
    nvidia module for want of a device (modprobe's `No such device`). What it says, and where."""
    named = ctx.matrix.non_gpu_family(ctx.snapshot.instance.type)
    if named is not None and ctx.snapshot.instance.evidence:
        carries = "" if named.accelerator == "none" else f" (it carries {named.accelerator})"
        return (
            f"the instance type {ctx.snapshot.instance.type} has no NVIDIA GPU{carries}",
            ctx.snapshot.instance.evidence[0],
        )
    refused = ctx.snapshot.observations("no-nvidia-device")
    if refused:
        return (
            f"the kernel found no device for the nvidia module ({refused[0].value}): the machine "
            "has no NVIDIA GPU (or only one the driver does not support)",
            refused[0].evidence,
        )
    return None


def _gpu_flag(spec: RunSpec) -> bool:
    """Whether a container spec asks for GPUs through the container toolkit itself (`--gpus`,
    a compose reservation, a pod's limit), not through the legacy nvidia runtime or wrapper."""
    gpus = spec.gpus or ""
    return bool(gpus) and not gpus.startswith("runtime=") and not gpus.endswith("(nvidia-docker)")


def _banner_despite_request(ctx: CheckContext) -> Iterable[tuple[str, list[Evidence]]]:
    """An image's start-up banner that found no driver ("The NVIDIA Driver was not detected")
    in a container the text shows started with a GPU request: the banner is the image's own
    check (it looks for /dev/nvidiactl, which WSL2 does not have), not the process failing."""
    banner = ctx.snapshot.observations("no-gpu-banner")
    asked = [s for s in ctx.snapshot.run_specs if s.gpus and s.gpus != "void"]
    if banner and asked:
        yield (
            f"The image's start-up script printed that it found no NVIDIA driver "
            f"({banner[0].value}), but the container was started with a GPU request "
            f"({asked[0].gpus}): the script's check misses the GPU on WSL2 (no /dev/nvidiactl); "
            "`nvidia-smi` inside the container tells whether the GPU is there.",
            [banner[0].evidence, *asked[0].evidence[:1]],
        )


def _legacy_runtime_flag(ctx: CheckContext) -> Iterable[tuple[str, list[Evidence]]]:
    """Docker 19.03 (the first to take `--gpus`, whose toolkit packages of the time registered
    no runtime) refused the nvidia runtime, and the text shows no `--gpus` request failing: the
    legacy flag (`--runtime=nvidia`, `nvidia-docker`) was used where `--gpus` needs none. From
    20.10 the toolkit's setup (`nvidia-ctk runtime configure`) registers it, so a refusal there
    is a setup left undone."""
    unknown = ctx.snapshot.observations("nvidia-runtime-unknown")
    if not unknown or any(_gpu_flag(s) for s in ctx.snapshot.run_specs):
        return
    for version in ctx.snapshot.observations("docker-version"):
        major, _, minor = (version.value or "0.0").partition(".")
        if (19, 3) <= (int(major), int(minor or 0)) < (20, 10):
            yield (
                f"Docker has no runtime named nvidia ({unknown[0].value}), and Docker "
                f"{version.value} takes `--gpus all` through the NVIDIA container toolkit without "
                "one: `--runtime=nvidia` and `nvidia-docker` are the legacy path (nvidia-docker2). "
                "Use `--gpus all`; if Docker then says `could not select device driver`, install "
                "the container toolkit.",
                [unknown[0].evidence, version.evidence],
            )
            return


# Open MPI's notice lists each libcuda it tried (four paths, more with a CUDA prefix) on the lines
# after its first one.
_NOTICE_LINES = 12


def _in_notice(seen: Observation, notices: list[Observation]) -> bool:
    """Whether ``seen`` (a libcuda that did not open) is one of the libraries Open MPI's notice
    lists under it: part of the notice, not a process that failed."""
    line = seen.evidence.line
    return (
        line is not None
        and (seen.value or "").startswith("libcuda")
        and any(
            n.evidence.line is not None and 0 < line - n.evidence.line <= _NOTICE_LINES
            for n in notices
        )
    )


def _probe_wrapped(seen: Observation, probed: list[Observation]) -> bool:
    """Whether ``seen`` is part of a probe's warning ("CUDA initialization: Found no NVIDIA
    driver ..."), on its line or, where a wrap split it, on the next line or two."""
    line = seen.evidence.line
    return line is not None and any(
        p.evidence.line is not None
        and 0 <= line - p.evidence.line <= 2
        and (seen.value or "?") in (p.value or "")
        for p in probed
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


_DEVICE_LIST = re.compile(r"device(?:=|_ids\s?)\[?([\w'\", -]{1,200})")
_COUNT = re.compile(r"(?:nvidia\.com/gpu:\s?|count\s|gpus:\s|^)['\"]?(\d{1,3})")


def granted_gpus(spec: RunSpec) -> int | None:
    """GPUs the spec's own request gives (``--gpus device=1``, ``--gpus 2``, compose
    ``device_ids``/``count``, a ``nvidia.com/gpu`` limit, the runtime's NVIDIA_VISIBLE_DEVICES),
    whatever CUDA_VISIBLE_DEVICES adds;
    None for ``all``, a runtime alone, or nothing countable."""
    request = spec.gpus or ""
    if "=all" in request:
        return None  # a CDI name for every GPU (`nvidia.com/gpu=all`)
    listed = _DEVICE_LIST.search(request)
    if listed is not None:
        ids = [i for i in re.split(r"[,\s]+", listed.group(1).strip("[]'\" ")) if i.strip("'\"")]
        return len(ids) or None
    counted = _COUNT.search(request.strip())
    if counted is not None and "," not in request:
        return int(counted.group(1))
    # The nvidia runtime exposes what NVIDIA_VISIBLE_DEVICES lists (indices on the host).
    ids = spec.env.get("NVIDIA_VISIBLE_DEVICES", "").split(",")
    return len(ids) if all(i.strip().isdigit() for i in ids) else None


# The host's CUDA_VISIBLE_DEVICES as a shell writes it into a command (`$X`, `${X:-all}`).
_HOST_LIST = re.compile(r"\$\{?CUDA_VISIBLE_DEVICES\b")


class VisibleDeviceBeyondContainer(Rule):
    id = "SC1323"
    name = "visible-device-beyond-container"
    family = "gpu-visibility"
    severity = Severity.ERROR
    lowest = Severity.WARNING  # the host's list passed in: wrong unless it is 0..n-1
    title = "CUDA_VISIBLE_DEVICES names a GPU the container does not have"
    doc = RuleDoc(
        what="Compares the indices a container spec's `CUDA_VISIBLE_DEVICES` names with the "
        "GPUs its own request gives (`--gpus device=1`, `--gpus 2`, compose `device_ids` or "
        "`count`, a `nvidia.com/gpu` limit); a spec that chooses its GPUs by the host's "
        "`$CUDA_VISIBLE_DEVICES` and passes that variable in unchanged (`--env "
        "CUDA_VISIBLE_DEVICES`) is a warning. Also a Slurm job given GPUs in a pyxis/enroot "
        "container (`srun --gres=gpu:1 --container-image=...`) where the nodes' cgroup.conf is "
        "shown without `ConstrainDevices=yes`: a warning, an error where the text shows a "
        "CUDA_VISIBLE_DEVICES index above 0 or a process that found no GPU.",
        why="Inside a container the GPUs it was given are numbered from 0, whatever their "
        "numbers on the host: `--gpus device=1` shows the host's GPU 1 as device 0, so "
        "`CUDA_VISIBLE_DEVICES=1` (the host's number passed on) names no device and CUDA finds "
        "none (`no CUDA-capable device is detected`) or fewer than meant.",
        example="`docker run --gpus device=1 -e CUDA_VISIBLE_DEVICES=1 ...` (devitocodes/devito's "
        "CI, whose fix dropped the --env).",
        fix="Choose the GPUs with the request alone (`--gpus device=1`, `NVIDIA_VISIBLE_DEVICES`) "
        "and leave CUDA_VISIBLE_DEVICES unset in the container, or number from 0 within it. "
        "On Slurm with pyxis, set `ConstrainDevices=yes` in cgroup.conf.",
        references=(
            "https://github.com/devitocodes/devito/pull/2710",
            "https://github.com/NVIDIA/pyxis/issues/47",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        yield from self._slurm_unconstrained(ctx)
        for spec in ctx.snapshot.run_specs:
            passed = spec.env.get("CUDA_VISIBLE_DEVICES")
            if (
                passed is not None
                and _HOST_LIST.search(spec.gpus or "")
                and (not passed or _HOST_LIST.match(passed))
            ):
                yield self.finding(
                    f"The {spec.kind} spec chooses its GPUs by the host's CUDA_VISIBLE_DEVICES "
                    f"({spec.gpus}) and passes the same variable into the container: inside, "
                    "the GPUs it was given are numbered from 0, so a host list other than "
                    "0..n-1 (`CUDA_VISIBLE_DEVICES=1`) names no device there.",
                    spec_evidence(spec, "CUDA_VISIBLE_DEVICES", "gpu")[:2],
                    severity=Severity.WARNING,
                )
                continue
            visible = spec.env.get("CUDA_VISIBLE_DEVICES", "")
            granted = granted_gpus(spec)
            ids = [i.strip() for i in visible.split(",") if i.strip()]
            if spec.privileged or granted is None or not ids or not all(i.isdigit() for i in ids):
                # A privileged container sees every GPU under the host's numbers (SC1324's
                # advice names them so); "all", nothing countable, or UUIDs/MIG names.
                continue
            beyond = [i for i in ids if int(i) >= granted]
            if beyond:
                yield self.finding(
                    f"The {spec.kind} spec gives the container {granted} GPU(s), numbered from 0 "
                    f"inside it, but CUDA_VISIBLE_DEVICES={visible} names GPU "
                    f"{', '.join(beyond)}: CUDA finds no such device.",
                    spec_evidence(spec, "CUDA_VISIBLE_DEVICES", "gpu", "device")[:3],
                )

    def _slurm_unconstrained(self, ctx: CheckContext) -> Iterable[Finding]:
        """Without the device cgroup (ConstrainDevices, off by default) Slurm sets
        CUDA_VISIBLE_DEVICES to the node's own GPU numbers (`2`), while enroot's hook passes
        only those GPUs into the container, where they are numbered from 0 (NVIDIA/pyxis#47)."""
        jobs = ctx.snapshot.observations("slurm-gpu-container")
        constrain = ctx.snapshot.observations("slurm-constrain-devices")
        shown = ctx.snapshot.observations("slurm-cgroup-conf")
        if not jobs or any((o.value or "").lower() == "yes" for o in constrain):
            return
        off = constrain or shown
        if not off:
            return
        visible = ctx.snapshot.env.get("CUDA_VISIBLE_DEVICES")
        ids = [i.strip() for i in (visible.value if visible else "").split(",")]
        beyond = any(i.isdigit() and int(i) > 0 for i in ids)
        failed = ctx.snapshot.observations("no-gpu")
        said = (
            f"ConstrainDevices={constrain[0].value}"
            if constrain
            else "a cgroup.conf without ConstrainDevices=yes"
        )
        yield self.finding(
            f"The Slurm job runs in a pyxis/enroot container with GPUs ({jobs[0].value}) on "
            f"nodes whose device cgroup is off ({said}): Slurm then sets CUDA_VISIBLE_DEVICES "
            "to the node's own GPU numbers, while the container holds only the job's GPUs, "
            "numbered from 0, so an index other than 0..n-1 names no device there"
            + (f" (CUDA_VISIBLE_DEVICES={visible.value} here)." if visible and beyond else ".")
            + " Set `ConstrainDevices=yes` in cgroup.conf (with gres.conf naming the GPUs' "
            "device files) and restart slurmd.",
            [
                jobs[0].evidence,
                off[0].evidence,
                *([visible.evidence] if visible and beyond else []),
                *(o.evidence for o in failed[:1]),
            ],
            severity=Severity.ERROR if beyond or failed else Severity.WARNING,
        )


class PrivilegedSeesAllGpus(Rule):
    id = "SC1324"
    name = "privileged-sees-all-gpus"
    family = "gpu-visibility"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "A privileged container sees every GPU, whatever it requested"
    doc = RuleDoc(
        what="Finds container specs that are privileged (`--privileged`, `privileged: true`) "
        "and request a number or list of GPUs (`--gpus device=0`, `--gpus 2`, compose "
        "`device_ids`/`count`, a `nvidia.com/gpu` limit): a warning where the host is shown to "
        "have more GPUs (nvidia-smi, the instance type, or the report saying the container "
        "sees them all), advice where its GPUs are not shown, "
        "nothing where the request is the whole host. Also a report that says its container "
        "is privileged and sees all the GPUs (`privileged is set true`, `I can see all two GPU "
        "cards in the container`, `it show all the device in the container`). nvidia-docker's "
        "`NV_GPU=1` before the command is its request.",
        why="A privileged container gets every device node of the host, /dev/nvidia* included, "
        "so CUDA and nvidia-smi see all the node's GPUs: the request no longer isolates it, and "
        "two pods or jobs given one GPU each can land on the same one "
        "(kubernetes/kubernetes#81256).",
        example="A pod with `securityContext: privileged: true` and `nvidia.com/gpu: 1` that "
        "sees both GPUs of its node.",
        fix="Drop `privileged` and grant the capabilities the container needs (`cap_add`, "
        "`/dev/infiniband` as a device); where it must stay privileged, set "
        "`CUDA_VISIBLE_DEVICES` to the GPUs it was given.",
        references=("https://github.com/kubernetes/kubernetes/issues/81256",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        instance = ctx.matrix.instance(ctx.snapshot.instance.type)
        # GPUs the host is shown to have: only then is "every GPU" more than was asked for.
        host = max(len(ctx.snapshot.gpus.devices), instance.gpu_count if instance else 0)
        privileged = ctx.snapshot.observations("privileged-stated")
        seen = ctx.snapshot.observations("all-gpus-seen-stated")
        for spec in ctx.snapshot.run_specs:
            granted = granted_gpus(spec)
            if not spec.privileged or granted is None or "CUDA_VISIBLE_DEVICES" in spec.env:
                continue
            if host and host <= granted:
                continue  # the whole host asked for (a p5's 8 GPUs, privileged for EFA)
            more = f" ({host} here)" if host else ""
            # The report saying the container sees them all shows the host has more too.
            said = f"; the report says it sees them all ({seen[0].value})" if seen else ""
            yield self.finding(
                f"The {spec.kind} spec is privileged and requests {granted} GPU(s) "
                f"({spec.gpus}): a privileged container sees every GPU of the host{more}{said}.",
                [
                    *spec_evidence(spec, "privileged", "gpu", "device")[:3],
                    *(s.evidence for s in seen[:1]),
                ],
                severity=Severity.WARNING if host or seen else Severity.INFO,
            )
        if privileged and seen and not any(s.privileged for s in ctx.snapshot.run_specs):
            # Said rather than shown in a spec: privileged, and every GPU seen.
            yield self.finding(
                f"The report says the container runs privileged ({privileged[0].value}) and "
                f"sees all the GPUs ({seen[0].value}): a privileged container gets every GPU "
                "of the host, whatever it requested.",
                [privileged[0].evidence, seen[0].evidence],
            )


class GpuRequestRejected(Rule):
    id = "SC1407"
    name = "gpu-request-rejected"
    family = "gpu-visibility"
    severity = Severity.INFO
    title = "Docker rejected the GPU request's syntax before touching a GPU"
    doc = RuleDoc(
        what="Reads Docker's `cannot set both Count and DeviceIDs on device request`: the "
        "daemon's check of a device request that carries a count and a device list at once.",
        why="The docker CLI reads `--gpus` as CSV, so an unquoted `--gpus device=0,1` becomes "
        "`device=0` and a bare `1` (a count); the daemon refuses the pair and the container does "
        "not start. Nothing in the GPU stack is at fault: the same command with one GPU, or "
        "with the list quoted, runs. A compose reservation that sets both `count` and "
        "`device_ids` is refused the same way.",
        example="`docker run --gpus device=0,1 ...` answered by `docker: Error response from "
        "daemon: cannot set both Count and DeviceIDs on device request.` (rapidsai/docker#306).",
        fix="Quote the list so the CSV parser keeps it whole: `--gpus '\"device=0,1\"'`; in "
        "compose, keep `device_ids` or `count`, not both.",
        references=("https://github.com/NVIDIA/nvidia-docker/issues/1026",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        rejected = ctx.snapshot.observations("gpu-request-rejected")
        if not rejected:
            return
        listed = [s for s in ctx.snapshot.run_specs if s.gpu_count and s.gpu_count >= 2]
        yield self.finding(
            f"Docker refused the GPU request ({rejected[0].value}): an unquoted "
            "`--gpus device=0,1` is split at the comma into a device and a count. Quote the "
            "list (`--gpus '\"device=0,1\"'`); the GPUs and driver are not at fault.",
            [rejected[0].evidence, *(e for s in listed[:1] for e in s.evidence[:1])],
        )


class GpuPodUnschedulable(Rule):
    id = "SC1408"
    name = "gpu-pod-unschedulable"
    family = "gpu-visibility"
    severity = Severity.INFO
    title = "The scheduler found no node with the GPUs a pod asks for"
    doc = RuleDoc(
        what="Reads the scheduler's `Insufficient nvidia.com/gpu` (or a MIG resource's) in a "
        "Pending pod's events and names what to check; where the text shows the pod's request "
        "and a node's GPUs, it says which is larger.",
        why="The pod stays Pending. The cause is most often the request or the cluster, not "
        "the GPU stack: more GPUs than any one node has (a pod never spans nodes), a GPU node "
        "tainted against pods without a toleration, GPUs held by other pods; or a device "
        "plugin that advertises none (`Allocatable: nvidia.com/gpu: 0`).",
        example="`0/3 nodes are available: 3 Insufficient nvidia.com/gpu` for a pod asking for "
        "2 GPUs on nodes of 1 GPU each (NVIDIA/k8s-device-plugin#165).",
        fix="Compare the pod's `nvidia.com/gpu` limit with `kubectl describe node`'s "
        "Allocatable and Allocated resources; add a toleration for the GPU nodes' taint; if "
        "Allocatable shows 0, check the device plugin's log on that node.",
        references=("https://github.com/NVIDIA/k8s-device-plugin/issues/165",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        unschedulable = ctx.snapshot.observations("gpu-unschedulable")
        if not unschedulable:
            return
        resource = unschedulable[0].value or "nvidia.com/gpu"
        asked = [
            s.gpu_count
            for s in ctx.snapshot.run_specs
            if s.kind == "kubernetes" and s.gpu_count is not None
        ]
        node = len(ctx.snapshot.gpus.devices)
        larger = (
            f" The pod asks for {max(asked)} GPUs and the node shown has {node}: a pod's GPUs "
            "must all come from one node."
            if asked and node and max(asked) > node
            else ""
        )
        yield self.finding(
            f"No node had the free {resource} the pod asks for: the request is more than one "
            "node has, the GPU nodes are tainted, their GPUs are in use, or the device plugin "
            "advertises none." + larger,
            [unschedulable[0].evidence],
        )
