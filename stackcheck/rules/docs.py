"""Rule documentation as text: one rule for `stackcheck explain`, all for docs/rules.md."""

from __future__ import annotations

import re
import textwrap

from stackcheck.rules.base import Rule

_CODE = re.compile(r"`[^`]*`")
_KEEP = "\x00"  # stands for a space inside a code span while wrapping


def _block(text: str) -> str:
    """Filled at spaces outside code spans only, so a copied path, URL, command or identifier
    is whole: never at a hyphen, inside a long word or inside `...`."""
    kept = _CODE.sub(lambda code: code.group().replace(" ", _KEEP), text)
    filled = textwrap.fill(kept, 88, break_on_hyphens=False, break_long_words=False)
    return filled.replace(_KEEP, " ")


def rule_page(rule: Rule, heading: str = "#") -> str:
    """What it does, why it is bad, an example and the fix, in ruff's manner."""
    parts = [
        f"{heading} {rule.id} {rule.name}: {rule.title}",
        "",
        f"Family: `{rule.family}` · Severity: `{rule.severities()}`",
        "",
        f"{heading}# What it does",
        _block(rule.doc.what),
        "",
        f"{heading}# Why is this bad?",
        _block(rule.doc.why),
        "",
        f"{heading}# Example",
        _block(rule.doc.example),
        "",
        f"{heading}# Fix",
        _block(rule.doc.fix),
    ]
    if rule.doc.references:
        parts += ["", f"{heading}# References", *(f"- {r}" for r in rule.doc.references)]
    return "\n".join(parts) + "\n"


def catalogue(rules: tuple[Rule, ...]) -> str:
    """docs/rules.md: a table of every rule, then each rule's page."""
    lines = [
        "# Rules",
        "",
        "Generated from the rule catalogue (`stackcheck rules`, `stackcheck explain ID`); a test",
        "keeps this page in step with the code.",
        "",
        "| ID | name | family | severity | title |",
        "|---|---|---|---|---|",
        *(
            f"| [{r.id}](#{r.id.lower()}) | {r.name} | {r.family} | {r.severities()} | {r.title} |"
            for r in rules
        ),
        "",
    ]
    pages = (f'<a id="{r.id.lower()}"></a>\n\n' + rule_page(r, "##") for r in rules)
    return "\n".join(lines) + "\n" + "\n".join(pages)
