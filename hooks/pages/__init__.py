"""The Markdown the site is built from: each system's pages, glossary links, dice chips,
tables, calculator widgets and the Compare pages. Plain Python, no generator."""
