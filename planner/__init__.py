"""planner: a desired-state tool (plan / apply) for the deployment control plane."""

__version__ = "0.1.0"
