"""Make a file again only when the bytes of its inputs changed, not their dates.

Make tells by dates, and a branch switch, a checkout or a stash rewrites files with new
dates and the same bytes: the Pyodide bundle and its snapshot (about a minute) were made
again for inputs that had not changed. A target made through this records the digest of
its inputs (their paths and bytes); while they are the same, the target is kept and
touched (so Make's dates agree with it until an input changes), else the command runs.

    python -m hooks.package.made_from TARGET INPUT... -- COMMAND...

The Makefile passes the rule's target and prerequisites ($@ $^).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path


def record_of(target: Path) -> Path:
    """Where the digest of a target's inputs is kept: beside it."""
    return target.with_name(f"{target.name}.made-from")


def digest(inputs: Iterable[Path], root: Path | None = None) -> str:
    """The inputs' paths (relative to `root`, where given) and bytes, in order of path (a
    missing input counts as missing)."""
    summed = hashlib.sha256()
    for path in sorted(set(inputs)):
        name = path.relative_to(root) if root is not None else path
        summed.update(f"{name.as_posix()}\0".encode())
        if path.is_file():
            data = path.read_bytes()
            summed.update(f"{len(data)}\0".encode())
            summed.update(data)
        else:
            summed.update(b"missing\0")
    return summed.hexdigest()


def unchanged(target: Path, inputs: Iterable[Path]) -> bool:
    """Whether the target exists and was made from inputs of these very bytes."""
    record = record_of(target)
    return (
        target.is_file()
        and record.is_file()
        and record.read_text(encoding="utf-8").strip() == digest(inputs)
    )


def made_from(target: Path, inputs: list[Path], command: list[str]) -> int:
    """Keep the target (touched) if its inputs are unchanged, else run the command and, when
    it succeeds, record what the target was made from. The command's exit status."""
    if unchanged(target, inputs):
        os.utime(target)
        print(f"{target}: made from these very inputs already: kept")
        return 0
    print(shlex.join(command), flush=True)
    record_of(target).unlink(missing_ok=True)
    done = subprocess.run(command, check=False).returncode
    if done == 0 and target.is_file():
        record_of(target).write_text(digest(inputs) + "\n", encoding="utf-8")
    return done


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") < 1 or argv[-1] == "--":
        print(
            "usage: python -m hooks.package.made_from TARGET INPUT... -- COMMAND...",
            file=sys.stderr,
        )
        return 2
    split = argv.index("--")
    target, inputs = Path(argv[0]), [Path(name) for name in argv[1:split]]
    return made_from(target, inputs, argv[split + 1 :])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
