"""The site build: plain functions by job (content, pages, postprocess, package), and one
thin MkDocs adapter, mkdocs_hooks.py."""
