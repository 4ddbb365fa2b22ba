"""Family ``gpu-visibility``: a process asked CUDA for a GPU index the machine does not have."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import EnvVar, Evidence, Observation


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
        "gpu-mode's), and nothing where the count is not shown. Also CUDA_VISIBLE_DEVICES whose "
        "first index is beyond the GPUs shown (`=1` on one GPU), where a process then saw no GPU "
        "(`is_available()` False): CUDA stops at an index it cannot find, so none is visible.",
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
        snapshot = ctx.snapshot
        # Only these make it fire; most snapshots have neither, and need no GPU count.
        asked = snapshot.observations("invalid-device-ordinal")
        var = snapshot.env.get("CUDA_VISIBLE_DEVICES")
        unseen = snapshot.observations("cuda-unavailable", "no-gpu") if var is not None else []
        if not (asked or unseen):
            return
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
        if var is not None and unseen:
            yield from self._hidden_by_visible_devices(var, unseen, count, evidence)
        if not asked:
            return
        yield self.finding(
            f"A process asked CUDA for a GPU index it cannot see ({(asked[0].value or '')[:60]}) "
            f"on a machine the report shows with {count} GPU(s): more processes than GPUs "
            "(`--nproc_per_node`, a script's default), or a device number beyond "
            "CUDA_VISIBLE_DEVICES.",
            [asked[0].evidence, evidence],
        )

    def _hidden_by_visible_devices(
        self, var: EnvVar, unseen: list[Observation], count: str, evidence: Evidence
    ) -> Iterable[Finding]:
        """CUDA_VISIBLE_DEVICES names only indices the machine does not have (`=1` on a single
        GPU, thuml/Autoformer#25's scripts), and a process then saw no GPU: the variable hid
        them all (CUDA drops an index it cannot find and every one after it)."""
        if not count.isdigit():
            return
        indices = [i.strip() for i in var.value.split(",")]
        # CUDA stops at the first index it cannot find: a first one beyond the count hides all.
        if not indices[0].isdigit() or int(indices[0]) < int(count):
            return
        yield self.finding(
            f"CUDA_VISIBLE_DEVICES={var.value} names no GPU of the {count} the report shows "
            "(CUDA numbers them from 0), and a process saw none: the variable hides every GPU.",
            [var.evidence, evidence, unseen[0].evidence],
        )
