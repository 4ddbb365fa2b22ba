"""Probing every node through Slurm: one ``srun`` step with one task per node.

Each task runs the remote command (by default this very Python with ``-m stackcheck probe
--json``: on a cluster with shared storage, the same install is on every node) under a small
``sh`` wrapper that bounds it with ``timeout`` and then prints a marker line with its exit
status, the Slurm node name and the step's node list. ``srun --label`` tags every line with the
task number, so the answers of all nodes can share one stream; the marker says which node a
task ran on and that it has finished.

Time is bounded three ways: ``timeout`` on the node, srun's own ``--time`` limit, and a local
deadline after which srun is stopped. Nodes that do not answer are reported, never dropped:
the scheduler's down or drained nodes before anything runs, then timeouts, failures, and nodes
of the step that printed nothing at all.
"""

from __future__ import annotations

import math
import os
import queue
import re
import secrets
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from stackcheck import limits
from stackcheck.errors import StackcheckError
from stackcheck.fleet.hostlist import compress, expand
from stackcheck.fleet.sources.base import Answer, NoAnswer, NodeResult, NodeSource, Silence

KILL_AFTER = 5  # seconds between timeout's TERM and its KILL on the node
LAUNCH_GRACE = 30  # seconds for srun to start the step and hand back the output
STOP_GRACE = 10  # seconds srun gets to cancel the step before it is killed
SLURM_COMMAND_TIMEOUT = 30

# Base states (sinfo %t) in which a node can run nothing; any state ending in "*" is a node
# that does not respond. Every other state is tried: Slurm waits for busy nodes itself.
_UNUSABLE = {"down", "drain", "drng", "fail", "failg", "maint", "unk", "npc", "inval", "futr"}
_LABEL = re.compile(rb"^\s*(\d+): ?(.*?)\r?\n?$", re.DOTALL)
_WRAPPER = (
    'timeout -k {kill_after} {timeout} "$@"; '
    'printf "\\n{marker} %s %s %s\\n" "$?" "${{SLURMD_NODENAME:-$(hostname)}}" '
    '"${{SLURM_STEP_NODELIST:-}}"'
)


@dataclass(frozen=True)
class SlurmSelection:
    """Which nodes: --nodes, --nodelist, --partition, or else the current allocation's."""

    nodes: int | None = None
    nodelist: str | None = None
    partition: str | None = None


def slurm_command(
    argv: list[str], env: Mapping[str, str] | None = None, timeout: float = SLURM_COMMAND_TIMEOUT
) -> str:
    """Run a Slurm client command (sinfo, scontrol) with a time bound; its stdout, or one
    StackcheckError that says why not."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except FileNotFoundError:
        raise StackcheckError(f"{argv[0]} not found: is this a Slurm node?") from None
    except subprocess.TimeoutExpired:
        raise StackcheckError(
            f"{argv[0]} did not answer in {timeout:g} s: is slurmctld up?"
        ) from None
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        raise StackcheckError(f"{' '.join(argv[:1])} failed: {why[0]}")
    return done.stdout


def _usable(state: str) -> bool:
    return not state.endswith("*") and state.rstrip("~#!%$@^-") not in _UNUSABLE


@dataclass
class _Task:
    output: bytearray = field(default_factory=bytearray)
    oversized: bool = False
    node: str | None = None
    status: int | None = None
    errors: deque[str] = field(default_factory=lambda: deque(maxlen=3))


class _Step:
    """One running srun: its output read on two threads, finished answers handed over a queue."""

    def __init__(self, process: subprocess.Popen[bytes], marker: str) -> None:
        self.process = process
        self.marker = marker.encode()
        self.tasks: dict[int, _Task] = {}
        self.srun_lines: deque[str] = deque(maxlen=200)
        self.step_nodes: list[str] = []
        self.answers: queue.Queue[Answer] = queue.Queue()
        self.stopped = False
        self._lock = threading.Lock()
        assert process.stdout is not None and process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_stdout, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _task(self, number: int) -> _Task:
        with self._lock:
            return self.tasks.setdefault(number, _Task())

    def _read_stdout(self, stream: IO[bytes]) -> None:
        for line in stream:
            label = _LABEL.match(line)
            if label is None:
                self.srun_lines.append(line.decode(errors="replace").rstrip())
                continue
            number, content = int(label.group(1)), label.group(2)
            task = self._task(number)
            if content.startswith(self.marker):
                self._finish(number, task, content[len(self.marker) :].decode(errors="replace"))
            elif task.status is None and not task.oversized:
                # srun cuts lines longer than its buffer into labelled pieces. A snapshot's JSON
                # has line breaks only between tokens, so the pieces are joined without any.
                task.output += content
                task.oversized = len(task.output) > limits.FLEET_NODE_OUTPUT_BYTES

    def _finish(self, number: int, task: _Task, fields: str) -> None:
        status, node, step_nodes = ([*fields.split(), "", "", ""])[:3]
        task.status = int(status) if status.isdigit() else -1
        task.node = node or f"task {number}"
        if step_nodes and not self.step_nodes:
            self.step_nodes = expand(step_nodes)
        if task.status == 0 and not task.oversized:
            text = task.output.decode(errors="replace")
            self.answers.put(Answer(task.node, text, f"srun task {number} on {task.node}"))
        task.output = bytearray()  # a failed task's output is not read: its stderr says why

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            label = _LABEL.match(line)
            text = (label.group(2) if label else line).decode(errors="replace").rstrip()
            if label is None:
                self.srun_lines.append(text)
            elif text:
                self._task(int(label.group(1))).errors.append(text)

    @property
    def reading(self) -> bool:
        return any(reader.is_alive() for reader in self._readers)

    def stop(self) -> None:
        """Stop srun (it cancels the step), and kill it if it does not go."""
        self.stopped = True
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def finish(self) -> None:
        for reader in self._readers:
            reader.join()
        self.process.wait()


class SlurmProbe(NodeSource):
    def __init__(
        self,
        selection: SlurmSelection,
        remote_command: Sequence[str],
        *,
        timeout: float,
        allocation_wait: float,
        srun_options: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not remote_command:
            raise StackcheckError("the remote command is empty")
        self.selection = selection
        self.remote_command = list(remote_command)
        self.timeout = timeout
        self.allocation_wait = allocation_wait
        self.srun_options = list(srun_options)
        self.env = dict(os.environ if env is None else env)
        self.marker = f"@@stackcheck-fleet-{secrets.token_hex(4)}"
        self._srun: list[str] = ["srun"]

    @property
    def description(self) -> str:
        """The srun command and the remote command (the sh wrapper between them left out)."""
        return shlex.join([*self._srun, *self.remote_command])

    def _slurm(self, argv: list[str]) -> str:
        return slurm_command(argv, self.env)

    def _states(self) -> dict[str, str]:
        """Slurm's state of each node asked for (the list, or the whole partition)."""
        argv = ["sinfo", "--noheader", "--Node", "--format=%N %t"]
        if self.selection.nodelist:
            argv.append(f"--nodes={self.selection.nodelist}")
        if self.selection.partition:
            argv.append(f"--partition={self.selection.partition}")
        states: dict[str, str] = {}
        for line in self._slurm(argv).splitlines():
            name, _, state = line.strip().partition(" ")
            if name:
                states.setdefault(name, state.strip())
        return states

    def _plan(self) -> tuple[list[str] | None, list[NoAnswer]]:
        """The nodes to run on (None: srun picks them) and those known not to be able to."""
        selection = self.selection
        if selection.nodes is not None and not selection.nodelist:
            return None, []
        if not selection.nodelist and not selection.partition:
            allocation = self.env.get("SLURM_JOB_NODELIST")
            if not allocation:
                raise StackcheckError(
                    "say which nodes: --nodes N, --nodelist LIST or --partition P "
                    "(or run inside a Slurm allocation to probe all of its nodes)"
                )
            return expand(allocation), []
        states = self._states()
        wanted = expand(selection.nodelist) if selection.nodelist else list(states)
        if not wanted:
            raise StackcheckError(f"Slurm lists no nodes in partition {selection.partition}")
        run, silent = [], []
        for node in wanted:
            state = states.get(node)
            if state is None:
                silent.append(NoAnswer(node, "unavailable", "Slurm does not list this node"))
            elif not _usable(state):
                silent.append(NoAnswer(node, "unavailable", f"Slurm state {state}"))
            else:
                run.append(node)
        return run, silent

    def _srun_argv(self, nodes: list[str] | None) -> list[str]:
        minutes = math.ceil((self.timeout + KILL_AFTER + LAUNCH_GRACE) / 60)
        argv = ["srun", "--job-name=stackcheck-fleet", f"--time={minutes}"]
        if "SLURM_JOB_ID" not in self.env:  # a new allocation: do not queue for ever
            argv.append(f"--immediate={max(1, math.ceil(self.allocation_wait))}")
        argv += self.srun_options
        count = self.selection.nodes if nodes is None else len(nodes)
        # --ntasks too: inside an allocation srun would take the job's task count from SLURM_NTASKS
        argv += [f"--nodes={count}", f"--ntasks={count}"]
        if nodes is not None:
            argv.append(f"--nodelist={compress(nodes)}")
        if self.selection.partition:
            argv.append(f"--partition={self.selection.partition}")
        return [*argv, "--ntasks-per-node=1", "--label", "--kill-on-bad-exit=0"]

    def results(self) -> Iterator[NodeResult]:
        nodes, silent = self._plan()
        yield from silent
        if nodes == []:
            return
        self._srun = self._srun_argv(nodes)
        wrapper = _WRAPPER.format(
            kill_after=KILL_AFTER, timeout=math.ceil(self.timeout), marker=self.marker
        )
        try:
            process = subprocess.Popen(
                [*self._srun, "sh", "-c", wrapper, "stackcheck-fleet", *self.remote_command],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
            )
        except FileNotFoundError:
            raise StackcheckError("srun not found: is this a Slurm login node?") from None
        step = _Step(process, self.marker)
        deadline = time.monotonic() + self.allocation_wait + self.timeout + LAUNCH_GRACE
        try:
            while step.reading or not step.answers.empty():
                try:
                    yield step.answers.get(timeout=0.2)
                except queue.Empty:
                    if time.monotonic() > deadline and not step.stopped:
                        step.stop()
            step.finish()
        finally:
            if process.poll() is None:
                step.stop()
        yield from self._unfinished(step, nodes)

    def _task_problem(self, task: _Task, node: str) -> NoAnswer | None:
        if task.oversized:
            return NoAnswer(
                node, "garbage", f"more than {limits.FLEET_NODE_OUTPUT_BYTES} bytes of output"
            )
        if task.status == 0:
            return None
        if task.status in (124, 137):  # timeout's TERM, then its KILL
            limit = math.ceil(self.timeout)
            return NoAnswer(node, "timeout", f"the probe did not finish within {limit} s")
        said = task.errors[-1] if task.errors else "no error output"
        return NoAnswer(node, "failed", f"exit code {task.status}: {said}")

    def _unfinished(self, step: _Step, nodes: list[str] | None) -> Iterator[NoAnswer]:
        """Tasks that failed or timed out, and nodes of the step that never said anything."""
        done = set()
        for task in step.tasks.values():
            if task.node is not None:
                done.add(task.node)
                problem = self._task_problem(task, task.node)
                if problem is not None:
                    yield problem
        expected = nodes if nodes is not None else step.step_nodes
        srun_errors = [line for line in step.srun_lines if "error" in line]
        if step.stopped:
            reason: Silence = "timeout"
            limit = math.ceil(self.allocation_wait + self.timeout + LAUNCH_GRACE)
            detail = f"no answer before srun was stopped after {limit} s"
        elif not done and step.process.returncode != 0:
            reason = "failed"
            detail = f"srun failed: {(srun_errors or step.srun_lines or ['no message'])[-1]}"
        else:
            reason, detail = "missing", "nothing from this node in srun's output"
        if not expected and not done:  # srun chose the nodes, and no task said which
            raise StackcheckError(f"srun started no probe: {detail}")
        for node in expected:
            if node in done:
                continue
            # srun's own word on the node, else its last word (a step it terminated, say)
            about = [line for line in srun_errors if f"{node}:" in line] or list(step.srun_lines)
            yield NoAnswer(node, reason, f"{detail} ({about[-1]})" if about else detail)
