"""Pairing a snapshot (an image) with the host it is meant to run on.

The host's facts (driver, GPUs, instance type, EFA devices) are laid into the image's snapshot,
each with evidence naming where it came from, so the ordinary rules answer "will this image
start there, need forward compatibility, carry the GPU's architecture, reach EFA".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import ComponentName, Evidence, Gpu, Installation, Snapshot


@dataclass(frozen=True)
class TargetHost:
    driver: str | None = None
    gpu: str | None = None
    instance: str | None = None
    host: Snapshot | None = None
    host_label: str = "host snapshot"

    @property
    def given(self) -> bool:
        return any((self.driver, self.gpu, self.instance, self.host))


def _restated(evidence: list[Evidence], label: str) -> list[Evidence]:
    return [
        Evidence(kind="target", source=f"{label}: {e.kind} {e.source}", detail=e.detail)
        for e in evidence
    ]


def _from_host(snapshot: Snapshot, host: Snapshot, label: str) -> None:
    snapshot.component(ComponentName.DRIVER).installations = [
        replace(i, evidence=_restated(i.evidence, label))
        for i in host.installations(ComponentName.DRIVER)
        if i.origin == "kernel"
    ] + [
        i
        for i in snapshot.installations(ComponentName.DRIVER)
        if i.origin != "kernel"  # driver libraries the image itself carries
    ]
    snapshot.gpus.devices = [
        replace(g, evidence=_restated(g.evidence, label)) for g in host.gpus.devices
    ]
    if host.instance.type:
        snapshot.instance.type = host.instance.type
        snapshot.instance.evidence = _restated(host.instance.evidence, label)
    if host.runtime.efa_devices is not None:
        snapshot.runtime.efa_devices = host.runtime.efa_devices
        snapshot.runtime.rdma_devices = host.runtime.rdma_devices
        snapshot.runtime.evidence = _restated(host.runtime.evidence, label)


def pair_with_target(snapshot: Snapshot, target: TargetHost, matrix: MatrixIndex) -> None:
    """Lay the target host's facts into ``snapshot``; flags win over a host snapshot."""
    if target.host is not None:
        _from_host(snapshot, target.host, target.host_label)
    if target.driver:
        drivers = snapshot.component(ComponentName.DRIVER)
        drivers.installations = [i for i in drivers.installations if i.origin != "kernel"]
        drivers.installations.insert(
            0,
            Installation(
                version=target.driver,
                origin="kernel",
                evidence=[Evidence(kind="target", source="--driver", detail=target.driver)],
            ),
        )
    if target.instance:
        snapshot.instance.type = target.instance
        snapshot.instance.unknown = None
        snapshot.instance.evidence = [
            Evidence(kind="target", source="--instance", detail=target.instance)
        ]
    if target.gpu:
        evidence = Evidence(kind="target", source="--gpu", detail=target.gpu)
        snapshot.gpus.devices = [Gpu(name=target.gpu, evidence=[evidence])]
    elif not snapshot.gpus.devices and target.instance:
        known = matrix.instance(target.instance)
        if known is not None and known.gpu and known.gpu_count:
            evidence = Evidence(
                kind="matrix", source=known.source, detail=f"{known.type}: {known.gpu}"
            )
            snapshot.gpus.devices = [
                Gpu(index=i, name=known.gpu, evidence=[evidence]) for i in range(known.gpu_count)
            ]
    if snapshot.gpus.devices:
        snapshot.gpus.unknown = None
    for component in snapshot.components.values():
        if component.installations:
            component.unknown = None
