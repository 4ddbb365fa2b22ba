"""The directory view keeps every path inside its root, whatever the symlinks say."""

from __future__ import annotations

import os
from pathlib import Path

from stackcheck.views import DirectoryView


def make(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "usr/local/cuda-12.4").mkdir(parents=True)
    (root / "usr/local/cuda-12.4/version.json").write_text('{"cuda": {"version": "12.4.1"}}')
    os.symlink("cuda-12.4", root / "usr/local/cuda")
    (root / "etc").mkdir()
    (root / "etc/secret").write_text("inside")
    return root


def test_relative_symlink_resolves_inside_the_root(tmp_path: Path) -> None:
    view = DirectoryView(make(tmp_path))
    assert view.resolve("/usr/local/cuda/version.json") == "/usr/local/cuda-12.4/version.json"
    assert view.read_text("/usr/local/cuda/version.json") == '{"cuda": {"version": "12.4.1"}}'


def test_absolute_symlink_is_taken_relative_to_the_root(tmp_path: Path) -> None:
    root = make(tmp_path)
    (tmp_path / "outside").write_text("outside the root")
    os.symlink("/etc/secret", root / "abs-link")
    os.symlink(str(tmp_path / "outside"), root / "escape")
    view = DirectoryView(root)
    assert view.read_text("/abs-link") == "inside"
    assert view.read_text("/escape") is None  # the host path does not exist inside the root


def test_dotdot_stops_at_the_root(tmp_path: Path) -> None:
    root = make(tmp_path)
    os.symlink("../../../../../etc/secret", root / "usr/local/up")
    view = DirectoryView(root)
    assert view.read_text("/usr/local/up") == "inside"
    assert view.read_text("/../../etc/secret") == "inside"


def test_symlink_loop_is_reported_not_followed_forever(tmp_path: Path) -> None:
    root = make(tmp_path)
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    view = DirectoryView(root)
    assert view.read_bytes("/a") is None
    assert any("loop" in problem for problem in view.problems)


def test_glob_matches_component_by_component(tmp_path: Path) -> None:
    root = make(tmp_path)
    (root / "usr/local/cuda-13.0").mkdir()
    view = DirectoryView(root)
    assert view.glob("/usr/local/cuda-*") == ["/usr/local/cuda-12.4", "/usr/local/cuda-13.0"]
    assert view.glob("/usr/local/cuda*/version.json") == [
        "/usr/local/cuda-12.4/version.json",
        "/usr/local/cuda/version.json",
    ]
    assert view.glob("/nowhere/*") == []


def test_read_is_bounded(tmp_path: Path) -> None:
    root = make(tmp_path)
    (root / "big").write_bytes(b"x" * 10_000)
    view = DirectoryView(root)
    assert len(view.read_bytes("/big", limit=100) or b"") == 100
    assert view.read_bytes("/usr/local") is None  # a directory is not read
