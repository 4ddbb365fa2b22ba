"""``hyp create hyp-pytorch-job``: the SageMaker HyperPod CLI's job, with its instance type,
image, environment (JSON) and volumes."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, InstanceFact, RunSpecFact
from stackcheck.ingest.formats.base import Format, continued, joined
from stackcheck.ingest.formats.docker_run import tokens
from stackcheck.ingest.formats.runspec import add_env
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import RunSpec


class HyperPodJob(Format):
    name = "hyperpod_job"
    title = "SageMaker HyperPod job (hyp CLI)"
    anchor = re.compile(r"\bhyp\s+create\s+hyp-pytorch-job\b")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return continued(segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        words = tokens(joined(lines))
        spec = RunSpec(kind="hyperpod-job")
        facts: list[Fact] = []
        for index, word in enumerate(words[:-1]):
            value = words[index + 1]
            if word == "--image":
                spec.image = value
            elif word == "--job-name":
                spec.name = value
            elif word == "--command":
                spec.command = value
            elif word == "--instance-type":
                facts.append(InstanceFact(lines[0], value.removeprefix("ml.")))
            elif word == "--volume":
                spec.volumes.append(value)
            elif word == "--environment":
                try:
                    env = json.loads(value)
                except ValueError:
                    continue
                if isinstance(env, dict):
                    for name, val in env.items():
                        add_env(spec, lines[0], str(name), str(val), facts)
        return [RunSpecFact(lines[0], spec, list(lines)), *facts]
