"""Reading content/: YAML within limits, the systems, pages, tables and glossaries, the
rules.yml schema, and the rules data the core computes from. Plain Python, no generator."""
