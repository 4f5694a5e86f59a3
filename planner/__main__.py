"""`python -m planner` runs the command line."""

from planner.cli.main import entrypoint

entrypoint()
