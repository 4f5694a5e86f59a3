"""planner.reconcile: the continuous-convergence controller's parts below the command.

`StatusBoard` (`planner.reconcile.status`) is what the loop tells the outside: the leader,
the last cycles, the deployments, the last plan; `serve_status` (`planner.reconcile.http`)
serves it over HTTP (`/`, `/metrics`, `/healthz`, `/readyz`). Only `planner.cli` imports
this package.
"""
