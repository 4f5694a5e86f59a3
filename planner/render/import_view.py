"""What `planner import --all` says: what it is about to adopt (before it asks), and what
it did and what is left to do (after); what `import --from-terraform` says it did, and
how Terraform hands the deployments over. The command returns these values; only this
module words them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planner.api.models import Deployment
from planner.command_lines import suggested_command, terraform_state_rm
from planner.render.lines import UNRECORDED, UNSEEN_STATES
from planner.state.document import iso_utc


@dataclass
class Proposal:
    """What `import --all` is about to do, before it writes anything: adopt DEPLOYMENTS
    into the state at STATE_LOCATION (as people read it) and declare them in CONFIG_PATH."""

    config_path: Path
    state_location: str
    deployments: list[Deployment]
    skipped: list[str]


@dataclass
class Adopted:
    """What `import --all` did: the file, the state, the names and the variables."""

    config_path: Path
    state_location: str
    names: list[str]
    variables: list[str]
    skipped: list[str]
    password_left_out: bool = False  # the state URL's password, not written into FILE


def skipped_lines(skipped: list[str], config: str) -> list[str]:
    """The names left out because the `-c` CONFIG declares them."""
    if not skipped:
        return []
    return [
        f"Left out, declared in {config} (adopt each with `planner import NAME ID`): "
        + ", ".join(skipped)
    ]


def proposal_lines(proposal: Proposal, config: str) -> list[str]:
    """What `import --all` is about to adopt, said before it asks: each deployment, where
    it goes, and what the planner cannot know about it."""
    count = len(proposal.deployments)
    lines = skipped_lines(proposal.skipped, config)
    lines.append(
        f"To adopt {count} deployment{'s' if count != 1 else ''} into the state "
        f"{proposal.state_location}, declared in {proposal.config_path}:"
    )
    lines += [
        f"  {d.name} (id {d.id}, created {iso_utc(d.created_at)})" for d in proposal.deployments
    ]
    lines.append(
        f"{'Each' if count != 1 else 'It'} is {UNRECORDED} ({UNSEEN_STATES}): adopting a "
        "deployment another state manages makes two states write one deployment."
    )
    return lines


def adopted_lines(adopted: Adopted, config: str, env: str | None) -> list[str]:
    """What `import --all` tells: what it wrote, what is left to do (CONFIG: `-c`, ENV:
    the environment)."""
    if not adopted.names:
        nothing = "No unmanaged deployment to adopt: nothing was written."
        return [*skipped_lines(adopted.skipped, config), nothing]
    count = len(adopted.names)
    lines = [
        f"Adopted {count} deployment{'s' if count != 1 else ''} into the state "
        f"{adopted.state_location} and wrote {adopted.config_path}.",
        "Nothing was changed on the control plane.",
    ]
    if adopted.variables:
        lines.append(
            "Set these environment variables (the deployments' secrets) to plan: "
            + " ".join(adopted.variables)
        )
    if adopted.password_left_out:
        lines.append(
            f"The state URL's password is not written into {adopted.config_path}: keep "
            "PLANNER_STATE set to the whole URL, or give the password with PGPASSWORD or "
            "~/.pgpass."
        )
    plan = suggested_command(
        "plan", command_args=("-c", str(adopted.config_path), *(("--env", env) if env else ()))
    )
    lines.append(f"Then `{plan}` shows no changes.")
    return lines


@dataclass
class FromTerraform:
    """What `import --from-terraform` did: the deployments of the Terraform state at
    STATE_FILE (ADDRESSES, in its order) recorded in the planner's state (ADOPTED: the
    config written, or `-c`'s when CONFIG_WRITTEN is false); the resources whose
    environment values that state holds in clear, and the attributes no field reads."""

    state_file: Path
    adopted: Adopted
    addresses: list[str]
    in_clear: list[str]
    left_out: dict[str, list[str]]
    config_written: bool = True


def from_terraform_lines(done: FromTerraform, command_args: tuple[str, ...]) -> list[str]:
    """What it did, what is left to do (COMMAND_ARGS: the plan's `-c`, `--env`...), and
    the `terraform state rm` lines that hand each deployment over."""
    adopted = done.adopted
    count = len(adopted.names)
    some = f"{count} deployment{'s' if count != 1 else ''}"
    wrote = f" and wrote {adopted.config_path}" if done.config_written else ""
    lines = [
        f"Adopted {some} of the Terraform state {done.state_file} into the state "
        f"{adopted.state_location}{wrote}: {', '.join(adopted.names)}.",
        "Nothing was changed on the control plane.",
    ]
    if adopted.variables:
        lines.append(
            "Set these environment variables (the deployments' environment) to plan: "
            + " ".join(adopted.variables)
        )
    plan = suggested_command("plan", command_args=command_args)
    if done.config_written:
        lines.append(
            f"Then `{plan}` shows no changes (or how a deployment differs from what the "
            "Terraform state declares)."
        )
    else:
        lines.append(f"Run `{plan}` to see how they differ from the config.")
    lines.append(
        "Hand them over to the planner: remove them from Terraform's state (this deletes "
        "nothing), then delete their resource blocks from the Terraform configuration:"
    )
    lines += [f"  {terraform_state_rm(address)}" for address in done.addresses]
    return lines


def from_terraform_warnings(done: FromTerraform) -> list[str]:
    """The resources whose environment values the Terraform state holds in clear (never
    the values), and the attributes left out of the config."""
    warnings = []
    if done.in_clear:
        warnings.append(
            f"the Terraform state {done.state_file} holds the environment variable values "
            f"of {', '.join(done.in_clear)} in clear: none was copied (the config reads "
            "each from the environment); treat that file as a secret, and delete its "
            "copies once Terraform no longer manages them"
        )
    why = (
        "left out of the config (no field of a deployment is named so)"
        if done.config_written
        else "not read by the planner (no field of a deployment is named so)"
    )
    warnings += [
        f"{address}: {why}: {', '.join(names)}" for address, names in done.left_out.items()
    ]
    return warnings
