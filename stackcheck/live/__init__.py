"""Sources only a running host has: NVML, commands on PATH, the process environment, limits,
and the EC2 instance metadata service. Each has a timeout and degrades to "unknown, because ..."."""
