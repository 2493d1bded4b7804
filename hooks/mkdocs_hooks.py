"""MkDocs hooks: load the content, add the generated pages, point "edit" at content/.

Thin on purpose: the work happens in plain functions of `hooks.content` and
`hooks.site`, which the tests call without MkDocs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

# MkDocs imports this file by path; the package next to it needs the repository root.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hooks.content import System, load_content  # noqa: E402
from hooks.site import edit_source, navigation, render_site  # noqa: E402
from hooks.yaml_lines import ContentError  # noqa: E402

_systems: dict[str, System] = {}
_pages: dict[str, str] = {}


def on_config(config):
    global _systems, _pages
    try:
        _systems = load_content(ROOT / "content")
        _pages = render_site(_systems)
    except ContentError as error:
        raise PluginError(f"content error: {error}") from None
    config["nav"] = navigation(_systems, config.get("nav") or [])
    return config


def on_files(files: Files, config) -> Files:
    for path, markdown in _pages.items():
        files.append(File.generated(config, path, content=markdown))
    return files


def on_page_context(context, page, config, nav):
    base = config["extra"].get("edit_base")
    source = edit_source(_systems, page.file.src_uri)
    if source is None and not page.file.generated_by:
        source = f"{config['docs_dir'].removeprefix(str(ROOT)).strip('/')}/{page.file.src_uri}"
    if base and source:
        page.edit_url = f"{base.rstrip('/')}/{source}"
    return context
