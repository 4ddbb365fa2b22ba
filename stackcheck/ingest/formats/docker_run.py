"""``docker run`` (and ``nvidia-docker run``, ``podman run``) command lines, continuations joined.

What decides a GPU job's fate is in the options: ``--gpus`` / ``--runtime=nvidia``,
``--shm-size`` / ``--ipc=host`` (Docker's /dev/shm is 64 MB otherwise), ``--ulimit memlock``,
``--device /dev/infiniband/uverbs*`` (EFA), ``--entrypoint`` and ``-e`` entries.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import replace

from stackcheck.ingest.facts import Fact, RunSpecFact
from stackcheck.ingest.formats.base import Format, continued, joined
from stackcheck.ingest.formats.prose import Prose, settings
from stackcheck.ingest.formats.runspec import add_env, add_named_gpu, count_ids, visible_limit
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import limit_bytes, size_bytes
from stackcheck.snapshot.model import RunSpec

_NV_GPU = re.compile(r"\bNV_GPU=['\"]?([\w,-]{1,80})")
_START = re.compile(r"\b((?:nvidia-)?docker|podman)\s+(?:container\s+)?run\b")
# docker run options that take a value (the rest are flags).
_VALUED = frozenset(
    [
        "-a",
        "-c",
        "-e",
        "-h",
        "-l",
        "-m",
        "-p",
        "-u",
        "-v",
        "-w",
        "--add-host",
        "--annotation",
        "--attach",
        "--blkio-weight",
        "--cap-add",
        "--cap-drop",
        "--cgroup-parent",
        "--cgroupns",
        "--cidfile",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpu-shares",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--device",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "--env",
        "--env-file",
        "--expose",
        "--gpus",
        "--group-add",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-start-period",
        "--health-timeout",
        "--hostname",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "--label",
        "--label-file",
        "--link",
        "--link-local-ip",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--network",
        "--net",
        "--network-alias",
        "--oom-score-adj",
        "--pid",
        "--pids-limit",
        "--platform",
        "--publish",
        "--pull",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--sysctl",
        "--tmpfs",
        "--ulimit",
        "--user",
        "--userns",
        "--uts",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "--workdir",
    ]
)


def tokens(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:  # an unbalanced quote in a half-pasted line
        return command.split()


def run_spec(command: str, lines: Sequence[Line]) -> tuple[RunSpec, list[Fact]]:
    spec = RunSpec(kind="docker-run")
    facts: list[Fact] = []
    start = _START.search(command)
    words = tokens(command[start.start() :] if start else command)
    if words and words[0] == "nvidia-docker":
        spec.runtime, spec.gpus = "nvidia", "all (nvidia-docker)"
        # `NV_GPU=1 nvidia-docker run`: the wrapper's own GPU selection (1.0's devices, 2.0's
        # NVIDIA_VISIBLE_DEVICES), set in front of the command.
        chosen = _NV_GPU.search(command[: start.start()]) if start else None
        if chosen is not None:
            spec.gpus = f"NV_GPU={chosen.group(1)} (nvidia-docker)"
            spec.gpu_count = count_ids(chosen.group(1))
            add_env(spec, lines[0], "NVIDIA_VISIBLE_DEVICES", chosen.group(1), facts)
    index = next((i + 1 for i, w in enumerate(words[:4]) if w == "run"), len(words))
    while index < len(words):
        word = words[index]
        if word == "--" or not word.startswith("-") or word == "-":
            index += word == "--"
            break
        name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if name in _VALUED and not eq:
            value = words[index + 1] if index + 1 < len(words) else ""
            index += 1
        _apply(spec, name, value, lines[0], facts)
        index += 1
    if index < len(words):
        spec.image = words[index]
        spec.command = " ".join(words[index + 1 :]) or None
    if spec.command:
        # What the command sets for its own processes (`mpirun -x NCCL_X=1`, `env NCCL_X=1 ...`)
        # is read as a sentence's settings are: the same whether or not the line was wrapped.
        facts.extend(settings(replace(lines[0], text=spec.command)))
    visible_limit(spec)
    return spec, facts


def _apply(spec: RunSpec, name: str, value: str, line: Line, facts: list[Fact]) -> None:
    if name == "--gpus":
        spec.gpus = value.strip("'\"")
        spec.gpu_count = count_ids(value)
    elif name == "--runtime":
        spec.runtime = value
        if value == "nvidia" and spec.gpus is None:
            spec.gpus = "runtime=nvidia"
    elif name == "--shm-size":
        spec.shm_bytes = size_bytes(value)
    elif name == "--ipc":
        spec.ipc = value
    elif name == "--ulimit" and value.startswith("memlock="):
        spec.memlock_bytes = limit_bytes(value.split("=", 1)[1].split(":")[0])
    elif name == "--device":
        spec.devices.append(value.split(":")[0])
        cdi = _CDI_GPU.match(value.strip("'\""))
        if cdi is not None:
            # A CDI device (podman, Docker 25+): `nvidia.com/gpu=all`, `=0`, a GPU's UUID; each
            # --device names one GPU unless it names them all.
            add_named_gpu(spec, value.strip("'\""), ",")
    elif name == "--privileged":
        spec.privileged = value.lower() != "false"  # `--privileged=true` too
    elif name in ("-e", "--env"):
        key, _, val = value.partition("=")
        if key:
            add_env(spec, line, key, val, facts)
    elif name == "--entrypoint":
        spec.entrypoint = value
    elif name in ("-v", "--volume", "--mount"):
        spec.volumes.append(value)


# What the tail of a command wrapped before its image starts with: an option, or an image
# reference (a registry path or a tag: a plain word is the next sentence).
_TAIL = re.compile(r"^\s*(?:-{1,2}[\w-]|[\w.-]{1,200}[/:][\w./:@-]{1,300}(?:\s|$))")


# An image reference with a repository path or a tag, not a log line's ``host:pid:tid``.
_IMAGE = re.compile(
    r"(?:[\w.-]{1,200}(?::\d{1,5})?/)?[\w./-]{1,300}(?::[\w.-]{1,128})?(?:@sha256:[0-9a-f]{64})?"
)


def _wrapped_before_image(line: Line, segment: Sequence[Line]) -> bool:
    """Whether ``line`` is the wrapped tail of a ``docker run`` line that names no image yet (a
    browser wraps early before a long word: any length of line may have been wrapped)."""
    if not line.text.strip():
        return False
    words = tokens(joined(segment))
    if words and words[-1] in _VALUED:
        return True  # the option's value went to the next line
    return (
        _TAIL.match(line.text) is not None and run_spec(joined(segment), segment)[0].image is None
    )


# A GPU requested as a CDI device: `--device nvidia.com/gpu=all` (or an index, a UUID, a MIG id).
_CDI_GPU = re.compile(r"^nvidia\.com/gpu=([\w:.-]{1,80})$")

# Quotes that close a command named inside a sentence (Markdown's backtick, plain and curly).
_QUOTES = frozenset("`'\"\u2019\u201d")

# Words that follow "docker run" in a sentence about it, where an image would stand in a command.
_PROSE_WORDS = frozenset(
    "means when with without and or but to is was will would does did can could fails failed "  # noqa: SIM905
    "works worked command commands which that then as in on for of the a an it this".split()
)


def _inline_command(raw: str, start: int) -> str | None:
    """The command where a sentence quotes it as inline code (``when I use `docker run --gpus
    device=0,1` and `cluster = ...` ``): it ends at the span's closing backtick, and the
    sentence's next words are no image. None where the command is not inside such a span."""
    if raw.count("`", 0, start) % 2 == 0:
        return None
    close = raw.find("`", start)
    return raw[start:close] if close > 0 else None


class DockerRun(Format):
    name = "docker_run"
    title = "docker run"
    anchor = _START

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return continued(segment) or _wrapped_before_image(line, segment)

    def holds(self, line: Line, segment: Sequence[Line]) -> bool:
        """A line wrapped before the image (an option's value, the image) stays in the command
        even where what follows opens another format (``IMAGE mpirun -np 16``: a launcher)."""
        words = tokens(joined(segment))
        if words and words[-1] in _VALUED:
            return bool(line.text.strip())  # the option's value went to this line
        first = line.text.split(maxsplit=1)[0] if line.text.strip() else ""
        return _IMAGE.fullmatch(first) is not None and _wrapped_before_image(line, segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        named = _START.search(lines[0].raw)
        if named is not None and lines[0].raw[named.end() : named.end() + 1] in _QUOTES:
            # "`docker run` when using ...", an image's banner "Use 'nvidia-docker run' to
            # start this container": the command named in a sentence, not one that ran
            return []
        inline = _inline_command(lines[0].raw, named.start()) if named is not None else None
        spec, facts = run_spec(joined(lines) if inline is None else inline, lines)
        # A sentence's word keeps its punctuation: "adding --gpus all to docker run command."
        prose_word = (spec.image or "").rstrip(".,;:!?").lower() in _PROSE_WORDS
        if (prose_word and not spec.gpus and not spec.env) or spec == RunSpec(kind="docker-run"):
            # "for docker run means that ...", "forgot to add --gpus all to docker run, now it
            # works": a sentence about the command, read as the sentence it is
            return Prose().parse(lines)
        if prose_word:
            # "`docker run --gpus device=0,1` and ...": the options are the sentence's, the
            # word after them no image (rapidsai/docker#306)
            spec = replace(spec, image=None)
        return [RunSpecFact(lines[0], spec, list(lines)), *facts]
