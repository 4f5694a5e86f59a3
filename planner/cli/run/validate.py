"""`planner validate`: load the config, print every problem (exit 1) or one OK line (exit 0).

Problems go to stderr through the error boundary (one line each); warnings and notes go
to stderr too; the OK lines go to stdout. A config with environments is checked in each
of them (or in the one `--env` names). Validate never needs secrets' environment
variables (a CI lint job has no secrets): one that is not set is a note, not an error
(plan and apply still need it). Every policy's CEL expression is compiled: one that does
not compile is an error naming the policy, reported with the config's other problems (the
policies whose own tables are valid are compiled even when the rest of the config is not).
"""

from __future__ import annotations

import os
from pathlib import Path

from planner.cli.commands.validate import ValidateArgs
from planner.config import Config, load_config
from planner.config.environments import environment_names
from planner.config.policies import well_formed_policies
from planner.config.reader import read_raw
from planner.config.secret_values import NotingMissing
from planner.errors import ConfigError
from planner.plan.policies import compile_policies
from planner.render.console import make_console


def run(args: ValidateArgs) -> int:
    options = args.workspace
    path = Path(options.config)
    raw = read_raw(path)
    chosen = options.environment(os.environ)
    environments: list[str | None] = [chosen] if chosen else [*environment_names(raw)]
    loaded: list[tuple[Config, list[str]]] = []
    failures: list[ConfigError] = []
    for environment in environments or [None]:
        environ = NotingMissing(os.environ)
        config: Config | None = None
        errors: list[ConfigError] = []
        try:
            config = load_config(
                path, environ=environ, env=environment, variables=options.variable_values(), raw=raw
            )
        except ConfigError as error:
            errors.append(error)
        policies = config.policies if config else well_formed_policies(raw, environment)
        try:
            compile_policies(policies, str(path))
        except ConfigError as error:
            errors.append(error)
        if config is not None and not errors:
            loaded.append((config, environ.missing))
        failures += errors
    if failures:
        raise _combined(failures)
    for config, missing in loaded:
        _report(options.config, config, missing)
    return 0


def _report(label: str, config: Config, missing: list[str]) -> None:
    errors = make_console(stderr=True)
    for warning in config.warnings:
        errors.print(f"Warning: {warning}", markup=False)
    for variable in missing:
        note = f"Note: environment variable {variable} is not set (plan and apply need it)"
        errors.print(note, markup=False)
    count = len(config.deployments)
    noun = "deployment" if count == 1 else "deployments"
    where = f" in environment {config.environment}" if config.environment else ""
    make_console().print(f"OK: {label} is valid{where} ({count} {noun})", markup=False)


def _combined(failures: list[ConfigError]) -> ConfigError:
    if len(failures) == 1:
        return failures[0]
    return ConfigError(
        "; ".join(error.message for error in failures),
        # A problem outside the environments' own tables shows once, not once per environment.
        details=list(dict.fromkeys(line for error in failures for line in error.details)),
        hint=failures[0].hint,
    )
