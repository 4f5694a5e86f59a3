"""`planner plan --out PLANFILE`: the plan saved for `planner apply PLANFILE`, sealed with
the state's plan key (made now if there is none). The file must be new or an earlier saved
plan: the config, the state and its siblings, the embedded control plane's database are
refused by name, before the plan is made."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from planner.cli.options import OutputOptions
from planner.cli.target import Target
from planner.cli.workspace import Workspace
from planner.command_lines import password_note, suggested_command
from planner.plan.diff import PlanOptions
from planner.plan.model import Plan
from planner.plan.refresh import Observed
from planner.plan.saved import (
    SavedPlan,
    make_saved_plan,
    plan_file_target,
    seal_saved_plan,
    write_saved_plan,
)
from planner.plan.stale import variable_digests
from planner.render.console import make_console
from planner.state.document import StateDocument
from planner.state.localfile import LocalFileBackend
from planner.state.location import is_postgres_url


@dataclass
class PlanFile:
    """`--out PATH`, and the sealed plan to write there once made (None: not yet, or the
    plan has errors)."""

    path: str
    saved: SavedPlan | None = None

    def check_target(self, target: Target) -> None:
        """Refuse a PATH that is not a new file or a saved plan, before the plan is made;
        the hint names TARGET's own files (the config, the state and its siblings, the
        embedded control plane's database) as such."""
        known = {Path(os.path.realpath(target.config_path)): "the config file"}
        if not is_postgres_url(target.state.location):
            known |= LocalFileBackend(target.state.location).files()
        if target.endpoint.db_path is not None:
            known[Path(os.path.realpath(target.endpoint.db_path))] = (
                "the local control plane's database"
            )
        plan_file_target(self.path, known)

    def seal(
        self,
        ws: Workspace,
        plan: Plan,
        doc: StateDocument,
        observed: Observed,
        options: PlanOptions,
    ) -> None:
        """Keep PLAN to save, sealed with the state's plan key (made now if there is none)."""
        saved = make_saved_plan(
            plan,
            doc,
            observed,
            config_path=ws.config.path,
            plan_path=self.path,
            state_path=ws.backend.address,
            state_dir=ws.state_dir,
            options=options,
            desired=ws.config.deployments,
            variables=variable_digests(ws.config.given_variables, ws.digest_key(doc)),
        )
        self.saved = seal_saved_plan(saved, ws.plan_key())

    def report(self, output: OutputOptions, state_args: tuple[str, ...]) -> None:
        """The saved plan file written and said, apart from the plan itself; the apply
        command repeats STATE_ARGS (`--state`, its password left out and said where it
        comes from)."""
        if self.saved is None:
            message = f"The plan has errors: not saved to {self.path}."
            make_console(stderr=True).print(message, markup=False)
            return
        write_saved_plan(self.path, self.saved)
        make_console(stderr=output.format != "text").print(
            f"\nSaved the plan to {self.path}. To apply exactly this plan: "
            + suggested_command("apply", self.path, command_args=state_args)
            + password_note(*state_args),
            markup=False,
        )
