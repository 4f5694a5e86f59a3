"""Held deployments (a rollback's hold in the state): plan, apply, reconcile, status and
history through the CLI, on the embedded plane and against `planner serve`."""
