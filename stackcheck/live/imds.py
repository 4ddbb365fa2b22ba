"""The EC2 instance metadata service (IMDSv2), asked only on EC2 and only when allowed."""

from __future__ import annotations

import time

ENDPOINT = "http://169.254.169.254"
DEFAULT_TIMEOUT = 1.0


def instance_type(timeout: float = DEFAULT_TIMEOUT, endpoint: str = ENDPOINT) -> str | None:
    """The instance type, or None; the whole exchange stays within ``timeout`` seconds."""
    # Imported here: urllib pulls in ssl and email, which a probe off EC2 never needs.
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    try:
        token_request = urllib.request.Request(
            f"{endpoint}/latest/api/token",
            method="PUT",
            headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"},
        )
        with urllib.request.urlopen(token_request, timeout=timeout) as response:
            token = response.read(256).decode()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        type_request = urllib.request.Request(
            f"{endpoint}/latest/meta-data/instance-type",
            headers={"X-aws-ec2-metadata-token": token},
        )
        with urllib.request.urlopen(type_request, timeout=remaining) as response:
            return response.read(64).decode().strip() or None
    except (urllib.error.URLError, OSError, ValueError):
        return None
