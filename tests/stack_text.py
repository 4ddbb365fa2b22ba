"""Whether a report holds a version, a message or a listing: the denominator of issue 13's
"nothing recognised" goal, decided by the text's shape alone, never by what triage reads (so
that teaching triage a new reading cannot move the denominator).

A report holds one when any line has:

- a **version**: a stack component's name (driver, CUDA, cuDNN, NCCL, PyTorch, nvcc, nvidia-smi,
  libfabric, EFA, aws-ofi-nccl, the fabric manager) followed within 25 characters on that line
  by a number of the shape ``N.N`` (``cuda11.4``, ``PyTorch Version (e.g., 1.0): 2.1``);
- a **message**: an error or warning shape (``SomethingError:``, ``...Exception:``, a word
  ``ERROR``, ``WARN``, ``WARNING``, ``FATAL`` in capitals, ``error:`` / ``warning:`` / ``fatal
  error:``, a Python traceback's first line, ``NVRM:``, ``Xid``, an NCCL ``INFO`` / ``WARN``
  line, ``CUDA error``, a ``CUDA_ERROR_`` / ``CUDNN_STATUS_`` / ``NCCL_`` status name, a
  ``Segmentation fault`` / ``Bus error`` / ``core dumped`` / ``received signal``, an errno text:
  ``No such file or directory``, ``Permission denied``, ``Cannot allocate memory``);
- a **listing**'s row: ``name==1.2`` (pip freeze), a ``name   1.2.3`` row (pip list, conda),
  ``ii  name  1.2`` (dpkg), ``name-1.2-3.el8.x86_64`` (rpm), an ``ls -l`` mode column, an
  ``ldconfig -p`` row (``(libc6,x86-64) =>``), nvidia-smi's table (``NVIDIA-SMI``, ``MiB /``),
  a syslog or journald line (``Feb 14 05:03:41 host kernel: ...``).

An issue template's placeholder (``(e.g., 1.10)``) is dropped first: it states nothing.

A report whose whole text is prose without numbers, code without messages, or a question holds
none: triage may say "nothing recognised" there without counting against the goal.
"""

from __future__ import annotations

import re

_VERSION = re.compile(
    r"(?<![\w-])(?:nvidia[- ]driver|driver|cuda|cudnn|nccl|(?:py)?torch|nvcc|nvidia-smi|"
    r"libfabric|efa|aws-ofi-nccl|fabric\s?manager)"
    r"[^\n]{0,25}?(?<![\d.])v?\d{1,3}\.\d{1,3}",
    re.IGNORECASE,
)
_MESSAGE = re.compile(
    r"\b\w*(?:Error|Exception)\b:|\b(?:ERROR|WARN|WARNING|FATAL)\b|"
    r"\b(?:[Ee]rror|[Ww]arning|fatal error):|Traceback \(most recent call last\)|"
    r"\bNVRM:|\bXid\b|\bNCCL (?:INFO|WARN)\b|\bCUDA error\b|\b(?:CUDA_ERROR|CUDNN_STATUS)_[A-Z_]+|"
    r"\bSegmentation fault\b|\bBus error\b|\bcore dumped\b|\breceived signal\b|"
    r"\b(?i:no such file or directory|permission denied|cannot allocate memory)\b"
)
_LISTING = re.compile(
    r"^\s*[A-Za-z][\w.-]*==\d|"
    r"^\s*[A-Za-z][\w.-]*\s{2,}\d+(?:\.\d+)+\S*(?:\s+\S+){0,2}\s*$|"
    r"^[ih][inu]\s{1,2}\S+\s+\d|"
    r"^[\w.+-]+-\d[\w.]*-[\w.]+\.(?:x86_64|aarch64|noarch|ppc64le)\s*$|"
    r"^[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d|"
    r"\([\w,-]+\)\s=>\s/|"
    r"\bNVIDIA-SMI\s\d|\d\s?MiB\s/\s+\d|"
    r"^[A-Z][a-z]{2}\s{1,2}\d{1,2}\s\d\d:\d\d:\d\d\s\S+\s[\w.-]+(?:\[\d+\])?:\s",
    re.MULTILINE,
)


# An issue template's placeholder ("PyTorch Version (e.g., 1.10):") states nothing.
_EXAMPLE = re.compile(r"\((?:e\.g\.|eg\.|for example)[^)\n]{0,80}\)", re.IGNORECASE)


def holds_stack_text(body: str) -> bool:
    """Whether the text holds a stack component's version, an error or warning message, or a
    listing's row (see the module's docstring for each shape)."""
    body = _EXAMPLE.sub("", body)
    return any(pattern.search(body) is not None for pattern in (_VERSION, _MESSAGE, _LISTING))
