"""The CUDA sample p2pBandwidthLatencyTest (NVIDIA/cuda-samples, Samples/5_Domain_Specific/
p2pBandwidthLatencyTest): each GPU's name from its `Device: %d, %s, pciBusID: %x, pciDeviceID:
%x, pciDomainID:%x` line. The peer-access lines and the matrices below them are part of its
output but say nothing by themselves: GPUs under different root complexes often have no P2P."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_DEVICE = re.compile(
    r"^Device: (\d{1,3}), (\S.{0,80}?), pciBusID: [0-9a-fA-F]{1,4}, pciDeviceID: [0-9a-fA-F]{1,4}"
)


class P2pBandwidthTest(Format):
    name = "p2p_bandwidth_test"
    title = "p2pBandwidthLatencyTest output"
    anchor = re.compile(r"^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]|^Device: \d{1,3}, ")
    member = re.compile(
        r"^Device=\d{1,3} CAN(?:NOT)? Access Peer Device=\d{1,3}|^P2P Connectivity Matrix|"
        r"^\s{0,8}D\\D(?:\s{1,8}\d{1,3}){1,64}\s*$|^\s{0,8}\d{1,3}(?:\s{1,12}[\d.]{1,12}){1,64}\s*$|"
        r"^(?:Unidirectional|Bidirectional) P2P=|^P2P=(?:Enabled|Disabled) Latency|"
        r"^\s{0,4}(?:GPU|CPU)(?:\s{1,12}\d{1,3}){1,64}\s*$|^\*\*\*NOTE: In case a device|"
        r"^So you can see lesser Bandwidth"
    )
    blank_ok = True

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        return [
            GpuFact(line, found.group(2), index=int(found.group(1)))
            for line in lines
            if (found := _DEVICE.match(line.text)) is not None
        ]
