"""The verbs of simblas-hpl, one module each (see cli.py)."""
