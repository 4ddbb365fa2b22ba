"""Property-based tests of every parser triage uses: arbitrary, adversarial and mutated input
never raises and never hangs (each example has a deadline; the regexes are bounded)."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stackcheck.check.engine import check
from stackcheck.errors import StackcheckError
from stackcheck.ingest import read_report, signatures
from stackcheck.ingest.formats import FORMATS, PROSE, nccl_log
from stackcheck.ingest.lines import MAX_LINE, split_lines
from stackcheck.ingest.python_results import python_results
from stackcheck.ingest.segment import segment
from stackcheck.matrix import load_matrix
from stackcheck.parsers.dockerfile import DockerfileSyntaxError, env_pairs, parse_dockerfile
from stackcheck.parsers.units import limit_bytes, size_bytes
from stackcheck.parsers.yamlish import flow_list, walk
from tests.corpus import REPORTS

ALL_FORMATS = (*FORMATS, PROSE)
PATIENT = settings(
    deadline=timedelta(seconds=3),
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Pieces of the formats, so random text reaches deep into the parsers, not just their first test.
FRAGMENTS = [
    "NCCL INFO ",
    "NCCL WARN ",
    "NET/OFI ",
    "NET/Plugin : ",
    "dlerror=",
    "via NET/AWS Libfabric/0",
    "/GDRDMA",
    "Using network Socket",
    "Selected Provider is ",
    "NCCL version 2.21.5+cuda12.4",
    "GPU 0: ",
    "GPU 0,1,2: ",
    "Compute Capability: ",
    "sm_90 ",
    "PyTorch version: ",
    "CUDA used to build PyTorch: ",
    "Could not collect",
    "[pip3] ",
    "[conda] ",
    "torch==",
    "2.1.0+cu121",
    "nvidia-nccl-cu12==2.21.5",
    "NVRM version: ",
    "Driver Version: 535.104.05",
    "CUDA Version: 12.2",
    "| NVIDIA-SMI 535.104.05 ",
    "|   0  Tesla T4   On  |",
    "+-------",
    "provider: efa",
    "version: 118.20",
    "domain: rdmap16s27-rdm",
    "# EFA installer version: ",
    "libfabric-aws-1.22.0amzn4.0",
    "services:",
    "image: x",
    "shm_size: ",
    "ulimits:",
    "memlock: -1",
    "deploy:",
    "device_ids: ['0']",
    "containers:",
    "- name: ",
    "value: ",
    "nvidia.com/gpu",
    "vpc.amazonaws.com/efa",
    '{"nvidia.com/gpu":"8"}',
    "docker run ",
    "nvidia-docker run ",
    "--gpus ",
    "--shm-size=",
    "--ulimit memlock=",
    "--device ",
    "hyp create hyp-pytorch-job ",
    "--environment ",
    "mpirun -x ",
    "FROM ",
    "ENV ",
    "ARG ",
    "RUN pip install torch==",
    "<<EOF",
    "EOF",
    "export ",
    "declare -x ",
    "echo $X",
    "NCCL_P2P_DISABLE=1",
    "max locked memory (kbytes, -l) ",
    "unlimited",
    "Module  Size  Used by",
    "nvidia_peermem 1 0",
    "Filesystem Size Used",
    "shm 64M",
    "libnccl.so.2.21.5",
    "libcuda.so.535.104.05",
    " (libc6,x86-64) => /usr/lib/",
    " => not found",
    "cannot open shared object file",
    "system not yet initialized",
    "fi_getinfo: -61",
    "(-12)",
    "Error while creating shared memory segment",
    "torch.cuda.nccl.version()",
    "(2, 19, 3)",
    "Out[1]: False",
    "p4d.24xlarge",
    "==============NVSMI LOG==============",
    "    Fabric",
    "State : In Progress",
    "Name: torch",
    "Version: 2.1.0",
    "## Package Plan ##",
    "pytorch-1.12.1 | py3.8_cpu_0",
    " ",
    "  ",
    ":",
    "=",
    "\\",
    '"',
    "'",
    "`",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "-",
    ".",
    ",",
    "\n",
    "\n",
    "\t",
    "0",
    "9",
    "\u00a0",
    "\uff1a",
    "\u2018",
]
TEXT = st.one_of(
    st.text(max_size=3000),
    st.lists(st.sampled_from(FRAGMENTS), max_size=300).map("".join),
)


def _parse_everything(text: str) -> None:
    lines = split_lines(text)
    for start in range(0, len(lines), 7):  # formats meet any run of lines, as segments
        window = lines[start : start + 12]
        if window:
            for fmt in ALL_FORMATS:
                fmt.parse(window)
    for line in lines:
        signatures.line_facts(line)
        nccl_log.line_facts(line)
    python_results(lines)
    for part in segment(lines):
        assert part.lines


@PATIENT
@given(TEXT)
def test_every_format_reads_any_text(text: str) -> None:
    _parse_everything(text)


@PATIENT
@given(st.sampled_from(FRAGMENTS), st.integers(min_value=1, max_value=MAX_LINE))
def test_long_repetitive_lines_stay_cheap(fragment: str, length: int) -> None:
    """The worst case of a backtracking regex: one fragment repeated to the longest line."""
    line = (fragment.replace("\n", " ") * (MAX_LINE // max(len(fragment), 1) + 1))[:length]
    _parse_everything("\n".join([line, line + "x", " " + line]))


MATRIX = load_matrix()


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = draw(st.sampled_from(REPORTS)).body.splitlines()
    for _ in range(draw(st.integers(0, 6))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "double", "cut", "insert", "swap", "digits"]))
        if action == "drop":
            del lines[at]
        elif action == "double":
            lines.insert(at, lines[at])
        elif action == "cut":
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
        elif action == "insert":
            lines.insert(at, draw(TEXT))
        elif action == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        else:
            lines[at] = "".join("7" if c.isdigit() else c for c in lines[at])
    return "\n".join(lines)


@PATIENT
@given(mutated())
def test_mutated_reports_triage_without_failures(text: str) -> None:
    triage = read_report(text, "mutated.txt")
    report = check(triage.snapshot, MATRIX)
    failures = [n for n in report.snapshot.notes if "failed" in n.message]
    assert not failures, failures


@PATIENT
@given(st.text(max_size=2000))
def test_read_report_raises_only_its_own_error(text: str) -> None:
    try:
        read_report(text, "any.txt")
    except StackcheckError:  # pragma: no cover - only for input over the size limit
        raise AssertionError("short input must not be refused") from None


def test_oversized_input_is_refused_with_a_clear_error() -> None:
    try:
        read_report("x" * (16 << 20) + "x", "huge.txt")
    except StackcheckError as exc:
        assert "huge.txt" in str(exc)
    else:
        raise AssertionError("expected a StackcheckError")


@PATIENT
@given(TEXT)
def test_dockerfile_parser_keeps_line_numbers_in_range(text: str) -> None:
    """Any text parses, or fails as docker build would, with a line inside the text."""
    count = len(text.splitlines())
    try:
        dockerfile = parse_dockerfile(text, first_line=10)
        for instruction in dockerfile.instructions:
            assert 10 <= instruction.line <= instruction.end_line <= 10 + max(count - 1, 0)
        list(dockerfile.env())
        list(dockerfile.args())
        list(dockerfile.base_images())
    except DockerfileSyntaxError as exc:
        assert 1 <= exc.line <= 10 + max(count - 1, 0)
    try:
        env_pairs(text[:500], 1)
    except DockerfileSyntaxError as exc:
        assert exc.line == 1


@PATIENT
@given(TEXT)
def test_yaml_walker_and_units_read_anything(text: str) -> None:
    for entry in walk(text.splitlines()):
        flow_list(entry.value or "")
    size_bytes(text[:50])
    limit_bytes(text[:50])
