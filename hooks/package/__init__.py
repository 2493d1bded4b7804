"""What the site serves beside its pages: the Pyodide bundle with the rules core, and the
offline service worker and download. Plain Python (and Node for the worker's bundling)."""
