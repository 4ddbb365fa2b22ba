"""The validated matrix kept between runs (matrix.loader): read back only for the same files,
from a file this user alone could have written; anything else reads the TOML again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stackcheck.errors import StackcheckError
from stackcheck.matrix import MatrixIndex, load_matrix, loader

H100 = (
    '[[gpu]]\nname = "H100"\nmatch = ["H100"]\ncompute_capability = "9.0"\n'
    'architecture = "Hopper"\ndatacenter = true\nsource = "https://example.invalid/x"\n'
    'checked = 2026-12-01\nnote = "{note}"\n'
)


def no_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> object:
        raise AssertionError("the TOML was parsed")

    monkeypatch.setattr(loader.tomllib, "loads", refuse)


def test_second_load_reads_the_cache_not_the_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = load_matrix(cache_dir=cache)
    [entry] = list(cache.glob("matrix-*.pickle"))
    assert entry.stat().st_mode & 0o077 == 0
    with monkeypatch.context() as patched:
        no_toml(patched)
        assert load_matrix(cache_dir=cache) == first
    assert load_matrix() == first  # and the uncached load agrees


def test_a_changed_user_matrix_is_read_again(tmp_path: Path) -> None:
    cache, user = tmp_path / "cache", tmp_path / "user"
    user.mkdir()
    (user / "gpus.toml").write_text(H100.format(note="first"))
    before = MatrixIndex(load_matrix([user], cache))
    (user / "gpus.toml").write_text(H100.format(note="second"))
    after = MatrixIndex(load_matrix([user], cache))
    assert before.gpu("NVIDIA H100 80GB HBM3").note == "first"  # type: ignore[union-attr]
    assert after.gpu("NVIDIA H100 80GB HBM3").note == "second"  # type: ignore[union-attr]
    (user / "gpus.toml").write_text('[[gpu]]\nname = "x"\nmatch = ["x"]\n')
    with pytest.raises(StackcheckError, match="invalid matrix entry"):
        load_matrix([user], cache)


@pytest.mark.parametrize("spoil", ["group-writable", "truncated", "not a matrix"])
def test_a_doubtful_cache_file_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: str
) -> None:
    cache = tmp_path / "cache"
    expected = load_matrix(cache_dir=cache)
    [entry] = list(cache.glob("matrix-*.pickle"))
    if spoil == "group-writable":
        os.chmod(entry, 0o664)
    elif spoil == "truncated":
        entry.write_bytes(entry.read_bytes()[:1000])
    else:
        entry.write_bytes(b"\x80\x05K\x01.")  # pickle of the int 1
    with monkeypatch.context() as patched:
        no_toml(patched)
        with pytest.raises(AssertionError, match="TOML was parsed"):
            load_matrix(cache_dir=cache)
    assert load_matrix(cache_dir=cache) == expected


def test_an_unwritable_cache_costs_only_speed(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert load_matrix(cache_dir=blocked / "cache") == load_matrix()


def test_the_suite_never_writes_the_users_own_cache(private_cache_home: Path) -> None:
    """conftest points every cache of this run (matrix, layers, scan results) at a private
    directory; a run that read the user's ~/.cache could pass on what another run left there."""
    from stackcheck.cachedir import default_cache_dir

    assert default_cache_dir().is_relative_to(private_cache_home)
    assert not default_cache_dir().is_relative_to(Path.home() / ".cache")
