"""The one redactor: every output (each report format, the snapshot JSON, triage's parsed
facts) passes through it, so a secret that reached a snapshot never reaches a CI log.

Secrets are found by name (a variable called ``*KEY*``, ``*TOKEN*``, ...) and by the shape of a
value, wherever it stands (credentials inside a URL, ``token=...`` pairs, well-known token
prefixes), as gitleaks and detect-secrets do. A redacted value keeps its shape
(``https://***@host/x``, ``HF_TOKEN=***``) so a finding about it still reads.

The same pass makes every string printable as JSON: a file name that is not UTF-8 arrives as
Python's surrogate escapes, and leaves as ``\\xNN`` for each byte that was not UTF-8
(see docs/security.md).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from enum import Enum
from typing import Any, TypeVar

from stackcheck.snapshot.model import _Model, field_names

MASK = "***"

# A variable whose name holds one of these words carries a secret (docker run -e, ENV, env dumps).
_SECRET_WORDS = ("key", "secret", "token", "pass", "auth", "license", "credential", "private")
SECRET_NAME = re.compile("|".join(_SECRET_WORDS), re.IGNORECASE)

# user:password@ (or a bare token@) inside any URL.
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s\"'<>]+@")
# NAME=value or NAME: value where NAME names a secret; the value ends at a separator or quote.
_PAIR = re.compile(
    r"(?P<name>(?<![\w.-])[\w.-]*?"
    r"(?:key|secret|token|pass|auth|license|credential|private)[\w.-]*)"
    r"(?P<sep>=|:(?=\S)(?!//))(?P<quote>[\"']?)(?P<value>[^\s,;&\"'<>]+)",
    re.IGNORECASE,
)
# Values that are secrets by their own shape, whatever they are called.
_TOKEN_SHAPES = re.compile(
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bhf_[A-Za-z0-9]{30,}\b"  # Hugging Face
    r"|\bgh[pousr]_[A-Za-z0-9]{36,}\b"  # GitHub
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}\b"  # Slack
    r"|\bglpat-[A-Za-z0-9_-]{20,}\b"  # GitLab
)
# Substring tests are far cheaper than the regex over a long value (a 3 MB LD_LIBRARY_PATH).
_TOKEN_PREFIXES = ("AKIA", "ASIA", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xox", "glpat-")
_SURROGATES = re.compile("[\udc80-\udcff]")

T = TypeVar("T")


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _escape_surrogates(text: str) -> str:
    return _SURROGATES.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)


def redact_text(text: str) -> str:
    """``text`` with every secret found by its shape masked, and printable as UTF-8."""
    if not text:
        return text
    if not text.isascii() and _has_surrogates(text):
        text = _escape_surrogates(text)
    if "://" in text:
        text = _URL_CREDENTIALS.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
    lowered = text.lower()  # substring tests first: most strings name no secret
    if any(word in lowered for word in _SECRET_WORDS):
        text = _PAIR.sub(_mask_pair, text)
    if any(prefix in text for prefix in _TOKEN_PREFIXES):
        text = _TOKEN_SHAPES.sub(MASK, text)
    return text


def _mask_pair(match: re.Match[str]) -> str:
    if match.group("value") == MASK:
        return match.group()
    return f"{match.group('name')}{match.group('sep')}{match.group('quote')}{MASK}"


def redact_value(name: str, value: str) -> str:
    """A variable's value: masked whole when its name says secret, else by shape."""
    if SECRET_NAME.search(name):
        masked = _URL_CREDENTIALS.sub(lambda m: f"{m.group('scheme')}{MASK}@", value)
        return masked if masked != value else MASK if value else value
    return redact_text(value)


def redact(value: T) -> T:
    """A copy of a model, mapping, list or string with every secret masked (see module doc).

    Mappings are read as name -> value, so ``{"HF_TOKEN": "..."}`` and a model's
    ``env["NV_LICENSE_KEY"]`` are masked by name as well as by shape.
    """
    return _redact(value, None)  # type: ignore[no-any-return]


def _redact(value: Any, name: str | None) -> Any:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return redact_text(value) if name is None else redact_value(name, value)
    if isinstance(value, _Model):
        updates = _redacted_fields(value, field_names(type(value)), name)
        return replace(value, **updates) if updates else value
    # A pydantic model (a report, a fleet's) exists only where pydantic is imported already:
    # the probe's path, which has none, stays without it.
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        updates = _redacted_fields(value, type(value).model_fields, name)
        return value.model_copy(update=updates) if updates else value
    if isinstance(value, Mapping):
        return {
            _redact(k, None): _redact(v, k if isinstance(k, str) else None)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact(v, name) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, name) for v in value)
    return value


_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _redacted_fields(model: object, fields: Iterable[str], name: str | None) -> dict[str, Any]:
    """The fields of ``model`` that redaction changes, with their new values."""
    # An EnvVar's ``value`` is named by its mapping key; an Evidence's ``detail`` by its
    # ``source`` when that is a variable's name (env and image-config evidence).
    source = getattr(model, "source", None)
    names = {"value": name}
    if isinstance(source, str) and _VARIABLE.fullmatch(source):
        names["detail"] = source
    updates: dict[str, Any] = {}
    for field in fields:
        old = getattr(model, field)
        new = _redact(old, names.get(field))
        if new is not old and new != old:
            updates[field] = new
    return updates
