"""`planner policy test`: evaluate the config's policies against its desired deployments.

No network and no state (a CI lint job has neither): each deployment is checked as if it
were created (`change.action` "create", `live` null). Every environment is checked unless
`--env` names one; secrets' environment variables are not needed (their values are
never an input). Exit codes: 0 no deny, 1 a deny, an expression that does not compile or
an invalid config.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from planner.cli.commands.policy import PolicyTestArgs
from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.options import WorkspaceOptions
from planner.config import load_config
from planner.config.environments import environment_names
from planner.config.reader import read_raw
from planner.config.secret_values import NotingMissing
from planner.plan.policies import check_desired, compile_policies
from planner.render.policy_view import PolicyRun, render_policy_runs


def run(args: PolicyTestArgs) -> int:
    options = args.workspace
    path = Path(options.config)
    chosen = options.environment(os.environ)
    environments: list[str | None] = [chosen] if chosen else [*environment_names(read_raw(path))]
    runs = [policy_run(path, options, env) for env in environments or [None]]
    sys.stdout.write(render_policy_runs(runs, args.format))
    return EXIT_ERROR if any(run.denials for run in runs) else EXIT_OK


def policy_run(path: Path, options: WorkspaceOptions, env: str | None) -> PolicyRun:
    config = load_config(
        path, environ=NotingMissing(os.environ), env=env, variables=options.variable_values()
    )
    compiled = compile_policies(config.policies, str(path))
    results = check_desired(compiled, config.deployments, env)
    names = [policy.name for policy in config.policies]
    return PolicyRun(options.config, env, names, len(config.deployments), results)
