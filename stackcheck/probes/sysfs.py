"""The sysfs directories more than one probe reads: defined once, so that a tree built for a
test (``--root``) and every probe agree on where the kernel puts them."""

from __future__ import annotations

PCI_DEVICES = "/sys/bus/pci/devices"
SYS_INFINIBAND = "/sys/class/infiniband"
DMI = "/sys/devices/virtual/dmi/id"
DMI_VENDOR = f"{DMI}/sys_vendor"
DMI_PRODUCT = f"{DMI}/product_name"
