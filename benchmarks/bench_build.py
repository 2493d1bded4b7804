"""Site build cost: hooks versus plain MkDocs, and 10x and 30x content versus 1x, in one run.

1. The real build (hooks on) against `mkdocs build` of the very Markdown the hooks
   produce, written out as plain files, with no hooks (target: at most 1.30x).
2. The real build with every system replicated ten and thirty times against the real
   build (targets: 10x within 11x, 30x within 33x: the cost grows linearly with content),
   with the size of one rules page at each scale.

Each figure is the best of a few builds (one at 30x), each in a fresh process, in
temporary copies of the project. Run from the repository root:
.venv/bin/python benchmarks/bench_build.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hooks.content.loader import load_content  # noqa: E402
from hooks.pages.calculators import expand_calculators  # noqa: E402
from hooks.pages.site import expand_systems_table, navigation, render_site  # noqa: E402

REPEATS = 3
SCALES = {10: 2, 30: 1}  # copies of the content: builds to take the best of
MKDOCS = str(Path(sys.executable).parent / "mkdocs")


def copy_project(target: Path) -> None:
    target.mkdir(parents=True)
    for name in ("mkdocs.yml", "docs", "overrides", "hooks", "content", "rules_core", "build"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target / name)
    # Workbox, for the service worker the build writes last.
    (target / "node_modules").symlink_to(ROOT / "node_modules")


class _PlainDumper(yaml.SafeDumper):
    """Writes a value shared by several keys out each time: content takes no anchors."""

    def ignore_aliases(self, data: object) -> bool:
        return True


class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml as data: `!ENV NAME` reads as unset, as in a local build."""


_ConfigLoader.add_constructor("!ENV", lambda loader, node: None)


def build_seconds(project: Path, repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        site = project / "site"
        shutil.rmtree(site, ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(
            [MKDOCS, "build", "--quiet", "--site-dir", str(site)],
            cwd=project,
            check=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
        best = min(best, time.perf_counter() - start)
    return best


def plain_project(target: Path) -> None:
    """The hooks' output as ordinary Markdown files and a config without hooks."""
    copy_project(target)
    systems = load_content(ROOT / "content")
    for path, markdown in render_site(systems).items():
        file = target / "docs" / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(markdown, encoding="utf-8")
    for file in (target / "docs").rglob("*.md"):
        # Calculator pages get their build-time results, as the hook would give them.
        relative = file.relative_to(target / "docs").with_suffix("")
        depth = len(relative.parts) - (relative.name == "index")
        markdown = expand_systems_table(file.read_text(encoding="utf-8"), systems)
        file.write_text(expand_calculators(markdown, "../" * depth), encoding="utf-8")
    shutil.copytree(ROOT / "build" / "pyodide", target / "docs" / "assets" / "pyodide")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)
    config.pop("hooks")
    config.pop("site_url")
    config["nav"] = navigation(systems, config["nav"])
    (target / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def replicated_project(target: Path, copies: int) -> None:
    copy_project(target)
    content = target / "content"
    slugs = yaml.safe_load((content / "systems.yml").read_text(encoding="utf-8"))["systems"]
    listed = list(slugs)
    for copy in range(2, copies + 1):
        for slug in slugs:
            shutil.copytree(content / slug, content / f"{slug}-{copy}")
            system_file = content / f"{slug}-{copy}" / "system.yml"
            text = system_file.read_text(encoding="utf-8")
            short = yaml.safe_load(text)["short_title"]
            system_file.write_text(
                text.replace(f"short_title: {short}", f"short_title: {short} {copy}"),
                encoding="utf-8",
            )
            listed.append(f"{slug}-{copy}")
    (content / "systems.yml").write_text(yaml.safe_dump({"systems": listed}), encoding="utf-8")
    # Every compare concept lists every system: the copies quote what their originals quote.
    compare = yaml.safe_load((content / "compare.yml").read_text(encoding="utf-8"))
    for concept in compare["concepts"]:
        passages = concept["systems"]
        for copy in range(2, copies + 1):
            passages.update({f"{slug}-{copy}": passages[slug] for slug in slugs})
    (content / "compare.yml").write_text(
        yaml.dump(compare, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    # The rules core's compiled data, as `make data` writes it before the build.
    subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        cwd=target,
        check=True,
    )


def page_kilobytes(project: Path) -> float:
    """The size of the first system's first rules page, in KB."""
    content = project / "content"
    slug = yaml.safe_load((content / "systems.yml").read_text(encoding="utf-8"))["systems"][0]
    first = yaml.safe_load((content / slug / "system.yml").read_text(encoding="utf-8"))["pages"][0]
    return (project / "site" / slug / first / "index.html").stat().st_size / 1000


def main() -> int:
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        real, plain = base / "real", base / "plain"
        copy_project(real)
        plain_project(plain)
        with_hooks = build_seconds(real)
        size = page_kilobytes(real)
        without_hooks = build_seconds(plain)
        scaled = {}
        for copies, repeats in SCALES.items():
            project = base / f"x{copies}"
            replicated_project(project, copies)
            scaled[copies] = (build_seconds(project, repeats), page_kilobytes(project))
            shutil.rmtree(project)
    print(f"build with hooks, 1x:        {with_hooks:7.2f} s   (rules page {size:6.1f} KB)")
    for copies, (seconds, kilobytes) in scaled.items():
        label = f"content replicated {copies}x:"
        print(f"{label:<29}{seconds:7.2f} s   (rules page {kilobytes:6.1f} KB)")
    print(f"same Markdown, plain MkDocs: {without_hooks:7.2f} s")
    print(f"hooks / plain ratio: {with_hooks / without_hooks:.2f} (target <= 1.30)")
    for copies, (seconds, _) in scaled.items():
        target = 11 if copies == 10 else copies * 1.1
        print(f"{copies}x / 1x ratio:     {seconds / with_hooks:5.2f} (target <= {target:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
