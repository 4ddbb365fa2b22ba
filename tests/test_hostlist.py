"""Slurm hostlists: the compressed node names reports print, and the lists users pass in."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stackcheck.errors import StackcheckError
from stackcheck.fleet.hostlist import compress, expand


def test_a_finding_on_63_of_64_nodes_names_them_in_one_range_list() -> None:
    nodes = [f"node{i:02d}" for i in range(1, 65) if i != 17]
    assert compress(nodes) == "node[01-16,18-64]"


def test_compress_groups_prefixes_and_keeps_plain_names() -> None:
    names = ["gpu3", "gpu1", "gpu2", "login", "cpu-a07", "cpu-a08", "gpu10"]
    assert compress(names) == "cpu-a[07-08],gpu[1-3,10],login"
    assert compress(["node1"]) == "node1"
    assert compress([]) == ""


def test_unpadded_numbers_join_padded_ones_of_the_same_width() -> None:
    assert compress(["n08", "n09", "n10", "n11"]) == "n[08-11]"
    assert compress(["n8", "n9", "n10"]) == "n[8-10]"


def test_expand_reads_slurm_hostlists() -> None:
    assert expand("node[01-03,07],login1") == ["node01", "node02", "node03", "node07", "login1"]
    assert expand("node[08-10,7]") == ["node08", "node09", "node10", "node7"]  # width per range
    assert expand("rack[1-2]-n[1-2]") == ["rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"]
    assert expand("a,a,b") == ["a", "b"]


@pytest.mark.parametrize("bad", ["node[1-", "node1]", "node[a-b]", "node[5-3]"])
def test_expand_rejects_broken_hostlists_in_one_line(bad: str) -> None:
    with pytest.raises(StackcheckError, match="hostlist"):
        expand(bad)


names = st.lists(
    st.builds(
        lambda prefix, number, pad: f"{prefix}{str(number).zfill(pad)}",
        st.sampled_from(["node", "gpu-", "p5-"]),
        st.integers(min_value=0, max_value=300),
        st.sampled_from([0, 3]),
    ),
    max_size=60,
)


@given(names)
def test_compress_then_expand_gives_back_the_same_nodes(nodes: list[str]) -> None:
    assert set(expand(compress(nodes))) == set(nodes)
