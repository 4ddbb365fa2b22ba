"""Where images come from: archives, OCI layouts, a Docker-compatible engine, a registry."""
