"""Singularity and Apptainer command lines (``singularity exec|run|shell|test|instance start``,
``apptainer ...``): whether the container is given the host's NVIDIA driver and GPUs.

Neither tool binds an NVIDIA device or driver library into a container unless asked: ``--nv``
binds the files the host's ``nvliblist.conf`` names, ``--nvccli`` has the NVIDIA container
toolkit do it (apptainer/apptainer internal/pkg/runtime/launch/launcher_linux.go: the GPU setup
runs only under those flags, or where ``APPTAINER_NV`` / ``SINGULARITY_NV`` or the
configuration's ``always use nv`` sets them). So a command without either starts a container
whose CUDA programs see no GPU; one with either is a GPU request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.docker_run import tokens
from stackcheck.ingest.formats.prose import Prose
from stackcheck.ingest.lines import Line

_START = re.compile(
    r"(?:^|[\s/$>`'\"(])((?:singularity|apptainer)\s+(?:exec|run|shell|test|instance\s+start))\s"
)
# Options that take a value as the next word (apptainer 1.x, singularity 3.x `exec --help`).
_VALUED = frozenset(
    "-B --bind --mount -H --home -o --overlay -W --workdir -S --scratch --env --env-file --pwd "  # noqa: SIM905
    "--security --hostname --network --network-args --app --fusemount --pem-path --dns "
    "--drop-caps --add-caps --apply-cgroups --cpus --memory --memory-reservation --memory-swap "
    "--cpu-shares --cpuset-cpus --cpuset-mems --blkio-weight --pids-limit --passphrase-file "
    "--config --authfile --docker-login --platform --arch".split()
)
# What an image argument looks like: a URI of a source the tools pull from, an image file, a
# sandbox directory's path. A plain word is a sentence's ("in singularity shell, gpu can't ...").
_IMAGE = re.compile(
    r"^(?:(?:docker|docker-archive|docker-daemon|oci|oci-archive|library|shub|oras|https?|"
    r"instance)://\S{1,300}|\S{1,300}\.(?:sif|simg|img|sqsh|sqfs)|[\w.~$-]{0,200}/[\w./$-]{1,300})$"
)
_GPU_FLAGS = ("--nv", "--nvccli")


class Singularity(Format):
    name = "singularity"
    title = "singularity / apptainer command"
    anchor = _START

    def opens(self, line: Line) -> bool:
        # Every line of a log asks: the tools' names screen it before the expression runs.
        text = line.text
        return ("singularity" in text or "apptainer" in text) and _START.search(text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            read = _command(line)
            facts.extend(read if read is not None else Prose().parse([line]))
        return facts


def _command(line: Line) -> list[Fact] | None:
    """What one command line says of the GPUs; None where the line is no such command (the
    tool named in a sentence)."""
    start = _START.search(line.text)
    if start is None:
        return None
    words = tokens(line.text[start.start(1) :])
    image: str | None = None
    flags: list[str] = []
    valued = False
    for word in words[len(start.group(1).split()) :]:
        if valued:
            valued = False
        elif word.startswith("-"):
            flags.append(word.split("=", 1)[0])
            valued = word in _VALUED
        else:
            image = word if _IMAGE.match(word) else None
            break
    if image is None:
        return None
    command = f"{start.group(1)} {image}"
    gpu = next((flag for flag in flags if flag in _GPU_FLAGS), None)
    if gpu is not None:
        return [ObservationFact(line, "gpu-implied", f"{command} ({gpu})")]
    return [ObservationFact(line, "singularity-without-nv", command)]
