"""`planner reconcile`: one cycle in-process, and the controller against `planner serve`."""
