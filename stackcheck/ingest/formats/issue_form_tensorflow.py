"""TensorFlow's GitHub issue form, as GitHub renders the answers: each field's label as a `### `
heading, the answer on the next non-blank line (tensorflow/tensorflow's
.github/ISSUE_TEMPLATE/00-bug-issue.yaml and its older Markdown form: `TensorFlow version`, `OS
platform and distribution`, `CUDA/cuDNN version`). The TensorFlow release and the platform are
what tell a native-Windows build, which has no CUDA from 2.11 on."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.issue_form import IssueFormField
from stackcheck.ingest.lines import Line

# "v2.12.0-rc1-12-g0db597d0d75 2.12.0", "2.11.0", "tf 2.16", "TensorFlow 2.15.0".
_VERSION = re.compile(r"^\s*(?:tf|tensorflow(?:-gpu)?)?\s?v?(\d\.\d{1,2})(?:\.\d{1,2})?\b", re.I)
# "Windows 10", "win10", "Windows 11 Pro": native Windows, not WSL (a Linux build).
_WINDOWS = re.compile(
    r"^\s*(?:Microsoft\s)?win(?:dows)?\s?(?:1[01]|[78]|server)?\b(?!.*\bWSL)", re.I
)
# "11.6r11.6/8.6", "12.3", "cuda_11.8.0_522.06_windows / cudnn-...": a CUDA the reporter installed.
_CUDA = re.compile(r"^\s*(?:cuda[\s_]?)?v?(\d{1,2}\.\d)", re.I)
_FIELDS = {
    "tensorflow version": "tensorflow",
    "os platform and distribution": "os",
    "cuda/cudnn version": "cuda",
}


class IssueFormTensorflow(IssueFormField):
    name = "issue_form_tensorflow"
    title = "issue form (TensorFlow)"
    anchor = re.compile(
        r"^#{2,4}\s?(?:TensorFlow version|OS platform and distribution|CUDA/cuDNN version)\s*$",
        re.IGNORECASE,
    )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        field = _FIELDS.get(lines[0].text.strip("# \t").lower())
        answer = self.answer(lines)
        if field is None or answer is None:
            return []
        if field == "tensorflow":
            found = _VERSION.match(answer.text)
            return [ObservationFact(answer, "tensorflow-stated", found.group(1))] if found else []
        if field == "os":
            found = _WINDOWS.match(answer.text)
            return [ObservationFact(answer, "windows-native", answer.text.strip())] if found else []
        found = _CUDA.match(answer.text)
        return (
            [ObservationFact(answer, "version-stated", f"CUDA {found.group(1)}")] if found else []
        )
