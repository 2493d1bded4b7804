"""Run the rules core command line: python -m rules_core."""

from rules_core.cli import main

raise SystemExit(main())
