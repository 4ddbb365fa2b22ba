"""NCCL_DEBUG=INFO logs: which NCCL loaded, which network it chose, and why.

The lines that matter, across NCCL and aws-ofi-nccl releases:

- ``NCCL version 2.21.5+cuda12.4`` and ``cudaDriverVersion 12040``;
- the net plugin: ``NET/OFI Initializing aws-ofi-nccl 1.13.2-aws``, or its absence
  (``NET/Plugin : No plugin found (libnccl-net.so), using internal implementation``, later
  ``NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.``), or a failure
  (``dlerror=...``, ``Plugin load returned ...``, ``aws-ofi-nccl initialization failed``);
- libfabric: ``NET/OFI Using Libfabric version 1.22``, ``NET/OFI Selected Provider is tcp``
  (later ``Selected provider is efa, fabric is efa``);
- the transport: ``Using network Socket`` / ``AWS Libfabric`` / ``IB``, and per connection
  ``via NET/AWS Libfabric/0/GDRDMA`` (GPUDirect RDMA) or without ``/GDRDMA``.

``NET/Socket : Using [0]eth0`` only lists the socket interface NCCL found (also for bootstrap);
it is not the transport in use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import ComponentFact, EnvFact, Fact, InstanceFact, ObservationFact
from stackcheck.ingest.formats.base import Format, wrapped_tail
from stackcheck.ingest.lines import Line, joined_line
from stackcheck.probes.environment import is_recorded
from stackcheck.snapshot.model import ComponentName

_NCCL_VERSION = re.compile(
    r"\bNCCL version (\d{1,2}\.\d{1,3}\.\d{1,3})(?:[\w.-]{0,20}\+cuda(\d{1,2}\.\d{1,2}))?"
)
_DRIVER_CUDA = re.compile(r"\bcudaDriverVersion (\d{4,6})\b")
# "Initializing aws-ofi-nccl 1.7.4-aws" from 1.7; "Using aws-ofi-nccl 1.6.0" (or "1.3.0aws")
# before (the plugin's PACKAGE_STRING, aws/aws-ofi-nccl at v1.3.0-aws, v1.6.0, v1.7.4-aws).
_OFI = re.compile(r"NET/OFI (?:Initializing|Using) aws-ofi-nccl (\d{1,2}\.\d{1,3}\.\d{1,3})")
_LIBFABRIC = re.compile(r"NET/OFI Using Libfabric version (\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)")
_PROVIDER = re.compile(r"Selected [Pp]rovider is ([\w;:-]{1,40})")
# NCCL 2.3+ "Using network Socket"; 2.2 and older "Using internal Network Socket" / "IB".
# "Using network IB" (NCCL 2.3+), "Using internal Network Socket" (2.0-2.2): the capital belongs
# to the old wording only (a sentence's "Using Network Manager I set ..." is no transport).
_NETWORK = re.compile(r"\bUsing (?:internal Network|network) ([A-Za-z]\w{0,30}(?: [A-Z]\w{0,30})?)")
# The socket transport's interface (2.2: "NET : Using interface ib0:192.168.11.1<0>", later
# "NET/Socket : Using [0]ib0:10.0.0.1<0>"): an ib* interface is IPoIB, so the machine has
# InfiniBand whether or not NCCL uses it. A pasted log may hide the address ("[0]ib0.<ip>",
# sgl-project/sglang#1427); a partition's child interface is ib0.8001.
_IPOIB = re.compile(
    r"\bNET(?:/Socket)? ?: Using (?:interface |\[\d{1,2}\])(ib\w{0,20})(?:[:<]|\.[\d<]|\s*$)"
)
# NCCL's IB transport listing the HCAs it opened ("NET/IB : Using [0]mlx5_0:1/IB/SHARP",
# "[0]mlx5_0:1/RoCE [RO]; OOB eno1:..."): the machine has InfiniBand or RoCE.
_IB_HCAS = re.compile(r"NET/IB ?: Using \[\d{1,2}\]([\w.-]{1,30}):\d{1,2}/(IB|RoCE)\b")
# NCCL's IB transport could not load the verbs library (src/misc/ibvwrap.cc, a WARN up to 2.3,
# later INFO) or found no HCA (`NET/IB : No device found.`: a container without
# /dev/infiniband): harmless on a machine without InfiniBand, the reason for sockets on one with it.
_NO_VERBS = re.compile(r"Failed to open (libibverbs\.so)|NET/IB ?: (No device found)")
_CHANNEL = re.compile(r"\bvia NET/([A-Za-z][\w ]{0,40}?)/\d{1,3}(?:\(\d{1,3}\))?(/GDRDMA)?")
_NO_PLUGIN = re.compile(
    r"NET/Plugin\s?:\s?(?:No plugin found|Could not find:?\s{0,4}\S*libnccl-net|"
    r"Using internal net(?:work)? plugin)"
)
_DLERROR = re.compile(r"(?:dlerror=|Plugin load returned \d{1,4}\s?:\s?)(.{1,600})")
_PLUGIN_FAILED = re.compile(
    r"aws-ofi-nccl initialization failed|NET/OFI Initializing plugin failed|"
    r"Failed to initialize any NET plugin"
)
_GDR_OFF = re.compile(r"GDR disabled on GDR-supported instance type ([\w.-]{1,40})")
_MEMREG = re.compile(r"NET/OFI Unable to register memory \(type = 2\)")
# "NCCL_IB_DISABLE set by environment to 0."; the IB and socket transports print their own
# "NCCL_IB_HCA set to mlx5_0:1" (src/transport/net_ib.cc, net_socket.cc). A line quoted in
# prose ("... set by environment to 0") keeps its quotes out of the value (NVIDIA/nccl#332).
_SET_BY_ENV = re.compile(
    r"\b([A-Z][A-Z0-9_]{2,60}) set (?:by environment )?to [\"'`]?(\S{1,400}?)[.\"'`]{0,3}\s*$"
)
_MISSING_FILE = re.compile(
    r"(lib[\w+.-]{1,80}?\.so(?:\.\d{1,4}){0,4}): cannot open shared object file"
)


def _plugin_error(line: Line, message: str) -> Fact:
    """A plugin dlopen error: the plugin itself missing, or present but not loadable."""
    missing = _MISSING_FILE.search(message)
    if missing is not None and missing.group(1).startswith("libnccl-net"):
        return ObservationFact(line, "net-plugin-missing", missing.group(1))
    return ObservationFact(line, "net-plugin-failed", message.split(" No plugin found")[0][:300])


def line_facts(line: Line) -> list[Fact]:
    """What one log line says; [] for the many lines that say nothing about the stack. Each
    expression runs only where its fixed words are (a 5 MB log is mostly channel lines)."""
    text = line.text
    facts: list[Fact] = []
    if "NCCL version" in text and (found := _NCCL_VERSION.search(text)):
        facts.append(ObservationFact(line, "nccl-loaded", found.group(1)))
        facts.append(
            ComponentFact(line, ComponentName.NCCL, version=found.group(1), cuda=found.group(2))
        )
    if "cudaDriverVersion" in text and (found := _DRIVER_CUDA.search(text)) is not None:
        cuda = versions.cuda_from_int(int(found.group(1)))
        facts.append(ComponentFact(line, ComponentName.DRIVER, cuda=cuda))
    if "NET/OFI" in text:
        facts.extend(_ofi_facts(line, text))
    if "rovider is" in text and (found := _PROVIDER.search(text)) is not None:
        facts.append(ObservationFact(line, "libfabric-provider", found.group(1).rstrip(",")))
    if "etwork" in text and (found := _NETWORK.search(text)) is not None:
        facts.append(ObservationFact(line, "net-transport", found.group(1)))
    if "Using" in text and "NET" in text and (found := _IPOIB.search(text)) is not None:
        facts.append(ObservationFact(line, "ipoib-interface", found.group(1)))
    if "NET/IB" in text and (found := _IB_HCAS.search(text)) is not None:
        fabric = "InfiniBand" if found.group(2) == "IB" else "RoCE"
        facts.append(ObservationFact(line, "rdma-fabric-stated", f"{fabric} ({found.group(1)})"))
    if ("libibverbs" in text or "No device" in text) and (found := _NO_VERBS.search(text)):
        facts.append(
            ObservationFact(line, "ib-transport-unavailable", found.group(1) or found.group(2))
        )
    if "via NET/" in text and (found := _CHANNEL.search(text)) is not None:
        transport = found.group(1).strip()
        facts.append(ObservationFact(line, "net-transport", transport))
        if transport != "Socket":
            facts.append(ObservationFact(line, "net-gdr", "yes" if found.group(2) else "no"))
    if "NET/Plugin" in text or "dlerror" in text or "Plugin load" in text:
        if (found := _DLERROR.search(text)) is not None:
            facts.append(_plugin_error(line, found.group(1)))
        elif _NO_PLUGIN.search(text):
            facts.append(ObservationFact(line, "net-plugin-missing", "libnccl-net.so"))
    if "ailed" in text and (found := _PLUGIN_FAILED.search(text)) is not None:
        facts.append(ObservationFact(line, "net-plugin-failed", found.group(0)))
    if "GDR disabled" in text and (found := _GDR_OFF.search(text)) is not None:
        facts.append(ObservationFact(line, "gdr-disabled", found.group(1)))
        facts.append(InstanceFact(line, found.group(1)))
    if (
        " set " in text
        and (found := _SET_BY_ENV.search(text)) is not None
        and is_recorded(found.group(1))
    ):
        facts.append(EnvFact(line, found.group(1), found.group(2)))
    return facts


def _ofi_facts(line: Line, text: str) -> list[Fact]:
    facts: list[Fact] = []
    if (found := _OFI.search(text)) is not None:
        facts.append(
            ComponentFact(
                line,
                ComponentName.OFI_NCCL,
                version=found.group(1),
                properties={"loaded_by_nccl": "yes (NCCL log)"},
            )
        )
    if (found := _LIBFABRIC.search(text)) is not None:
        facts.append(ComponentFact(line, ComponentName.LIBFABRIC, version=found.group(1)))
    if _MEMREG.search(text):
        facts.append(ObservationFact(line, "ofi-memory-registration-failed"))
    return facts


_LOG_LINE = re.compile(r"\bNCCL (?:INFO|WARN|TRACE|ERROR)\b")
# Lines printed on their own, without the log prefix, never a wrapped tail: rank 0's version
# (NCCL <= 2.1x prints it right after "Using network Socket"), nccl-tests' "#" header and
# comment lines.
_OWN_LINE = re.compile(r"^\s*(?:#|NCCL version \d)")


def _log_line(text: str) -> bool:
    # Searched from the first "NCCL ": no match starts before it, and the search skips the
    # host prefix (``\b`` still sees the character before, as in the whole text).
    at = text.find("NCCL ")
    return at >= 0 and _LOG_LINE.search(text, at) is not None


def _wraps(line: Line, before: Line) -> bool:
    """Whether ``line`` is the wrapped tail of the log line ``before``."""
    # A log line of its own first: it settles most lines with one search.
    return (
        not _log_line(line.text)
        and wrapped_tail(line, before)
        and _log_line(before.text)
        and _OWN_LINE.match(line.text) is None
    )


class NcclLog(Format):
    name = "nccl_log"
    title = "NCCL_DEBUG=INFO log"
    # NCCL 2.0-2.2 printed no "NCCL" after the prefix: "host:700:785 [0] INFO 0 -> 1 via ...".
    anchor = re.compile(
        r"\bNCCL (?:INFO|WARN|TRACE|ERROR)\b|^NCCL version \d|\bNET/(?:OFI|Plugin|Socket|IB)\b|"
        r"^[\w.-]{1,80}:\d{1,9}:\d{1,9} \[\d{1,4}\] (?:[\w/.]{1,60}:\d{1,5} )?(?:INFO|WARN) "
    )
    blank_ok = True
    own_anchor_continues = True

    def opens(self, line: Line) -> bool:
        # The anchor's first branch alone settles nearly every line of a log, and much faster
        # than the four branches tried at each character (asked once per line of a 5 MB log).
        return _log_line(line.text) or super().opens(line)

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or (bool(segment) and _wraps(line, segment[-1]))

    def logical(self, lines: Sequence[Line]) -> list[Line]:
        logical: list[Line] = []
        tail: Line | None = None  # the last physical line of the current logical line
        for line in lines:
            if logical and tail is not None and _wraps(line, tail):
                logical[-1] = joined_line(logical[-1], line)
            else:
                logical.append(line)
            tail = line
        return logical

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        """Facts of the segment's logical lines (``logical``: read_report joins them once)."""
        facts: list[Fact] = []
        for line in lines:
            facts.extend(line_facts(line))
        return facts
