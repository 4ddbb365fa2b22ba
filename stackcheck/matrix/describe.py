"""What the matrix covers, and its facts about one key, for `stackcheck matrix`.

Answers are plain data (pydantic models) so the command prints them as text or JSON. Every entry
keeps its ``source``, ``checked`` date and ``unsure`` mark; related facts carry their own source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from stackcheck import versions
from stackcheck.errors import StackcheckError
from stackcheck.matrix.index import MatrixIndex, instance_family
from stackcheck.matrix.models import (
    ContainerImage,
    CudaMajor,
    CudaRelease,
    Dlami,
    Fact,
    KnownIssue,
)

_Entry = TypeVar("_Entry", bound=Fact)


class TableCoverage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str  # the TOML table: "cuda_release"
    command: str  # what `stackcheck matrix COMMAND KEY` calls it: "cuda"
    entries: int
    first: str | None  # the oldest key: "11.0.2", "p3.2xlarge", "20251205"
    last: str | None
    unsure: int
    checked: date | None  # the newest `checked` date in the table


class Related(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str  # "known issue", "bundled by", "instances"
    text: str
    source: str | None = None
    unsure: bool = False


class Answer(BaseModel):
    """The matrix's facts about one key of one table, with related facts from other tables."""

    model_config = ConfigDict(extra="forbid")

    table: str
    query: str
    entries: list[dict[str, Any]]
    related: list[Related] = Field(default_factory=list)


@dataclass(frozen=True)
class _Table:
    command: str
    fields: tuple[str, ...]  # the Matrix fields it shows
    key: Callable[[Any], str]  # an entry's key as the user types it
    order: Callable[[str], Any] = versions.key  # how keys sort, oldest first


def _cuda_key(entry: CudaMajor | CudaRelease) -> str:
    return str(entry.major) if isinstance(entry, CudaMajor) else entry.version


TABLES: tuple[_Table, ...] = (
    _Table("cuda", ("cuda_major", "cuda_release"), lambda e: _cuda_key(e)),
    _Table("driver", ("driver_branch",), lambda e: str(e.branch)),
    _Table("gpu", ("gpu",), lambda e: e.name, str),
    _Table("torch", ("torch",), lambda e: e.version),
    _Table("cudnn", ("cudnn",), lambda e: e.version),
    _Table("nccl", ("nccl",), lambda e: e.version),
    _Table("ofi-nccl", ("ofi_nccl",), lambda e: e.version),
    _Table("efa", ("efa_installer",), lambda e: e.version),
    _Table("instance", ("instance",), lambda e: e.type, str),
    _Table("dlami", ("dlami",), lambda e: e.release, str),
    _Table("dlc", ("dlc",), lambda e: e.torch or e.tag),
    _Table("ngc", ("ngc",), lambda e: e.tag, str),
)
COMMANDS = tuple(t.command for t in TABLES)


def table_named(command: str) -> _Table:
    found = next((t for t in TABLES if t.command == command), None)
    if found is None:
        raise StackcheckError(f"no matrix table {command!r}; tables: {', '.join(COMMANDS)}")
    return found


def coverage(index: MatrixIndex) -> list[TableCoverage]:
    rows = []
    for spec in TABLES:
        for field in spec.fields:
            entries: Sequence[Fact] = getattr(index.matrix, field)
            keys = sorted((spec.key(e) for e in entries), key=spec.order)
            rows.append(
                TableCoverage(
                    table=field,
                    command=spec.command,
                    entries=len(entries),
                    first=keys[0] if keys else None,
                    last=keys[-1] if keys else None,
                    unsure=sum(1 for e in entries if e.unsure),
                    checked=max((e.checked for e in entries), default=None),
                )
            )
    return rows


def listing(index: MatrixIndex, command: str) -> list[tuple[str, bool]]:
    """Every key of a table, oldest first, with whether its entry is unsure."""
    spec = table_named(command)
    entries: list[Fact] = [e for f in spec.fields for e in getattr(index.matrix, f)]
    pairs = {(spec.key(e), e.unsure) for e in entries}
    return sorted(pairs, key=lambda p: spec.order(p[0]))


def _dump(entry: Fact) -> dict[str, Any]:
    """An entry as data; its known issues appear as related facts, with every other entry's
    issues that affect the version asked about."""
    return entry.model_dump(mode="json", exclude_none=True, exclude={"known_issues"})


def _about(label: str, text: str, fact: Fact | KnownIssue) -> Related:
    """A related fact, with the source and unsure mark of the entry it comes from."""
    return Related(label=label, text=text, source=fact.source, unsure=fact.unsure)


def _issue(issue: KnownIssue) -> Related:
    conditions = [f"with {c.value} {s}" for c, s in issue.requires.items()]
    if issue.gpus:
        conditions.insert(0, f"with {', '.join(issue.gpus)}")
    if issue.cpu_arch:
        conditions.append(f"on {issue.cpu_arch}")
    when = f" ({'; '.join(conditions)})" if conditions else ""
    fixed = f"; fixed in {issue.fixed_in}" if issue.fixed_in else ""
    workaround = f"; workaround: {issue.workaround}" if issue.workaround else ""
    label = "behaviour" if issue.kind == "behaviour" else f"known issue ({issue.severity})"
    return _about(
        label,
        f"{issue.summary}{when}: affects {issue.affected}{fixed}{workaround}",
        issue,
    )


def _issues_for(table: Sequence[Any], version: str | None) -> list[Related]:
    return [
        _issue(issue)
        for issue, _entry in MatrixIndex.known_issues(table)
        if versions.matches(version, issue.affected)
    ]


def _range(values: list[str]) -> str:
    ordered = sorted(values, key=versions.key)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]} ... {ordered[-1]}"


def _required(entry: _Entry | None, command: str, key: str) -> _Entry:
    if entry is None:
        raise _not_found(command, key)
    return entry


def _not_found(command: str, key: str) -> StackcheckError:
    return StackcheckError(
        f"{command} {key!r} is not in the matrix; `stackcheck matrix {command}` lists what it knows"
    )


# -- one function per table -------------------------------------------------------------------
def _cuda(index: MatrixIndex, key: str) -> Answer:
    """``13`` is the major and its releases; ``12.4`` the 12.4 line; ``12.4.1`` one release."""
    major = index.cuda_major(versions.major(key))
    parts = len(key.strip().split("."))
    wanted = versions.release(key, parts)
    releases = [
        r for r in index.matrix.cuda_release if versions.release(r.version, parts) == wanted
    ]
    if major is None or not releases:
        raise _not_found("cuda", key)
    entries: list[Fact] = [major, *releases]
    floor = _about(
        "minor-version compatibility",
        f"driver {major.min_driver} or newer runs any CUDA {major.major}.x runtime, with "
        "limits (no JIT of newer PTX)",
        major,
    )
    return Answer(table="cuda", query=key, entries=[_dump(e) for e in entries], related=[floor])


def _driver(index: MatrixIndex, key: str) -> Answer:
    branch = _required(index.driver_branch(key), "driver", key)
    related = []
    newest = index.newest_cuda_for_driver(key) if "." in key else None
    if newest is not None:
        related.append(
            _about(
                "runs", f"driver {key} runs CUDA up to {newest.version} at full feature set", newest
            )
        )
    for gpu in index.matrix.gpu:
        if gpu.last_driver_branch is not None and gpu.last_driver_branch < branch.branch:
            related.append(
                _about(
                    "drops",
                    f"{gpu.name} ({gpu.architecture}): last supported by R{gpu.last_driver_branch}",
                    gpu,
                )
            )
    return Answer(table="driver", query=key, entries=[_dump(branch)], related=related)


def _gpu(index: MatrixIndex, key: str) -> Answer:
    gpu = _required(index.gpu(key), "gpu", key)
    related = []
    instances = [i.type for i in index.matrix.instance if i.gpu == gpu.name]
    if instances:
        related.append(Related(label="instances", text=", ".join(instances)))
    first = index.nccl_first_for(gpu)
    if first is not None:
        related.append(_about("NCCL", f"supported from NCCL {first.version}", first))
    return Answer(table="gpu", query=key, entries=[_dump(gpu)], related=related)


def _torch(index: MatrixIndex, key: str) -> Answer:
    release = _required(index.torch_release(key), "torch", key)
    line = versions.release(key, 2)
    related = [
        _about("image", f"{i.repository}:{i.tag}", i)
        for i in index.images
        if versions.release(i.torch, 2) == line
    ]
    return Answer(table="torch", query=key, entries=[_dump(release)], related=related)


def _cudnn(index: MatrixIndex, key: str) -> Answer:
    release = _required(index.cudnn_release(key), "cudnn", key)
    return Answer(table="cudnn", query=key, entries=[_dump(release)])


def _nccl(index: MatrixIndex, key: str) -> Answer:
    release = _required(index.nccl_release(key), "nccl", key)
    related = _issues_for(index.matrix.nccl, key)
    span = release.net_api_span()
    if span is not None:
        plugins = [p.version for p in index.matrix.ofi_nccl if p.loadable_by(span)]
        if plugins:
            related.append(
                _about(
                    "net plugins",
                    f"loads ncclNet v{span[0]}-v{span[-1]}: aws-ofi-nccl "
                    f"{_range(plugins)} in the matrix export one of them",
                    release,
                )
            )
    return Answer(table="nccl", query=key, entries=[_dump(release)], related=related)


def _ofi_nccl(index: MatrixIndex, key: str) -> Answer:
    release = _required(index.ofi_nccl_release(key), "ofi-nccl", key)
    related = _issues_for(index.matrix.ofi_nccl, key)
    bundling = [e.version for e in index.matrix.efa_installer if e.ofi_nccl == release.version]
    if bundling:
        related.append(Related(label="bundled by", text=f"EFA installer {', '.join(bundling)}"))
    loaders = [
        n.version
        for n in index.matrix.nccl
        if (span := n.net_api_span()) is not None
        and release.loadable_by(span)
        and (release.nccl_min is None or versions.key(n.version) >= versions.key(release.nccl_min))
    ]
    if loaders:
        related.append(
            Related(
                label="NCCL",
                text=f"loaded by NCCL {_range(loaders)} in the matrix (net API and floor)",
            )
        )
    return Answer(table="ofi-nccl", query=key, entries=[_dump(release)], related=related)


def _efa(index: MatrixIndex, key: str) -> Answer:
    installer = _required(index.efa_installer(key), "efa", key)
    related = _issues_for(index.matrix.efa_installer, key)
    plugin = index.ofi_nccl_release(installer.ofi_nccl)
    if plugin is not None:
        related.append(
            _about(
                "bundles",
                f"aws-ofi-nccl {plugin.version} (NCCL >= {plugin.nccl_min}, libfabric >= "
                f"{plugin.libfabric_min}, net API v{_range([str(v) for v in plugin.net_api])})",
                plugin,
            )
        )
    return Answer(table="efa", query=key, entries=[_dump(installer)], related=related)


def _instance(index: MatrixIndex, key: str) -> Answer:
    exact = index.instance(key)
    family = instance_family(exact.type) if exact else key.strip().lower()
    entries = [exact] if exact else []
    entries = entries or [i for i in index.matrix.instance if instance_family(i.type) == family]
    if not entries:
        raise _not_found("instance", key)
    related = []
    gpu = index.gpu(entries[0].gpu)
    if gpu is not None:
        related.append(
            _about(
                "GPU",
                f"{gpu.name}: compute capability {gpu.compute_capability}, {gpu.architecture}",
                gpu,
            )
        )
    dlamis = sorted({d.name for d in index.matrix.dlami if family in d.instances})
    if dlamis:
        related.append(Related(label="DLAMIs", text="; ".join(dlamis)))
    return Answer(table="instance", query=key, entries=[_dump(e) for e in entries], related=related)


def _dlami(index: MatrixIndex, key: str) -> Answer:
    wanted = key.strip().lower()
    found: list[Dlami] = [
        d for d in index.matrix.dlami if d.release == wanted or wanted in d.name.lower()
    ]
    if not found:
        raise _not_found("dlami", key)
    found.sort(key=lambda d: (d.release, d.name), reverse=True)
    return Answer(table="dlami", query=key, entries=[_dump(d) for d in found])


def _images(command: str, images: list[ContainerImage], key: str) -> Answer:
    wanted = key.strip()
    found = [i for i in images if i.tag == wanted] or [
        i
        for i in images
        if i.tag.startswith(wanted)
        or (versions.parse(wanted) and versions.release(i.torch, 3) == versions.release(wanted, 3))
    ]
    if not found:
        raise _not_found(command, key)
    return Answer(table=command, query=key, entries=[_dump(i) for i in found])


def lookup(index: MatrixIndex, command: str, key: str) -> Answer:
    """The facts for ``key`` in the table ``command`` names; one clear error when it has none."""
    table_named(command)
    handlers: dict[str, Callable[[MatrixIndex, str], Answer]] = {
        "cuda": _cuda,
        "driver": _driver,
        "gpu": _gpu,
        "torch": _torch,
        "cudnn": _cudnn,
        "nccl": _nccl,
        "ofi-nccl": _ofi_nccl,
        "efa": _efa,
        "instance": _instance,
        "dlami": _dlami,
        "dlc": lambda i, k: _images("dlc", i.matrix.dlc, k),
        "ngc": lambda i, k: _images("ngc", i.matrix.ngc, k),
    }
    return handlers[command](index, key)
