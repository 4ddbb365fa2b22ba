"""Policy: what a team decides about findings — ignored rules, severity overrides, a baseline of
known findings, inline ignores in a Dockerfile. ``apply.py`` applies it after the check; this
package stays import-light because the CLI reads ``levels`` before any command runs."""
