"""`planner rollback` and `planner release`: holds set and lifted, against every plane and
state, and runs killed at any point."""
