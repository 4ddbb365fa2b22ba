"""Harvesters: read a primary source (a local checkout or a saved page) and write matrix rows.

Each module reads one kind of source and returns a :class:`~.rows.Harvest`: the table it feeds and
its rows, every row with ``source`` (repo@commit:path, or the page's URL) and ``checked`` (the day
the harvester read it). ``scripts/harvest/<source>.py`` runs one from the command line; ``--check``
compares a fresh harvest with the bundled matrix and lists every difference.
"""
