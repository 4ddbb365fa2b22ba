"""Family ``gpu-visibility``: a process asked CUDA for a GPU index the machine does not have."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc


class DeviceOrdinalBeyondGpus(Rule):
    id = "SC1325"
    name = "device-ordinal-beyond-gpus"
    family = "gpu-visibility"
    severity = Severity.WARNING
    title = "A process asked for a GPU index beyond the machine's GPUs"
    doc = RuleDoc(
        what="Reads CUDA's `invalid device ordinal` (error 101, `cudaErrorInvalidDevice`, "
        "`CUDA_ERROR_INVALID_DEVICE`) where the text also shows how many GPUs the machine has "
        "(nvidia-smi, a GPU list, or a sentence: `My server has 2 80G-A100`, `with one A10G "
        "GPU`). Not where the GPUs are in MIG mode (a process there sees one MIG instance: "
        "gpu-mode's), and nothing where the count is not shown.",
        why="A process called `cudaSetDevice(N)` (`torch.cuda.set_device(local_rank)`, "
        "`.to('cuda:N')`) for an N the process cannot see: a launcher started more ranks than "
        "the machine has GPUs (`--nproc_per_node=8` on two), or CUDA_VISIBLE_DEVICES hides "
        "the GPU the code names.",
        example="`RuntimeError: CUDA error: invalid device ordinal` from a script that starts 8 "
        "workers on one A10G (Alpha-VLLM/LLaMA2-Accessory#71).",
        fix="Start as many processes per node as there are visible GPUs (`--nproc_per_node`, "
        "`NGPU`, `--num_gpus`), and number devices within CUDA_VISIBLE_DEVICES from 0.",
        references=("https://github.com/Alpha-VLLM/LLaMA2-Accessory/issues/71",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        asked = ctx.snapshot.observations("invalid-device-ordinal")
        if not asked:
            return
        snapshot = ctx.snapshot
        mig = snapshot.observations("mig-selected", "mig-stated") or any(
            g.mig_mode for g in snapshot.hardware.gpus
        )
        if mig:
            return  # one MIG instance per process: SC1121's
        stated = snapshot.observations("gpu-count-stated")
        if stated:
            count, evidence = stated[0].value or "?", stated[0].evidence
        elif snapshot.gpus.devices:
            devices = snapshot.gpus.devices
            count, evidence = str(len(devices)), devices[0].evidence[0]
        else:
            return
        yield self.finding(
            f"A process asked CUDA for a GPU index it cannot see ({(asked[0].value or '')[:60]}) "
            f"on a machine the report shows with {count} GPU(s): more processes than GPUs "
            "(`--nproc_per_node`, a script's default), or a device number beyond "
            "CUDA_VISIBLE_DEVICES.",
            [asked[0].evidence, evidence],
        )
