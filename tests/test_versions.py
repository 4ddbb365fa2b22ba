from __future__ import annotations

import pytest

from stackcheck import versions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.22.0amzn4.0", "1.22.0"),
        ("1.12.1-aws", "1.12.1"),
        ("2.21.5-1+cuda12.4", "2.21.5"),
        ("2.4.0+cu124", "2.4.0"),
        ("535.161.07", "535.161.7"),
        ("2.8.0a0+5228986c39.nv25.6", "2.8.0"),
    ],
)
def test_parse_keeps_the_release(text: str, expected: str) -> None:
    parsed = versions.parse(text)
    assert parsed is not None
    assert str(parsed) == expected


@pytest.mark.parametrize("text", ["", None, "unknown", "N/A"])
def test_parse_without_numbers_is_none(text: str | None) -> None:
    assert versions.parse(text) is None


def test_driver_versions_compare_numerically() -> None:
    assert versions.parse("535.104.05") < versions.parse("535.161.07")  # type: ignore[operator]
    assert versions.parse("580.65.06") > versions.parse("575.57.08")  # type: ignore[operator]


def test_release_and_major() -> None:
    assert versions.release("12.4.1", 2) == "12.4"
    assert versions.release("13", 2) == "13.0"
    assert versions.major("13.0.2") == 13


def test_cuda_tags() -> None:
    assert versions.local_tag("2.4.0+cu124") == "cu124"
    assert versions.cuda_from_tag("cu124") == "12.4"
    assert versions.cuda_from_tag("cu118") == "11.8"
    assert versions.cuda_from_tag("cpu") is None
    assert versions.cuda_from_int(12040) == "12.4"
    assert versions.cuda_from_int(13000) == "13.0"
