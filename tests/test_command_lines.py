"""`planner.command_lines`: the one builder of the command lines the planner suggests."""

from __future__ import annotations

import shlex

from planner.command_lines import suggested_command


def test_a_state_url_is_repeated_without_its_password() -> None:
    """A URL's password (in the user info or a `password=` parameter) is left out; the
    user, host, database and other parameters stay, so libpq finds the password itself."""
    url = "postgresql://team:s3cret@db.example.com:5432/planner?sslmode=require&password=x"
    command = suggested_command("import", "api", "ID-1", command_args=("--state", url))
    assert shlex.split(command) == [
        *("planner", "import", "--state"),
        "postgresql://team@db.example.com:5432/planner?sslmode=require",
        *("api", "ID-1"),
    ]
    assert "s3cret" not in command and "password" not in command


def test_every_word_is_shell_quoted_in_order() -> None:
    """The command's words, then the options given, then the operands, each quoted: the
    line splits back into exactly those words (a path with a space, a `?` or a `$`)."""
    args = ("-c", "my configs/planner?.toml", "--env", "prod")
    command = suggested_command("state rm", "api$1", command_args=args)
    assert shlex.split(command) == ["planner", "state", "rm", *args, "api$1"]


def test_a_url_without_a_password_is_left_as_given() -> None:
    """Only a password is taken out: a URL without one, or a word that only looks like
    one, prints as given."""
    url = "postgresql://team@db.example.com/planner?sslmode=require"
    command = suggested_command("plan", command_args=("--state", url, "-c", "a://b?c"))
    assert shlex.split(command)[2:] == ["--state", url, "-c", "a://b?c"]
