"""What is done to each built page's HTML: the allow-list sanitizer, the Content-Security-
Policy, accessibility labels, app icons and the search scopes. Plain Python, no generator."""
