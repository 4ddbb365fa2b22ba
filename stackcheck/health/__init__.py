"""A node's own health check, run where the fleet runs: Slurm's HealthCheckProgram (or NHC),
node-problem-detector's custom plugins. See docs/operations.md."""
