"""Facts into a partial snapshot: one installation per component version, one GPU per device,
evidence pointing at the report's lines, and everything the text does not state left unknown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from copy import deepcopy

from stackcheck import versions
from stackcheck.ingest.facts import (
    ComponentFact,
    ContainerFact,
    EnvFact,
    Fact,
    GpuFact,
    InstanceFact,
    ObservationFact,
    PlatformFact,
    RunSpecFact,
    RuntimeFact,
)
from stackcheck.ingest.hardware import HardwareFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import (
    ComponentName,
    EnvVar,
    Evidence,
    Gpu,
    Installation,
    Observation,
    ProbeNote,
    Snapshot,
    SnapshotSource,
)

NOT_STATED = "not stated in the text"
_MAX_SPEC_EVIDENCE = 12
# The lines of a container spec worth citing: those that set what the rules read.
_SPEC_WORDS = re.compile(
    r"image|gpu|device|shm|ipc|memlock|ulimit|efa|infiniband|command|entrypoint|args|parallel|"
    r"nproc|visible|runtime|privileged|limits|count|capabilit|mountpath|volume",
    re.IGNORECASE,
)
_MAX_EVIDENCE = 8  # a long log states the same version on every rank's line


def _same_version(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return True
    if a == b:
        return True
    tag_a, tag_b = versions.local_tag(a), versions.local_tag(b)
    if tag_a and tag_b and tag_a != tag_b:
        return False
    return versions.parse(a) is not None and versions.parse(a) == versions.parse(b)


def _compatible(installation: Installation, fact: ComponentFact) -> bool:
    if installation.version is not None and fact.version is not None:
        return _same_version(installation.version, fact.version)
    return not (installation.cuda and fact.cuda and installation.cuda != fact.cuda)


def _gpu_names_match(a: str, b: str) -> bool:
    def norm(name: str) -> str:
        name = name.lower().rstrip(". ").removeprefix("nvidia ").removeprefix("tesla ")
        return name.strip()

    x, y = norm(a), norm(b)
    return bool(x and y) and (x.startswith(y) or y.startswith(x))


class _Builder:
    def __init__(self, target: str) -> None:
        self.target = target
        self.snapshot = Snapshot(source=SnapshotSource(kind="text", target=target), partial=True)
        self.instances: list[str] = []
        # (kind, value) of each observation kept: a log states the same one thousands of times.
        self.observed: set[tuple[str, str | None]] = set()

    def evidence(self, line: Line) -> Evidence:
        return Evidence(
            kind="text", source=self.target, line=line.number, detail=line.raw.strip()[:200]
        )

    def component(self, fact: ComponentFact) -> None:
        found = self.snapshot.installations(fact.component)
        known = [i for i in found if _compatible(i, fact)]
        exact = [i for i in known if i.version == fact.version] or known
        target = (
            exact[0]
            if exact and (fact.version is None or exact[0].version is not None or len(known) == 1)
            else None
        )
        if fact.version is not None and target is None:
            target = next((i for i in known if i.version is None), None)
        evidence = self.evidence(fact.line)
        if target is None:
            found.append(
                Installation(
                    version=fact.version,
                    path=fact.path,
                    origin="report",
                    cuda=fact.cuda,
                    archs=list(fact.archs),
                    python_env=fact.python_env,
                    properties=dict(fact.properties),
                    evidence=[evidence],
                )
            )
            return
        if fact.version and (target.version is None or len(fact.version) > len(target.version)):
            target.version = fact.version  # "1.8.1+cu102" says more than "1.8.1"
        target.cuda = target.cuda or fact.cuda
        target.path = target.path or fact.path
        # An arch list stated a line per arch (PyTorch 2.8+'s CC list) adds up.
        target.archs = target.archs + [a for a in fact.archs if a not in target.archs]
        target.python_env = target.python_env or fact.python_env
        target.properties = {**fact.properties, **target.properties}
        if len(target.evidence) < _MAX_EVIDENCE and evidence not in target.evidence:
            target.evidence.append(evidence)

    def gpu(self, fact: GpuFact) -> None:
        devices = self.snapshot.gpus.devices
        match = next(
            (
                d
                for d in devices
                if (
                    fact.index is not None
                    and d.index == fact.index
                    and (not fact.name or _gpu_names_match(d.name, fact.name))
                )
                or (fact.index is None and _gpu_names_match(d.name, fact.name))
            ),
            None,
        )
        if match is None:
            if not fact.name:
                return  # a capability line for a GPU no line names
            devices.append(
                Gpu(
                    index=fact.index,
                    name=fact.name,
                    memory_mib=fact.memory_mib,
                    compute_capability=fact.compute_capability,
                    evidence=[self.evidence(fact.line)],
                )
            )
            return
        if fact.name and len(fact.name) > len(match.name) and not fact.name.endswith("..."):
            match.name = fact.name
        match.compute_capability = match.compute_capability or fact.compute_capability
        match.memory_mib = match.memory_mib or fact.memory_mib
        evidence = self.evidence(fact.line)
        if len(match.evidence) < _MAX_EVIDENCE and evidence not in match.evidence:
            match.evidence.append(evidence)

    def runtime(self, fact: RuntimeFact) -> None:
        runtime = self.snapshot.runtime
        if fact.field == "efa_devices" and isinstance(fact.value, list):
            runtime.efa_devices = sorted({*(runtime.efa_devices or []), *fact.value})
        elif fact.field == "peermem_loaded" and isinstance(fact.value, bool):
            runtime.peermem_loaded = fact.value
        elif (
            fact.field == "shm_bytes" and isinstance(fact.value, int) and runtime.shm_bytes is None
        ):
            runtime.shm_bytes = fact.value
        elif fact.field == "memlock_bytes" and isinstance(fact.value, int):
            if runtime.memlock_bytes is None:
                runtime.memlock_bytes = fact.value
        else:
            return
        runtime.evidence.append(self.evidence(fact.line))

    def add(self, fact: Fact) -> None:
        snapshot = self.snapshot
        if isinstance(fact, ComponentFact):
            self.component(fact)
        elif isinstance(fact, GpuFact):
            self.gpu(fact)
        elif isinstance(fact, EnvFact):
            if fact.name not in snapshot.env:
                snapshot.env[fact.name] = EnvVar(
                    value=fact.value, evidence=self.evidence(fact.line)
                )
        elif isinstance(fact, InstanceFact):
            if fact.type not in self.instances:
                self.instances.append(fact.type)
            if snapshot.instance.type is None:
                snapshot.instance.type = fact.type
                snapshot.instance.evidence.append(self.evidence(fact.line))
        elif isinstance(fact, RuntimeFact):
            self.runtime(fact)
        elif isinstance(fact, ObservationFact):
            if (fact.kind, fact.value) not in self.observed:
                self.observed.add((fact.kind, fact.value))
                snapshot.observed.append(
                    Observation(kind=fact.kind, value=fact.value, evidence=self.evidence(fact.line))
                )
        elif isinstance(fact, RunSpecFact):
            spec = deepcopy(fact.spec)
            # The first line names the spec; of the rest, only the lines that set what rules read.
            said = [*fact.lines[:1], *(ln for ln in fact.lines[1:] if _SPEC_WORDS.search(ln.text))]
            spec.evidence = [self.evidence(line) for line in said[:_MAX_SPEC_EVIDENCE]]
            snapshot.run_specs.append(spec)
        elif isinstance(fact, HardwareFact):
            fact.apply(snapshot.hardware, self.evidence(fact.line))
        elif isinstance(fact, PlatformFact) and snapshot.platform.os is None:
            snapshot.platform.os = fact.os
            snapshot.platform.evidence.append(self.evidence(fact.line))
        elif isinstance(fact, ContainerFact) and not snapshot.platform.container:
            snapshot.platform.container = True
            snapshot.platform.evidence.append(self.evidence(fact.line))

    def finish(self) -> Snapshot:
        snapshot = self.snapshot
        for name in ComponentName:
            component = snapshot.component(name)
            if not component.installations:
                component.unknown = NOT_STATED
        if not snapshot.gpus.devices:
            snapshot.gpus.unknown = NOT_STATED
        snapshot.gpus.devices.sort(key=lambda g: (g.index is None, g.index or 0))
        if snapshot.instance.type is None:
            snapshot.instance.unknown = NOT_STATED
        if len(self.instances) > 1:
            snapshot.notes.append(
                ProbeNote(
                    probe="triage",
                    message=f"several instance types named ({', '.join(self.instances)}); "
                    f"checked against {self.instances[0]}",
                )
            )
        return snapshot


def assemble(facts: Sequence[Fact], target: str) -> Snapshot:
    builder = _Builder(target)
    for fact in sorted(facts, key=lambda f: f.line.number):
        builder.add(fact)
    return builder.finish()
