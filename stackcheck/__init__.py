"""stackcheck: lint the software stack under GPU distributed training."""

__version__ = "0.1.0"
