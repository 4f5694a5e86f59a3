"""`planner import` and `planner import --all`: adopting deployments into the state."""
