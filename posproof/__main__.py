"""``python -m posproof`` runs the command line."""

from .cli.app import console

console()
