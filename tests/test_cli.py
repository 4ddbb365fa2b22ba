"""The command line as a user meets it: commands, formats, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.snapshot import SCHEMA_VERSION
from tests.conftest import Outcome, run_stackcheck
from tests.support import scenarios
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]


def test_no_arguments_checks_this_host_without_a_traceback() -> None:
    done = run_stackcheck("--no-network")
    assert done.code in (0, 1), done.err
    assert "Traceback" not in done.err
    assert "Stack of host" in done.out
    assert "NVIDIA driver" in done.out and "Findings" in done.out


def test_probe_json_pipes_into_check_with_the_same_findings(root: Root) -> None:
    scenarios.broken_p5(root)
    direct = run_stackcheck("check", "--root", str(root.path), "--format", "json")
    probed = run_stackcheck("probe", "--root", str(root.path), "--json")
    piped = run_stackcheck("check", "-", "--format", "json", stdin=probed.out)
    assert direct.code == piped.code == 1
    first, second = json.loads(direct.out), json.loads(piped.out)
    assert first["findings"] == second["findings"]
    assert json.loads(probed.out)["schema_version"] == SCHEMA_VERSION


def test_json_report_contract(cli: Cli, root: Root) -> None:
    scenarios.broken_p5(root)
    done = cli("check", "--root", str(root.path), "--format", "json")
    report = json.loads(done.out)
    assert set(report) == {
        "schema_version",
        "stackcheck_version",
        "matrix_version",
        "matrix_built",
        "warnings",
        "snapshot",
        "findings",
        "recommendations",
        "suppressed",
    }
    finding = report["findings"][0]
    assert set(finding) == {
        "id",
        "family",
        "severity",
        "title",
        "message",
        "evidence",
        "fix",
        "docs",
    }
    assert finding["severity"] == "error"


def test_fail_on_sets_the_exit_code(cli: Cli, root: Root) -> None:
    scenarios.dlami_p5(root)
    healthy = str(root.path)
    assert cli("check", "--root", healthy).code == 0
    assert cli("check", "--root", healthy, "--fail-on", "never").code == 0
    broken = root.path.parent / "broken"
    scenarios.broken_p5(Root(broken, root.elves))
    assert cli("check", "--root", str(broken)).code == 1
    assert cli("check", "--root", str(broken), "--fail-on", "never").code == 0


def test_text_report_lists_evidence_and_fix(cli: Cli, root: Root) -> None:
    scenarios.broken_p5(root)
    done = cli("check", "--root", str(root.path))
    assert "read from file /proc/driver/nvidia/version" in done.out
    assert "error   SC101 Driver too old for the CUDA in use" in done.out
    assert "fix: Upgrade the driver" in done.out
    assert done.out.index("error ") < done.out.index("Recommendation")


def test_unreadable_snapshot_is_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for arguments in (("check", str(bad)), ("check", str(tmp_path / "missing.json"))):
        done = cli(*arguments)
        assert done.code == 2
        assert done.err.count("\n") == 1 and done.err.startswith("stackcheck: error: ")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema_version": 99}))
    done = cli("check", str(other))
    assert done.code == 2 and "schema_version 99" in done.err


def test_bad_arguments_exit_2(cli: Cli) -> None:
    done = cli("check", "--format", "xml")
    assert done.code == 2
    assert "invalid choice" in done.err and done.err.count("\n") == 1
    assert cli("check", "--root", "/nonexistent/dir").code == 2
    assert cli("explain", "SC999").code == 2


def test_rules_and_explain(cli: Cli) -> None:
    listing = cli("rules")
    assert listing.code == 0
    assert "SC101  driver-cuda" in listing.out
    rows = json.loads(cli("rules", "--json").out)
    assert len({r["id"] for r in rows}) == len(rows)
    page = cli("explain", "sc401")
    assert page.code == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix"):
        assert heading in page.out
    assert cli("explain", "net-plugin-missing").out == page.out


def test_version_and_help(cli: Cli) -> None:
    assert cli("--version").out.startswith("stackcheck ")
    help_text = cli("--help").out
    for command in ("check", "probe", "rules", "explain"):
        assert command in help_text


def test_format_names_match_the_formats() -> None:
    from stackcheck.cli.common import FORMAT_NAMES
    from stackcheck.formats import FORMAT_NAMES as REGISTERED

    assert FORMAT_NAMES == REGISTERED


def test_docs_rules_page_is_current() -> None:
    from stackcheck.rules import RULES
    from stackcheck.rules.docs import catalogue

    page = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    assert page.read_text() == catalogue(RULES), (
        "docs/rules.md is stale: regenerate it with "
        'python -c "from stackcheck.rules import RULES; from stackcheck.rules.docs import '
        "catalogue; print(catalogue(RULES), end='')\" > docs/rules.md"
    )


def test_a_report_written_with_output_has_no_colour_codes(
    cli: Callable[..., Outcome], root: Root, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A terminal on stdout turns colour on; a file written with --output never gets it."""
    import stackcheck.formats.text

    monkeypatch.setattr(stackcheck.formats.text, "use_colour", lambda stream=None: True)
    scenarios.broken_p5(root)
    written = tmp_path / "report.txt"
    done = cli("check", "--root", str(root.path), "--output", str(written))
    assert done.code == 1 and "SC" in written.read_text()
    assert "\x1b[" not in written.read_text()


@pytest.mark.parametrize(
    "argv", [["probe"], ["rules"], ["matrix"], ["matrix", "nccl", "2.21.5"], ["recommend"]]
)
def test_every_printing_command_takes_format_json_and_the_older_json(
    cli: Cli, root: Root, argv: list[str]
) -> None:
    """One spelling everywhere (`--format json`, as check, scan and triage take it); `--json`
    stays, since `fleet --slurm` runs `probe --json` on nodes that may be older."""
    extra = ["--root", str(root.path)] if argv == ["probe"] else []
    outputs = []
    for spelling in (["--format", "json"], ["--json"]):
        done = cli(*argv, *extra, *spelling)
        assert done.code == 0, done.err
        outputs.append(json.loads(done.out))
    for output in outputs:  # the probe's timestamp differs between runs
        if isinstance(output, dict):
            output.pop("taken_at", None)
    assert outputs[0] == outputs[1]


def test_a_command_imports_only_its_own_module() -> None:
    """`stackcheck probe` must start fast: no other command's module, no parser of theirs."""
    probe = (
        "import sys\nfrom stackcheck.cli import main\nmain(['probe', '--json', '--no-network'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('stackcheck.cli.')), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr.strip().splitlines()[-1] == "['stackcheck.cli.common', 'stackcheck.cli.probe']"
    )
    help_text = run_stackcheck("--help").out
    unknown = run_stackcheck("nope")
    for command in ("check", "scan", "triage", "lint-dockerfile", "fleet", "explain", "node-check"):
        assert command in help_text and repr(command) in unknown.err
    assert run_stackcheck("explain", "SC101").out.startswith("# SC101")
