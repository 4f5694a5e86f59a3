"""`planner plan` and `planner show`: actions, errors, options, saved plans, policies."""
