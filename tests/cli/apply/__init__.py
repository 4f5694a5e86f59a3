"""`planner apply` and `planner destroy`: runs, events, interruptions, the plan/apply property."""
