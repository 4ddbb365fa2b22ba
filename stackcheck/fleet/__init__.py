"""The fleet: many nodes' snapshots, gathered through Slurm or from files, checked as one.

Sources (``sources/``) yield what each node answered; ``stacks`` groups identical snapshots by
content so each distinct stack is validated and checked once; the drift rules compare the stacks;
``engine`` puts it together into a ``FleetReport`` (``model``).
"""
