"""The live host: the sources a running machine has beyond its files."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field
from types import ModuleType

from stackcheck.live import commands, imds, nvml


@dataclass
class LiveHost:
    allow_network: bool = True  # the EC2 metadata service; --no-network turns it off
    nvml_module: ModuleType | None = None  # None: import pynvml
    command_timeout: float = commands.DEFAULT_TIMEOUT
    _nvml: nvml.NvmlReport | None = field(default=None, init=False, repr=False)
    _commands: dict[tuple[str, ...], commands.CommandResult] = field(
        default_factory=dict, init=False, repr=False
    )

    def nvml(self) -> nvml.NvmlReport:
        if self._nvml is None:
            self._nvml = nvml.query(self.nvml_module)
        return self._nvml

    def command(self, argv: list[str]) -> commands.CommandResult:
        key = tuple(argv)
        if key not in self._commands:
            self._commands[key] = commands.run(argv, self.command_timeout)
        return self._commands[key]

    def instance_type(self) -> str | None:
        return imds.instance_type() if self.allow_network else None

    @staticmethod
    def memlock_bytes() -> int:
        soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
        return -1 if soft == resource.RLIM_INFINITY else int(soft)

    @staticmethod
    def shm_bytes() -> int | None:
        try:
            st = os.statvfs("/dev/shm")
        except OSError:
            return None
        return st.f_blocks * st.f_frsize
