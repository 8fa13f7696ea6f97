"""The package version, in a module of its own so that no module needs ``import rankframe`` (the package) for it."""

__version__ = "0.9.0"
