"""`planner state ...` and `planner unlock`: records by hand, PostgreSQL state, locks and leases."""
