"""The result cache (stackcheck.results, wired in `stackcheck scan`): a rescan of an unchanged
image prints what the scan printed, with its exit code; a change to anything that decides the
report (an option, a matrix file, the image, the configuration, stackcheck's code) is a miss; a
damaged or doubtful entry is a miss, never a result nor a crash; the cache stays bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from stackcheck import matrix_files, results
from stackcheck.matrix import loader
from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]
FROM_CACHE = "from the cache (--no-cache scans again)"
H100 = (
    '[[gpu]]\nname = "H100"\nmatch = ["H100"]\ncompute_capability = "9.0"\n'
    'architecture = "Hopper"\ndatacenter = true\nsource = "https://example.invalid/x"\n'
    'checked = 2026-12-01\nnote = "{note}"\n'
)


@pytest.fixture(autouse=True)
def trust_fresh_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The images here are written just before they are scanned: their stamps would be "racy"
    (see test_a_stamp_taken_just_after_a_write_is_not_trusted), and never remembered."""
    monkeypatch.setattr(results, "_RACY_NS", 0)


@pytest.fixture
def archive(root: Root, images: ImageBuilder) -> Path:
    scenarios.ngc_image(root)
    return images.docker_archive(
        ImageSpec([images.layer(root.path)], env={"CUDA_VERSION": "12.9.1"})
    )


@pytest.fixture
def scan(cli: Cli, tmp_path: Path) -> Callable[..., Outcome]:
    """`stackcheck scan IMAGE ARGS` with a cache of this test's own."""

    def run(image: str, *arguments: str) -> Outcome:
        return cli("scan", image, "--cache-dir", str(tmp_path / "cache"), *arguments)

    return run


def entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "results").glob("*.json"))


def assert_hit(first: Outcome, again: Outcome) -> None:
    assert FROM_CACHE not in first.err
    assert FROM_CACHE in again.err, again.err
    assert (again.code, again.out) == (first.code, first.out)
    assert again.err.splitlines()[1:] == first.err.splitlines()


def test_a_rescan_prints_the_same_report_and_exit_code(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    for arguments in ((), ("--fail-on", "info"), ("--format", "json")):
        first = scan(f"docker-archive:{archive}", *arguments)
        assert FROM_CACHE not in first.err
        assert_hit(first, scan(f"docker-archive:{archive}", *arguments))
    assert scan(f"docker-archive:{archive}", "--fail-on", "info").code == 1  # carried, not 0
    assert len(entries(tmp_path)) == 3  # one per distinct request


def test_a_changed_option_is_a_miss(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    image = f"docker-archive:{archive}"
    plain = scan(image)
    paired = scan(image, "--instance", "p5.48xlarge")
    assert FROM_CACHE not in paired.err and paired.out != plain.out
    assert FROM_CACHE not in scan(image, "--format", "markdown").err
    assert FROM_CACHE in scan(image, "--instance", "p5.48xlarge").err


def test_a_changed_image_is_a_miss(
    root: Root, images: ImageBuilder, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    scenarios.ngc_image(root)
    old = images.docker_archive(
        ImageSpec([images.layer(root.path)], env={"CUDA_VERSION": "12.9.1"})
    )
    new = images.docker_archive(
        ImageSpec([images.layer(root.path)], env={"CUDA_VERSION": "12.8.1"})
    )
    image = tmp_path / "image.tar"
    shutil.copyfile(old, image)
    first = scan(f"docker-archive:{image}")
    assert FROM_CACHE in scan(f"docker-archive:{image}").err
    shutil.copyfile(new, image)  # same path, size and name; other bytes
    changed = scan(f"docker-archive:{image}")
    assert FROM_CACHE not in changed.err
    assert "CUDA_VERSION=12.8.1" in changed.out and "CUDA_VERSION=12.9.1" in first.out


def test_an_oci_layout_is_keyed_by_every_file(
    root: Root, images: ImageBuilder, scan: Callable[..., Outcome]
) -> None:
    scenarios.ngc_image(root)
    layout = images.oci_layout(ImageSpec([images.layer(root.path)]))
    first = scan(f"oci:{layout}")
    assert_hit(first, scan(f"oci:{layout}"))
    (layout / "index.json").write_text((layout / "index.json").read_text() + "\n")
    assert FROM_CACHE not in scan(f"oci:{layout}").err


def test_a_changed_matrix_file_is_a_miss(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "gpus.toml").write_text(H100.format(note="first"))
    image = f"docker-archive:{archive}"
    first = scan(image, "--matrix-dir", str(user))
    assert_hit(first, scan(image, "--matrix-dir", str(user)))
    (user / "gpus.toml").write_text(H100.format(note="second"))
    assert FROM_CACHE not in scan(image, "--matrix-dir", str(user)).err
    assert FROM_CACHE in scan(image, "--matrix-dir", str(user)).err


def test_a_miss_reads_each_matrix_file_once(
    archive: Path, scan: Callable[..., Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files hashed for the result's key are the ones the scan's matrix is built from."""
    read: list[Path] = []
    read_regular = matrix_files.read_regular

    def counted(path: Path, *arguments: Any, **options: Any) -> tuple[bytes, bool]:
        read.append(path)
        return read_regular(path, *arguments, **options)

    monkeypatch.setattr(matrix_files, "read_regular", counted)
    done = scan(f"docker-archive:{archive}")
    assert FROM_CACHE not in done.err and read
    assert sorted(read) == sorted(set(read))


def test_a_changed_configuration_is_a_miss(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The configuration found in the current directory decides the gate and what is shown."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    image = f"docker-archive:{archive}"
    assert scan(image).code == 0
    (work / ".stackcheck.toml").write_text('fail-on = "info"\n')
    first = scan(image)
    assert FROM_CACHE not in first.err and first.code == 1
    assert_hit(first, scan(image))
    (work / ".stackcheck.toml").write_text('fail-on = "never"\n')
    again = scan(image, "--fail-on", "info")
    assert FROM_CACHE not in again.err and again.code == 1
    assert scan(image).code == 0


def test_changed_code_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "package"
    (package / "rules").mkdir(parents=True)
    rule = package / "rules" / "rule.py"
    rule.write_text("SEVERITY = 'info'\n")
    monkeypatch.setattr(results, "_PACKAGE", package)
    before = results.code_fingerprint()
    assert results.code_fingerprint() == before
    rule.write_text("SEVERITY = 'error'\n")
    assert results.code_fingerprint() != before
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    installed = results.code_fingerprint()
    (site / "pydantic-9.0.dist-info").mkdir()  # what upgrading a dependency does to the folder
    os.utime(site, ns=(0, 0))  # whatever the clock's resolution
    assert results.code_fingerprint() != installed


@pytest.mark.parametrize("spoil", ["truncated", "changed", "not json", "group-writable", "empty"])
def test_a_damaged_or_doubtful_entry_is_a_miss(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path, spoil: str
) -> None:
    image = f"docker-archive:{archive}"
    first = scan(image, "--fail-on", "info")
    [entry] = entries(tmp_path)
    data = entry.read_bytes()
    if spoil == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif spoil == "changed":
        entry.write_bytes(data.replace(b'"code": 1', b'"code": 0'))
    elif spoil == "not json":
        payload = b"{not json"
        entry.write_bytes(results.hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    elif spoil == "group-writable":
        entry.chmod(0o664)
    else:
        entry.write_bytes(b"")
    again = scan(image, "--fail-on", "info")
    assert FROM_CACHE not in again.err
    assert (again.code, again.out) == (first.code, first.out) == (1, first.out)
    assert FROM_CACHE in scan(image, "--fail-on", "info").err  # written anew, whole


def test_no_cache_neither_reads_nor_writes(
    archive: Path, cli: Cli, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    image = f"docker-archive:{archive}"
    scan(image)
    done = cli("scan", image, "--no-cache")
    assert FROM_CACHE not in done.err
    assert len(entries(tmp_path)) == 1


def test_outputs_to_files_are_not_cached(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    """A hit would not write the files: such runs always scan."""
    image = f"docker-archive:{archive}"
    for option in ("--sarif", "--report-json", "--write-baseline", "--summary"):
        target = tmp_path / f"out{option}"
        scan(image, option, str(target))
        target.unlink()
        assert FROM_CACHE not in scan(image, option, str(target)).err
        assert target.exists(), option
    assert FROM_CACHE not in scan(image, "--format", "prometheus").err
    assert FROM_CACHE not in scan(image, "--format", "prometheus").err
    assert entries(tmp_path) == []


def test_a_hit_imports_neither_pydantic_nor_the_rules_nor_the_image_readers(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path
) -> None:
    first = scan(f"docker-archive:{archive}")  # here, where the fresh archive's stamp is trusted
    argv = ["scan", f"docker-archive:{archive}", "--cache-dir", str(tmp_path / "cache")]
    probe = (
        "import sys\nfrom stackcheck.cli import main\ncode = main(sys.argv[1:])\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] == 'pydantic' or m.startswith("
        "('stackcheck.rules', 'stackcheck.image.sources', 'stackcheck.check', 'dataclasses'))]\n"
        "print(code, sorted(heavy)[:3], file=sys.stderr)\n"
    )
    hit = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    assert FROM_CACHE in hit.stderr, hit.stderr
    assert hit.stderr.rstrip().endswith("0 []"), hit.stderr
    assert hit.stdout == first.out


def test_the_cache_is_pruned(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "ENTRIES", 2)
    image = f"docker-archive:{archive}"
    for fail_on in ("error", "warning", "info"):
        scan(image, "--fail-on", fail_on)
    assert len(entries(tmp_path)) == 2
    assert FROM_CACHE not in scan(image, "--fail-on", "error").err  # the oldest went
    old = entries(tmp_path)[0]
    os.utime(old, (0, 0))  # written in 1970: past any age
    scan(image, "--fail-on", "never")
    assert old not in entries(tmp_path)


def test_the_matrix_cache_is_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MATRIX_ENTRIES", 2)
    cache, user = tmp_path / "cache", tmp_path / "user"
    user.mkdir()
    for note in ("a", "b", "c"):
        (user / "gpus.toml").write_text(H100.format(note=note))
        loader.load_matrix([user], cache)
    assert len(list(cache.glob("matrix-*.pickle"))) == 2


def test_an_unchanged_archive_is_not_read_again(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the scan read is remembered with the files' stamp (size, inode, modification and
    change times): a hit opens no image reader; another stamp is a scan."""
    from stackcheck.image.sources import resolve

    image = f"docker-archive:{archive}"
    first = scan(image)
    assert len(list((tmp_path / "cache" / "images").glob("*.json"))) == 1

    def no_reading(*arguments: object) -> None:
        raise AssertionError("the image was opened")

    with monkeypatch.context() as patched:
        patched.setattr(resolve, "open_source", no_reading)
        assert_hit(first, scan(image))
    with archive.open("ab") as handle:
        handle.write(b"\0" * 1024)  # a tar's end padding: the same image, another stamp
    again = scan(image)
    assert FROM_CACHE not in again.err and again.out == first.out
    assert FROM_CACHE in scan(image).err  # the same content: the kept result, found again


def test_a_stamp_taken_just_after_a_write_is_not_trusted(
    archive: Path, scan: Callable[..., Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written within the file system's time granularity of its stamp could be written
    again with the same stamp (git calls such index entries racy): it is scanned each time."""
    assert results._RACY_NS == 0  # the fixture's; the module's own is 2 s
    monkeypatch.setattr(results, "_RACY_NS", 10**18)  # every write is recent: no slow-machine luck
    image = f"docker-archive:{archive}"
    scan(image)
    assert FROM_CACHE not in scan(image).err
    assert list((tmp_path / "cache" / "images").glob("*.json")) == []


def test_the_scans_warnings_are_replayed_and_the_day_is_in_the_key(
    archive: Path, scan: Callable[..., Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The matrix's age is judged against today: a report kept yesterday is not served today,
    and a hit prints the warnings its scan printed, after the line that says it is a hit."""
    from stackcheck import clock

    image = f"docker-archive:{archive}"
    today = scan(image)
    monkeypatch.setattr(clock, "today", lambda: date(2031, 1, 1))
    later = scan(image)
    assert FROM_CACHE not in later.err and "stackcheck: warning:" in later.err
    assert "warning" not in today.err
    again = scan(image)
    assert_hit(later, again)
    assert again.err.splitlines()[0].endswith(FROM_CACHE)


def test_what_a_scan_read_is_its_snapshot_without_the_time() -> None:
    from datetime import datetime, timezone

    from stackcheck.snapshot import Snapshot, SnapshotSource
    from stackcheck.snapshot.io import content_digest

    source = SnapshotSource(kind="image", target="docker-archive:x.tar")
    one = Snapshot(source=source, taken_at=datetime(2026, 12, 1, tzinfo=timezone.utc))
    two = Snapshot(source=source, taken_at=datetime(2026, 12, 3, tzinfo=timezone.utc))
    assert content_digest(one) == content_digest(two)
    two.env_value("CUDA_VERSION")  # reading changes nothing
    assert content_digest(one) == content_digest(two)
    other = Snapshot(source=SnapshotSource(kind="image", target="docker-archive:y.tar"))
    assert content_digest(other) != content_digest(one)
    assert content_digest(one).startswith("sha256:") and len(content_digest(one)) == 71


def test_without_a_home_for_the_cache_a_scan_reads_every_layer(
    archive: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --cache-dir and no home directory: neither the result nor the layer cache is used,
    and the scan still answers (not an internal error)."""

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    done = cli("scan", f"docker-archive:{archive}", "--fail-on", "never")
    assert done.code == 0, done.err
    assert FROM_CACHE not in done.err and "Stack of" in done.out
