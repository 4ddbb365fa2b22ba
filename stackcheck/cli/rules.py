"""``stackcheck rules`` and ``stackcheck explain``: the rule catalogue and each rule's docs."""

from __future__ import annotations

import argparse
import sys

from stackcheck.cli.common import EXIT_CLEAN, add_text_or_json_arguments, wants_json
from stackcheck.errors import StackcheckError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = commands.add_parser(
        "rules", help="list every rule: ID, family, severity, title", description="list every rule"
    )
    add_text_or_json_arguments(listing)
    listing.set_defaults(run=run_rules)
    explain = commands.add_parser(
        "explain",
        help="print a rule's documentation: what it checks, why it matters, example, fix",
        description="print a rule's documentation",
    )
    explain.add_argument("rule_id", metavar="RULE_ID", help="e.g. SC101 or driver-too-old")
    explain.set_defaults(run=run_explain)


def run_rules(args: argparse.Namespace) -> int:
    from stackcheck.rules import RULES

    if wants_json(args):
        import json

        rows = [
            {
                "id": r.id,
                "name": r.name,
                "family": r.family,
                "severity": r.severity.value,  # the most severe level
                "severities": r.severities(),  # the level, or the range findings get
                "title": r.title,
            }
            for r in RULES
        ]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_CLEAN
    width = max(len(r.family) for r in RULES)
    levels = max(len(r.severities()) for r in RULES)
    sys.stdout.write(f"{'ID':<7}{'FAMILY':<{width + 2}}{'SEVERITY':<{levels + 2}}TITLE\n")
    for rule in RULES:
        sys.stdout.write(
            f"{rule.id:<7}{rule.family:<{width + 2}}{rule.severities():<{levels + 2}}{rule.title}\n"
        )
    return EXIT_CLEAN


def run_explain(args: argparse.Namespace) -> int:
    from stackcheck.rules import rule_by_id
    from stackcheck.rules.docs import rule_page

    rule = rule_by_id(args.rule_id)
    if rule is None:
        raise StackcheckError(f"no rule {args.rule_id!r}; `stackcheck rules` lists them")
    sys.stdout.write(rule_page(rule))
    return EXIT_CLEAN
