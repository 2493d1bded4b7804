"""Content-Security-Policy for every page (to be completed)."""

from __future__ import annotations


def add_content_security_policy(html: str) -> str:
    return html
