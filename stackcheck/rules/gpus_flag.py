"""Family ``gpu-visibility``: a container CLI that does not know `--gpus` (Docker's client before
19.03), so the GPU container never started."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc


class GpusFlagUnknown(Rule):
    id = "SC1415"
    name = "gpus-flag-unknown"
    family = "gpu-visibility"
    severity = Severity.ERROR
    title = "The container CLI does not know `--gpus`"
    doc = RuleDoc(
        what="Reads the CLI's refusal of the flag (`unknown flag: --gpus`, then `See 'docker run "
        "--help'.`). Not `unknown flag: --gpus all`: there the flag and its value reached the "
        "CLI as one argument (a program's argument list), which any client refuses.",
        why="Docker's client learned `--gpus` in 19.03 (docker/cli#1714); an older client refuses "
        "it before asking the daemon, even where the daemon is 19.03 or later and the NVIDIA "
        "container toolkit is installed: the container does not start and gets no GPU.",
        example="`docker run --gpus all nvidia/cuda:9.0-base nvidia-smi` answered `unknown flag: "
        "--gpus` by a 17.12 client talking to a 19.03.6 daemon (NVIDIA/nvidia-docker#1199).",
        fix="Update the Docker client (the `docker-ce-cli` package) to 19.03 or later; on "
        "nvidia-docker2 hosts `--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all` works with an "
        "older client.",
        references=("https://github.com/NVIDIA/nvidia-docker/issues/1199",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        refused = ctx.snapshot.observations("gpus-flag-unknown")
        if refused:
            yield self.finding(
                f"The container CLI refused `--gpus` ({(refused[0].value or '')[:60]}): a Docker "
                "client older than 19.03 does not know the flag, so the container did not start "
                "and got no GPU.",
                [refused[0].evidence],
            )
