"""pbem: play board games by email with signed saves and no referee."""

__version__ = "0.1.0"
