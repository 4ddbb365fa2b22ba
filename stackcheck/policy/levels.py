"""The names of the gate's thresholds; a module without dependencies so the CLI stays light."""

FAIL_ON = ("error", "warning", "info", "never")
