"""The bundled matrix: valid, sourced, dated, unique, and consistent across its tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackcheck import versions
from stackcheck.errors import StackcheckError
from stackcheck.matrix import Matrix, MatrixIndex, bundled_dir, load_matrix
from stackcheck.matrix.loader import read_tables
from stackcheck.matrix.models import TABLE_KEYS, Fact


def test_every_bundled_file_parses_into_known_tables() -> None:
    tables = read_tables(bundled_dir())
    assert tables["version"]
    assert set(tables) - {"version", "built"} <= set(TABLE_KEYS)


def test_every_entry_has_a_source_and_a_date(matrix: Matrix) -> None:
    for table in TABLE_KEYS:
        for entry in getattr(matrix, table):
            assert isinstance(entry, Fact)
            assert (
                entry.source.startswith(("http", "pytorch/", "aws/", "NVIDIA/"))
                or "@" in entry.source
            ), (
                table,
                entry,
            )
            assert entry.checked is not None


def test_keys_are_unique(matrix: Matrix) -> None:
    for table, key in TABLE_KEYS.items():
        seen = [tuple(getattr(e, k) for k in key) for e in getattr(matrix, table)]
        duplicates = {k for k in seen if seen.count(k) > 1}
        assert not duplicates, (table, duplicates)


def test_versions_parse(matrix: Matrix) -> None:
    for release in matrix.cuda_release:
        assert versions.parse(release.version) and versions.parse(release.min_driver)
    for torch in matrix.torch:
        for variant in torch.variants:
            assert versions.parse(variant.cuda)


def test_instances_name_known_gpus(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    names = {g.name for g in matrix.gpu}
    for instance in matrix.instance:
        assert instance.gpu is None or instance.gpu in names, instance.type
        if instance.gpu:
            assert index.gpu(instance.gpu) is not None


def test_cuda_release_floors_respect_their_major(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for release in matrix.cuda_release:
        major = index.cuda_major(versions.major(release.version))
        assert major is not None, release.version
        if versions.release(release.version, 2) == "11.0":
            continue  # 11.0 shipped before the 11.x floor (450.80.02) existed: Table 3's footnote
        assert versions.parse(release.min_driver) >= versions.parse(major.min_driver)  # type: ignore[operator]


def test_gpu_lookup_prefers_the_longest_match() -> None:
    index = MatrixIndex(load_matrix())
    assert index.gpu("NVIDIA GB200") is not None and index.gpu("NVIDIA GB200").name == "GB200"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA L40S").name == "L40S"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA L4").name == "L4"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA A100-SXM4-80GB").name == "A100 80GB"  # type: ignore[union-attr]
    assert index.gpu("Matrox G200") is None


def test_user_matrix_overrides_and_bad_files_fail_clearly(tmp_path: Path) -> None:
    (tmp_path / "gpus.toml").write_text(
        '[[gpu]]\nname = "H100"\nmatch = ["H100"]\ncompute_capability = "9.0"\n'
        'architecture = "Hopper"\ndatacenter = true\nsource = "https://example.invalid/x"\n'
        'checked = 2026-12-01\nnote = "overridden"\n'
    )
    overlaid = MatrixIndex(load_matrix([tmp_path]))
    assert overlaid.gpu("NVIDIA H100 80GB HBM3").note == "overridden"  # type: ignore[union-attr]
    (tmp_path / "bad.toml").write_text("[[gpu]]\nname = \n")
    with pytest.raises(StackcheckError, match=r"bad\.toml"):
        load_matrix([tmp_path])
    (tmp_path / "bad.toml").write_text('[[gpus]]\nname = "x"\n')
    with pytest.raises(StackcheckError, match=r"unknown table 'gpus'"):
        load_matrix([tmp_path])
    (tmp_path / "bad.toml").write_text('[[gpu]]\nname = "x"\nmatch = ["x"]\n')
    with pytest.raises(StackcheckError, match="invalid matrix entry"):
        load_matrix([tmp_path])
