"""Storage backends behind one protocol: ``reference`` (in-memory oracle) and ``sqlite``."""
