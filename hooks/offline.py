"""Offline support: the service worker and the downloadable zip (to be completed)."""

from __future__ import annotations

from pathlib import Path


def finish_site(site_dir: Path) -> None:
    return None
