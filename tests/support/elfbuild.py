"""Real shared objects for tests, compiled with gcc and cached per session.

Each has the SONAME, DT_NEEDED entries, RPATH/RUNPATH and .rodata strings a test asks for,
so the probes read the same structures a real libtorch_cuda.so or aws-ofi-nccl plugin has.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path


class ElfFactory:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.stubs = workdir / "stubs"
        self.stubs.mkdir(parents=True, exist_ok=True)

    def _stub(self, soname: str) -> None:
        """A library with this SONAME to link against, so it becomes a DT_NEEDED entry."""
        target = self.stubs / soname
        if not target.exists():
            source = self.stubs / f"{soname}.c"
            source.write_text("int stackcheck_stub_symbol(void) { return 0; }\n")
            self._gcc(["-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(target), str(source)])

    @staticmethod
    def _gcc(arguments: list[str]) -> None:
        subprocess.run(["gcc", *arguments], check=True, capture_output=True, timeout=60)

    def build(
        self,
        destination: Path,
        *,
        soname: str | None = None,
        needed: Sequence[str] = (),
        rpath: str | None = None,
        runpath: str | None = None,
        strings: Sequence[str] = (),
    ) -> Path:
        key = repr((soname, tuple(needed), rpath, runpath, tuple(strings)))
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        cached = self.workdir / f"{digest}.so"
        if not cached.exists():
            for name in needed:
                self._stub(name)
            body = "".join(
                f'__attribute__((used)) static const char s{i}[] = "{text}";\n'
                for i, text in enumerate(strings)
            )
            source = self.workdir / f"{digest}.c"
            source.write_text(body + "int stackcheck_entry(void) { return 1; }\n")
            arguments = ["-shared", "-fPIC", "-o", str(cached), str(source)]
            if soname:
                arguments.append(f"-Wl,-soname,{soname}")
            if rpath:
                arguments.append(f"-Wl,--disable-new-dtags,-rpath,{rpath}")
            if runpath:
                arguments.append(f"-Wl,--enable-new-dtags,-rpath,{runpath}")
            if needed:
                arguments += [f"-L{self.stubs}", "-Wl,--no-as-needed"]
                arguments += [f"-l:{name}" for name in needed]
            self._gcc(arguments)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, destination)
        return destination
