#!/usr/bin/env python3
"""Harvest matrix rows from one source (`--help`); see scripts/harvest/README.md."""

import sys

from stackcheck.matrix.harvest.cli import main

sys.exit(main("nccl"))
