"""The project's MkDocs hooks without the post-build step: a generator's raw output, on
which tests run `python -m hooks.package` as another generator's build would."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hooks.mkdocs_hooks import *  # noqa: F403
from hooks.mkdocs_hooks import on_post_build

del on_post_build
