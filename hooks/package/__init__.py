"""What the site serves beside its pages: the Pyodide bundle with the rules core, and the
offline service worker and download; and the finishing of a generator's output
(`python -m hooks.package SITE_DIR`: hooks/postprocess/'s steps, then this package's).
Plain Python (and Node for the worker's bundling)."""
