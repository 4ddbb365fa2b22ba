"""The smallest change that makes a job fit, cheapest kind first.

Kinds, in the order they cost a job: shard the optimizer states (ZeRO-1, Megatron's distributed
optimizer: one more reduce-scatter), shard gradients too (ZeRO-2), checkpoint activations (about
a third more compute), shard parameters (ZeRO-3/FSDP: gathers every layer twice a step), another
layout on the same GPUs (more tensor parallelism inside the NVLink domain, or more pipeline
stages), more nodes (ZeRO shards over more ranks), a larger-memory instance.

Changes on the same hardware come before changes that cost instances. Within each, one change
that fits alone is the answer; when none does, the kinds are taken together in that order until
the job fits, and then each kind that the rest can do without is dropped again.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from stackcheck.matrix.models import Instance
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.memory import Estimate, Settings, estimate
from stackcheck.plan.search import (
    Pinned,
    gpu_memory,
    layouts,
    nvlink_domain,
    plannable,
    preference,
    reaches,
)


@dataclass(frozen=True)
class State:
    settings: Settings
    layout: JobLayout
    instance: Instance

    @cached_property
    def estimate(self) -> Estimate:
        return estimate(self.settings, self.layout, gpu_memory(self.instance))


@dataclass(frozen=True)
class Option:
    flag: str  # what to put on the command line
    reason: str
    state: State

    @property
    def total(self) -> float:
        return self.state.estimate.total.value

    @property
    def fits(self) -> bool:
        return self.state.estimate.fits


Kind = Callable[[State], list[Option]]


@dataclass(frozen=True)
class SettingsStep:
    """A change to how the job keeps its state, whatever its layout."""

    flag: str
    reason: str
    apply: Callable[[Settings], Settings | None]  # None: the job does this already
    shards: bool  # helps only with more than one data-parallel rank


def _zero_stage(stage: int) -> Callable[[Settings], Settings | None]:
    def apply(settings: Settings) -> Settings | None:
        return None if settings.zero >= stage else dataclasses.replace(settings, zero=stage)

    return apply


def _checkpoint(settings: Settings) -> Settings | None:
    return None if settings.checkpointing else dataclasses.replace(settings, checkpointing=True)


SETTINGS_STEPS = (
    SettingsStep(
        "--zero 1", "shard optimizer states over the data-parallel ranks", _zero_stage(1), True
    ),
    SettingsStep(
        "--zero 2",
        "shard optimizer states and gradients over the data-parallel ranks",
        _zero_stage(2),
        True,
    ),
    SettingsStep(
        "--activation-checkpointing",
        "keep only each layer's input and recompute the rest in the backward pass",
        _checkpoint,
        False,
    ),
    SettingsStep(
        "--zero 3",
        "shard optimizer states, gradients and parameters (ZeRO-3, FSDP)",
        _zero_stage(3),
        True,
    ),
)


def _settings_kind(step: SettingsStep) -> Kind:
    def options(state: State) -> list[Option]:
        settings = step.apply(state.settings)
        if settings is None or (step.shards and state.layout.dp * state.layout.cp < 2):
            return []
        return [Option(step.flag, step.reason, dataclasses.replace(state, settings=settings))]

    return options


def _sizes_flag(before: JobLayout, after: JobLayout) -> str:
    changed = [
        f"--{name} {getattr(after, name)}"
        for name in ("tp", "pp", "ep", "nodes")
        if getattr(after, name) != getattr(before, name)
    ]
    return " ".join(changed)


def _layouts_on(state: State, nodes: int, reason: str) -> list[Option]:
    """Every layout of ``nodes`` instances other than the current one, the preferred first."""
    now = state.layout
    pinned = Pinned(cp=now.cp, layers=now.layers, heads=now.heads)
    domain = nvlink_domain(state.instance)
    found = []
    for layout in sorted(
        layouts(state.settings, state.instance, nodes, pinned),
        key=lambda candidate: preference(candidate, domain),
    ):
        if (layout.nodes, layout.tp, layout.pp, layout.ep) != (now.nodes, now.tp, now.pp, now.ep):
            found.append(
                Option(
                    _sizes_flag(now, layout),
                    f"{reason}: {layout.describe()}",
                    dataclasses.replace(state, layout=layout),
                )
            )
    return found


def _relayout(state: State) -> list[Option]:
    return _layouts_on(state, state.layout.nodes, "another layout of the same GPUs")


def _resized(layout: JobLayout, instance: Instance, nodes: int) -> JobLayout | None:
    """The layout's TP, PP, CP and EP on ``nodes`` instances; DP takes the rest."""
    gpus = nodes * instance.gpu_count
    model = layout.tp * layout.pp * layout.cp
    if gpus % model:
        return None
    dp = gpus // model
    if layout.experts and (dp * layout.cp) % layout.ep:
        return None
    return layout.model_copy(
        update={
            "instance": instance.type,
            "gpus_per_node": instance.gpu_count,
            "nodes": nodes,
            "dp": dp,
        }
    )


MORE_NODES_TRIED = 64  # node counts tried one by one; beyond, doublings up to --max-gpus


def _node_counts(start: int, largest: int) -> Iterator[int]:
    """Every count after ``start`` for a while (a job that needs 3 nodes gets 3, not 4), then
    doublings: bounded whatever --max-gpus is."""
    count = start + 1
    while count <= largest:
        yield count
        count = count + 1 if count < start + MORE_NODES_TRIED else count * 2


def _more_nodes(max_gpus: int) -> Kind:
    """More instances, the fewest that fit first: ZeRO shards over more ranks, or more TP x PP."""

    def options(state: State) -> list[Option]:
        found: list[Option] = []
        for nodes in _node_counts(state.layout.nodes, max_gpus // state.instance.gpu_count):
            if not reaches(state.instance, nodes):
                break
            here = []
            layout = _resized(state.layout, state.instance, nodes)
            if layout is not None and state.settings.zero > 0:
                here.append(
                    Option(
                        f"--nodes {nodes}",
                        f"shard ZeRO state over DP {layout.dp} on {nodes} instances",
                        dataclasses.replace(state, layout=layout),
                    )
                )
            here += _layouts_on(state, nodes, f"{nodes} instances")
            found += here
            if any(option.fits for option in here):
                break  # more instances than the fewest that fit are not a smaller change
        return found

    return options


def _larger_instance(instances: Sequence[Instance]) -> Kind:
    def options(state: State) -> list[Option]:
        have, layout = gpu_memory(state.instance), state.layout
        bigger = [
            i
            for i in instances
            if plannable(i)
            and gpu_memory(i) > have
            and nvlink_domain(i) >= layout.tp
            and nvlink_domain(i) % layout.tp == 0
        ]
        found = []
        for instance in sorted(bigger, key=lambda i: (gpu_memory(i), i.gpu_count, i.type)):
            nodes = max(1, math.ceil(layout.ranks / instance.gpu_count))
            moved = _resized(layout, instance, nodes) if reaches(instance, nodes) else None
            if moved is not None:
                found.append(
                    Option(
                        f"--instance {instance.type} --nodes {nodes}",
                        f"{gpu_memory(instance):g} GiB per GPU instead of {have:g}",
                        dataclasses.replace(state, layout=moved, instance=instance),
                    )
                )
        return found

    return options


def same_hardware() -> list[Kind]:
    """Changes that cost no more instances, cheapest first."""
    return [*(_settings_kind(step) for step in SETTINGS_STEPS), _relayout]


def more_hardware(instances: Sequence[Instance], max_gpus: int) -> list[Kind]:
    """Changes that cost instances: more of them, then larger ones."""
    return [_more_nodes(max_gpus), _larger_instance(instances)]


def _together(start: State, change_kinds: Sequence[Kind]) -> list[tuple[Kind, Option]] | None:
    """Each kind in turn, the option that fits or else the one that saves most, until it fits."""
    state, applied = start, []
    for kind in change_kinds:
        options = kind(state)
        fitting = [o for o in options if o.fits]
        chosen = fitting[0] if fitting else min(options, key=lambda o: o.total, default=None)
        if chosen is None or chosen.total >= state.estimate.total.value:
            continue
        applied.append((kind, chosen))
        if chosen.fits:
            return applied
        state = chosen.state
    return None


def _smallest(start: State, change_kinds: Sequence[Kind]) -> list[Option] | None:
    for kind in change_kinds:
        for option in kind(start):
            if option.fits:
                return [option]
    together = _together(start, change_kinds)
    if together is None:
        return None
    for kind in [k for k, _ in together]:
        used = [k for k, _ in together]
        if kind in used and (without := _together(start, [k for k in used if k is not kind])):
            together = without
    return [option for _, option in together]


def smallest_change(
    start: State, free: Sequence[Kind], paid: Sequence[Kind]
) -> list[Option] | None:
    """The same hardware first, one change then several; then with more or larger instances.
    None when nothing here makes the job fit."""
    return _smallest(start, free) or _smallest(start, [*free, *paid])
