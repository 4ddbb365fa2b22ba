"""Building filesystem trees shaped like a DLAMI host or a container image, for ``--root``.

Text files hold real output recorded from the tools (see ``recorded.py``); shared objects are
real ELF files compiled by gcc with the sonames, dependencies and strings of the real libraries.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from tests.support.elfbuild import ElfFactory
from tests.support.recorded import DEBIAN_MULTIARCH_CONF


class Site:
    """A site-packages directory inside a root."""

    def __init__(self, root: Root, rel: str) -> None:
        self.root = root
        self.rel = rel.strip("/")
        (root.path / self.rel).mkdir(parents=True, exist_ok=True)

    def dist(self, name: str, version: str, requires: Sequence[str] = ()) -> None:
        folder = f"{self.rel}/{name.replace('-', '_')}-{version}.dist-info"
        lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
        lines += [f"Requires-Dist: {r}" for r in requires]
        self.root.write(f"{folder}/METADATA", "\n".join(lines) + "\n")

    def torch(
        self,
        version: str,
        cuda: str | None,
        archs: str | None = None,
        rpath: str = "$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nccl/lib:"
        "$ORIGIN/../../nvidia/cuda_runtime/lib:$ORIGIN",
        cuda_major: int = 12,
    ) -> None:
        cuda_text = "None" if cuda is None else repr(cuda)
        self.root.write(
            f"{self.rel}/torch/version.py",
            "from typing import Optional\n\n"
            "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
            f"__version__ = {version!r}\n"
            "debug = False\n"
            f"cuda: Optional[str] = {cuda_text}\n"
            "git_version = '5c4886908584029761b579af026dcfb627c84070'\n"
            "hip: Optional[str] = None\n",
        )
        self.dist("torch", version)
        if cuda is None:
            return
        self.root.elf(
            f"{self.rel}/torch/lib/libtorch_cuda.so",
            needed=[f"libcudart.so.{cuda_major}", "libnccl.so.2", "libcudnn.so.9"],
            rpath=rpath,
        )
        if archs is not None:
            self.root.elf(f"{self.rel}/torch/lib/libtorch_python.so", strings=[archs])

    def nccl_wheel(self, version: str, cuda_major: int, binary_version: str | None = None) -> None:
        strings = [f"NCCL version {binary_version}"] if binary_version else []
        self.root.elf(
            f"{self.rel}/nvidia/nccl/lib/libnccl.so.2", soname="libnccl.so.2", strings=strings
        )
        self.dist(f"nvidia-nccl-cu{cuda_major}", version)

    def cudnn_wheel(self, version: str, cuda_major: int) -> None:
        self.root.elf(f"{self.rel}/nvidia/cudnn/lib/libcudnn.so.9", soname="libcudnn.so.9")
        self.dist(f"nvidia-cudnn-cu{cuda_major}", version)

    def cudart_wheel(self, version: str, cuda_major: int) -> None:
        self.root.elf(
            f"{self.rel}/nvidia/cuda_runtime/lib/libcudart.so.{cuda_major}",
            soname=f"libcudart.so.{cuda_major}",
        )
        self.dist(f"nvidia-cuda-runtime-cu{cuda_major}", version)


class Root:
    def __init__(self, path: Path, elves: ElfFactory) -> None:
        self.path = path
        self.elves = elves
        path.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, content: str | bytes) -> Path:
        target = self.path / rel.strip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
        return target

    def link(self, rel: str, target: str) -> None:
        path = self.path / rel.strip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        os.symlink(target, path)

    def elf(self, rel: str, **options: object) -> Path:
        return self.elves.build(self.path / rel.strip("/"), **options)  # type: ignore[arg-type]

    def site(self, rel: str) -> Site:
        return Site(self, rel)

    def venv(self, prefix: str, python: str = "3.11") -> Site:
        self.write(f"{prefix}/pyvenv.cfg", f"home = /usr/bin\nversion = {python}.7\n")
        return self.site(f"{prefix}/lib/python{python}/site-packages")

    # -- host facts ---------------------------------------------------------------------------
    def driver(self, proc_version: str, gpus: Sequence[tuple[str, str]] = ()) -> None:
        """/proc/driver/nvidia/version and one information file per (bus id, text)."""
        self.write("proc/driver/nvidia/version", proc_version)
        for bus, information in gpus:
            self.write(f"proc/driver/nvidia/gpus/{bus}/information", information)

    def user_driver(self, version: str, directory: str = "usr/lib/x86_64-linux-gnu") -> None:
        self.elf(f"{directory}/libcuda.so.{version}", soname="libcuda.so.1")
        self.link(f"{directory}/libcuda.so.1", f"libcuda.so.{version}")
        self.elf(f"{directory}/libnvidia-ml.so.{version}", soname="libnvidia-ml.so.1")
        self.link(f"{directory}/libnvidia-ml.so.1", f"libnvidia-ml.so.{version}")

    def debian_loader(self) -> None:
        self.write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
        self.write("etc/ld.so.conf.d/x86_64-linux-gnu.conf", DEBIAN_MULTIARCH_CONF)

    def ld_conf(self, name: str, *directories: str) -> None:
        self.write(f"etc/ld.so.conf.d/{name}", "".join(f"{d}\n" for d in directories))

    def dmi(self, vendor: str, product: str) -> None:
        self.write("sys/devices/virtual/dmi/id/sys_vendor", vendor + "\n")
        self.write("sys/devices/virtual/dmi/id/product_name", product + "\n")

    def efa_devices(self, *names: str) -> None:
        (self.path / "sys/bus/pci/drivers/efa").mkdir(parents=True, exist_ok=True)
        for name in names:
            device = f"sys/devices/pci0000:00/{name}"
            (self.path / device).mkdir(parents=True, exist_ok=True)
            self.link(f"{device}/driver", "/sys/bus/pci/drivers/efa")
            self.link(f"sys/class/infiniband/{name}/device", f"/{device}")

    def fabric_manager(self, version: str) -> None:
        """nvidia-fabricmanager as its Debian package installs it: the binary and the record."""
        self.elf("usr/bin/nv-fabricmanager")
        branch = version.split(".")[0]
        status = self.path / "var/lib/dpkg/status"
        before = status.read_text() + "\n" if status.exists() else ""
        self.write(
            "var/lib/dpkg/status",
            before + f"Package: nvidia-fabricmanager-{branch}\nStatus: install ok installed\n"
            f"Version: {version}-1\n",
        )

    def toolkit(self, version: str, default: bool = True) -> None:
        short = ".".join(version.split(".")[:2])
        self.write(
            f"usr/local/cuda-{short}/version.json",
            '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "'
            + version
            + '"\n   }\n}\n',
        )
        major = version.split(".")[0]
        self.elf(
            f"usr/local/cuda-{short}/lib64/libcudart.so.{version}", soname=f"libcudart.so.{major}"
        )
        self.link(f"usr/local/cuda-{short}/lib64/libcudart.so.{major}", f"libcudart.so.{version}")
        if default:
            self.link("usr/local/cuda", f"cuda-{short}")
