"""The version of posproof, in one place: ``posproof.__version__`` and ``posproof --version``."""

__version__ = "0.1.0"
