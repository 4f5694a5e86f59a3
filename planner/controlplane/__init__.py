"""planner.controlplane: the local control plane (FastAPI routes, SQLite store, lifecycle).

Its layer sits beside config, above api: it shares api's wire models and rules with the
client and imports nothing else of planner but the root modules (no state, config,
plan, apply, render or cli). Only the cli starts it (`planner serve`, or embedded
in-process through `planner.cli.endpoint`). `tests/test_layers.py` holds this.
"""
