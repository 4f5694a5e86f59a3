"""planner.plan: the pure diff engine and the Plan value.

`make_plan(desired, recorded, observed, ...) -> Plan` (diff.py) does no I/O; the request
bodies apply sends come from `planner.plan.body`.
"""

from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Action, Change, Drift, FieldChange, Plan, PlanProblem, PlanWarning

__all__ = [
    "Action",
    "Change",
    "Drift",
    "FieldChange",
    "Plan",
    "PlanOptions",
    "PlanProblem",
    "PlanWarning",
    "make_plan",
]
