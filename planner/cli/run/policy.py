"""`planner policy test`: evaluate the config's policies against its desired deployments.

No network and no state (a CI lint job has neither): each deployment is checked as if it
were created (`change.action` "create", `live` null). Every environment is checked unless
`--env` names one; secrets' environment variables are not needed (their values are
never an input). Exit codes: 0 no deny, 1 a deny, an expression that does not compile or
an invalid config.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_format_option,
)

# The config loader, the policy engine and the renderer are imported where they run:
# parsing the command line (`planner policy test --help`) needs none of them.
if TYPE_CHECKING:
    from planner.render.policy_view import PolicyRun


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("policy", parents=parents, help="check the config's policies")
    actions = parser.add_subparsers(dest="policy_command", metavar="ACTION", required=True)
    test = actions.add_parser(
        "test",
        parents=parents,
        help="evaluate the policies against the desired config (no network)",
        description="Evaluate the config's [policies] against its deployments, each as if "
        "it were created, without the network or the state; in every environment unless "
        "--env names one. Exit 1 when a policy denies.",
    )
    add_config_option(test)
    add_environment_options(test)
    add_format_option(test, ["text", "json"])
    test.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from planner.config.environments import environment_names
    from planner.config.reader import read_raw
    from planner.render.policy_view import render_policy_runs

    options = WorkspaceOptions.of(vars(args))
    path = Path(options.config)
    chosen = options.environment(os.environ)
    environments: list[str | None] = [chosen] if chosen else [*environment_names(read_raw(path))]
    runs = [policy_run(path, options, env) for env in environments or [None]]
    sys.stdout.write(render_policy_runs(runs, args.format))
    return EXIT_ERROR if any(run.denials for run in runs) else EXIT_OK


def policy_run(path: Path, options: WorkspaceOptions, env: str | None) -> PolicyRun:
    from planner.config import load_config
    from planner.config.secret_values import NotingMissing
    from planner.plan.policies import check_desired, compile_policies
    from planner.render.policy_view import PolicyRun

    config = load_config(
        path, environ=NotingMissing(os.environ), env=env, variables=options.variable_values()
    )
    compiled = compile_policies(config.policies, str(path))
    results = check_desired(compiled, config.deployments, env)
    names = [policy.name for policy in config.policies]
    return PolicyRun(options.config, env, names, len(config.deployments), results)
