"""Real output of NVIDIA's driver and tools, as recorded in public posts, for the probes' tests.

No GPU runs here, so these texts stand in for the live files. Each was copied verbatim from a
public post or documentation page (named per constant); only where a test needs several GPUs is
the bus location varied, line for line in the recorded layout.
"""

from __future__ import annotations

# /proc/driver/nvidia/version of the open kernel module, R580 (a public issue comment that also
# shows nvidia-smi with "Driver Version: 580.95.05  CUDA Version: 13.0").
PROC_VERSION_580 = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
    "(dvs-builder@U22-I3-B17-02-5)  Tue Sep 23 09:55:41 UTC 2025\n"
    "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04.2) \n"
)

# /proc/driver/nvidia/version of the proprietary module, R535 (a public Ubuntu forum post).
PROC_VERSION_535 = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"
)

# /proc/driver/nvidia/gpus/0000:62:00.0/information of an H100 (a public documentation page on
# GPU hosts).
H100_INFORMATION = """\
Model:           NVIDIA H100 80GB HBM3
IRQ:             10
GPU UUID:        GPU-9221d5d1-b60b-a624-bf14-0a1819cfda3b
Video BIOS:      96.00.99.00.01
Bus Type:        PCIe
DMA Size:        52 bits
DMA Mask:        0xfffffffffffff
Bus Location:    0000:62:00.0
Device Minor:    5
GPU Firmware:    535.129.03
GPU Excluded:    No
"""

# The same file on an A10G (g5), tab-separated as the driver writes it (a public test fixture
# of a monitoring agent, recorded from a g5 instance).
A10G_INFORMATION = (
    "Model: \t\t NVIDIA A10G\n"
    "IRQ:   \t\t 42\n"
    "GPU UUID: \t GPU-82523fd8-3897-f599-d088-ccd04ae45ec1\n"
    "Video BIOS: \t 94.04.42.00.01\n"
    "Bus Type: \t PCIe\n"
    "DMA Size: \t 47 bits\n"
    "DMA Mask: \t 0x7fffffffffff\n"
    "Bus Location: \t 0000:00:1e.0\n"
    "Device Minor: \t 3\n"
    "GPU Excluded: \t No\n"
)

# A V100 (p3), as a monitoring tool's source documents the file.
V100_INFORMATION = """\
Model:           Tesla V100-SXM2-16GB
IRQ:             408
GPU UUID:        GPU-edfee158-11c1-52b8-0517-92f30e7fac88
Video BIOS:      88.00.41.00.01
Bus Type:        PCIe
DMA Size:        47 bits
DMA Mask:        0x7fffffffffff
Bus Location:    0000:06:00.0
Device Minor:    0
GPU Excluded:    No
"""

# Debian 12's /etc/ld.so.conf.d/x86_64-linux-gnu.conf (package libc6).
DEBIAN_MULTIARCH_CONF = """\
# Multiarch support
/usr/local/lib/x86_64-linux-gnu
/lib/x86_64-linux-gnu
/usr/lib/x86_64-linux-gnu
"""


def h100_gpus(count: int = 8) -> list[tuple[str, str]]:
    """``count`` H100s with the recorded text, each on its own bus and minor number."""
    gpus = []
    for minor in range(count):
        bus = f"0000:{0x53 + minor * 0x10:02x}:00.0"
        text = H100_INFORMATION.replace("0000:62:00.0", bus).replace(
            "Device Minor:    5", f"Device Minor:    {minor}"
        )
        gpus.append((bus, text))
    return gpus
