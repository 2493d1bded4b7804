"""The command line run in this process, as `python -m rules_core` runs it: what it prints on
stdout and stderr, and its exit status."""

from __future__ import annotations

import contextlib
import io

from rules_core.cli import main


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit:
            # -h or --help anywhere (a value drawn as "-h" too): argparse prints the help
            # and exits 0, as `python -m rules_core` does.
            assert exit.code == 0, exit.code
            status = 0
    return status, out.getvalue(), err.getvalue()
