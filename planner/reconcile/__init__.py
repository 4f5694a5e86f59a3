"""planner.reconcile: the continuous-convergence controller's parts below the command.

`Reconciler` (`planner.reconcile.loop`) runs the cycles (`planner.reconcile.cycle`: the
plan engine and apply's executor) of the replica `planner.reconcile.leader` elects.

`StatusBoard` (`planner.reconcile.status`) is what the loop tells the outside: the leader,
the last cycles, the deployments, the last plan; `serve_status` (`planner.reconcile.http`)
serves it over HTTP (`/`, `/metrics`, `/healthz`, `/readyz`). Only `planner.cli` imports
this package.
"""
