"""``python -m posproof`` runs the command line."""

from .cli.app import main

raise SystemExit(main())
