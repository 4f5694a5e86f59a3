"""planner.cli: argument parsing and wiring: the top layer, which alone composes the
endpoint (embedded or remote, `endpoint.py`) and the state backend."""
