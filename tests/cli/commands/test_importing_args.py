"""`planner import`'s arguments and the rules that combine its flags, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.importing import ImportArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlannerError


def parsed(*words: str) -> ImportArgs:
    argv = ["import", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_one_import_takes_a_name_and_an_id() -> None:
    """NAME DEPLOYMENT_ID is one import, with its lock options."""
    args = parsed("api", "dep-1", "--lock-timeout", "2")
    assert (args.name, args.deployment_id, args.adopt_all) == ("api", "dep-1", False)
    assert args.options.lock_timeout == 2.0


def test_all_takes_the_config_to_generate() -> None:
    """--all --generate-config FILE with its filters is the adopt-all form."""
    args = parsed("--all", "--generate-config", "g.toml", "--name-contains", "x", "--force")
    assert args.adopt_all and args.options.generate_config == "g.toml"
    assert (args.options.name_contains, args.options.force) == ("x", True)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (("--all", "api", "dep-1"), "give no NAME or ID"),
        (("--all",), "--all needs --generate-config"),
        (("api", "dep-1", "--force"), "--force goes with --all or --from-terraform"),
        (
            ("api", "dep-1", "--generate-config", "g.toml"),
            "--generate-config goes with --all or --from-terraform",
        ),
        (("api", "dep-1", "--name-contains", "x"), "--name-contains goes with --all$"),
        (("api",), "give NAME and DEPLOYMENT_ID"),
        ((), "give NAME and DEPLOYMENT_ID"),
    ],
)
def test_the_flags_that_do_not_go_together_are_refused(
    words: tuple[str, ...], message: str
) -> None:
    """Each mix of the two forms, or half of one, is refused with the rule it breaks."""
    with pytest.raises(PlannerError, match=message):
        parsed(*words)


def test_from_terraform_takes_a_state_and_optionally_the_config_to_generate() -> None:
    """--from-terraform STATE alone adopts into -c's config; with --generate-config FILE
    (and --force) it writes FILE; the lock options go with either."""
    alone = parsed("--from-terraform", "terraform.tfstate", "-c", "p.toml", "--lock-timeout", "3")
    assert (alone.from_terraform, alone.options.generate_config) == ("terraform.tfstate", None)
    assert (alone.workspace.config, alone.options.lock_timeout) == ("p.toml", 3.0)
    assert not alone.adopt_all and alone.name is None
    generating = parsed("--from-terraform", "s.json", "--generate-config", "g.toml", "--force")
    assert (generating.options.generate_config, generating.options.force) == ("g.toml", True)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (("--from-terraform", "s.json", "--all"), "give no --all"),
        (("--from-terraform", "s.json", "api", "dep-1"), "give no NAME and DEPLOYMENT_ID"),
        (("--from-terraform", "s.json", "api"), "give no NAME and DEPLOYMENT_ID"),
        (("--from-terraform", "s.json", "--name-contains", "x"), "goes with --all, not"),
        (("--from-terraform", "s.json", "--auto-approve"), "--auto-approve goes with --all"),
        (("--from-terraform", "s.json", "--force"), "--force replaces the --generate-config"),
        (("--from-terraform", ""), "needs the path of a Terraform state"),
    ],
)
def test_from_terraform_refuses_the_flags_of_the_other_forms(
    words: tuple[str, ...], message: str
) -> None:
    """--from-terraform is a form of its own: NAME ID, --all and the flags only --all
    takes are refused with it, and --force needs the FILE it replaces."""
    with pytest.raises(PlannerError, match=message):
        parsed(*words)
