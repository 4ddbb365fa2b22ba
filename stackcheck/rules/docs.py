"""Rule documentation as text: one rule for `stackcheck explain`, all for docs/rules.md."""

from __future__ import annotations

import textwrap

from stackcheck.rules.base import Rule


def _block(text: str) -> str:
    return textwrap.fill(text, 88)


def rule_page(rule: Rule, heading: str = "#") -> str:
    """What it does, why it is bad, an example and the fix, in ruff's manner."""
    parts = [
        f"{heading} {rule.id} {rule.name}: {rule.title}",
        "",
        f"Family: `{rule.family}` · Severity: `{rule.severity.value}`",
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
            f"| [{r.id}](#{r.id.lower()}) | {r.name} | {r.family} | {r.severity.value} "
            f"| {r.title} |"
            for r in rules
        ),
        "",
    ]
    pages = (f'<a id="{r.id.lower()}"></a>\n\n' + rule_page(r, "##") for r in rules)
    return "\n".join(lines) + "\n" + "\n".join(pages)
