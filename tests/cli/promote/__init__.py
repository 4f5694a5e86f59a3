"""`planner promote`: the diff and the plan, `--write`, `--only`, refusals, secrets, JSON
configs and output, against the embedded plane and a served one."""
