"""AWS's EFA changelog (the English page as markdown, one table row per installer): the libfabric,
aws-ofi-nccl (libnccl-ofi, "Amazon OFI NCCL Plugin") and rdma-core each release upgrades to, and
its date. A row names only what changed; what it leaves out is not harvested."""

from __future__ import annotations

import re
from datetime import date, datetime

from stackcheck.matrix.harvest.rows import Harvest, Row, version_in

URL = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-changelog.html"
_ROW = re.compile(r"^\|\s*(\d+\.\d+\.\d+)\s*\|(.*)\|\s*([A-Z][a-z]+ \d{1,2}, \d{4})\s*\|\s*$", re.M)


def harvest(text: str, day: date, source: str = URL) -> Harvest:
    rows: list[Row] = []
    for version, changes, released in _ROW.findall(text):
        row: Row = {
            "version": version,
            "released": datetime.strptime(released, "%B %d, %Y").date(),
            "libfabric": version_in(changes, r"libfabric (\d+\.\d+\.\d+\w*(?:\.\d+)?)"),
            "ofi_nccl": version_in(
                changes, r"(?:Amazon OFI NCCL Plugin|libnccl-ofi|aws-ofi-nccl) (\d+\.\d+\.\d+)"
            ),
            "rdma_core": version_in(changes, r"rdma-core (\d+(?:\.\w+)?)"),
            "source": source,
            "checked": day,
        }
        rows.append({k: v for k, v in row.items() if v is not None})
    return Harvest("efa_installer", rows)
