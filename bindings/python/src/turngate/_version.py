"""The version of the turngate Python binding (equal to the bridge it ships with)."""

__version__ = "0.1.0"
