"""Container images: sources (archives, OCI layouts, an engine, a registry), layers read as
streams, the merged view the probes run over, and the layer cache."""
