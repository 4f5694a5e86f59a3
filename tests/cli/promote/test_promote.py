"""`planner promote` through the real entry point, against the embedded plane: the diff and
the plan without `--write` (nothing written), the edit with it, twice is once, `--only`,
refusals, secrets, deployments of one environment, a JSON config and the JSON output."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

from planner.cli.run.promote import write_config
from planner.errors import PromotionError
from tests.cli.conftest import SECRET_VALUE, Scenario
from tests.cli.promote.conftest import CONFIG

PROMOTED = CONFIG.replace(
    'image_tag = "1.2.0" }   # the last', 'image_tag = "1.4.0" }   # the last'
)
PLAN_HEADING = "Plan of prod with these edits:"


@pytest.fixture
def promotion(scenario: Scenario) -> Scenario:
    scenario.config_path.write_text(CONFIG, encoding="utf-8")
    return scenario


def plan_section(out: str) -> str:
    """The plan a promotion printed: the lines between its heading and the last line."""
    after = out.split(f"{PLAN_HEADING}\n", 1)[1]
    return after.rsplit("\nNothing was written.", 1)[0]


def test_without_write_it_prints_the_diff_and_the_plan_and_writes_nothing(
    promotion: Scenario,
) -> None:
    """The edit, the unified diff of the file and prod's plan with it are printed; the
    file is byte for byte what it was and no state is written."""
    result = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert result.code == 0, result.err
    assert promotion.config_path.read_text(encoding="utf-8") == CONFIG
    assert not (promotion.root / "state" / "planner.prod.state.json").exists()
    lines = result.out.splitlines()
    assert lines[:4] == [
        "Promote staging → prod in planner.toml: 1 edit for 2 values",
        '  ~ environments.prod.variables.image_tag: "1.2.0" → "1.4.0"',
        '      hello: source_revision_config.image_uri: "registry.example.com/acme/hello:1.2.0"'
        ' → "registry.example.com/acme/hello:1.4.0"',
        '      world: source_revision_config.image_uri: "registry.example.com/acme/world:1.2.0"'
        ' → "registry.example.com/acme/world:1.4.0"',
    ]
    line = CONFIG.splitlines().index('variables = { image_tag = "1.2.0" }   # the last release')
    hunk = f"@@ -{line - 2},4 +{line - 2},4 @@"  # three lines of context before, none after
    assert f"--- planner.toml\n+++ planner.toml\n{hunk}\n" in result.out
    assert '\n-variables = { image_tag = "1.2.0" }   # the last release\n' in result.out
    assert '\n+variables = { image_tag = "1.4.0" }   # the last release\n' in result.out
    assert lines[-1] == (
        "Nothing was written. To edit planner.toml: "
        "planner promote --from staging --to prod --write"
    )


def test_the_plan_shown_is_the_plan_prod_has_once_the_file_is_written(
    promotion: Scenario,
) -> None:
    """After --write, `planner plan --env prod` prints the very plan the diff showed, and
    a second promotion says there is nothing to promote (no diff, no plan)."""
    promotion.cli("apply", "--env", "prod", "--auto-approve")
    shown = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert "↻ hello will get a new revision" in plan_section(shown.out)
    written = promotion.cli("promote", "--from", "staging", "--to", "prod", "--write")
    assert written.code == 0, written.err
    assert written.out.splitlines()[-1] == (
        "Wrote planner.toml. Review and commit it; `planner plan --env prod` shows what "
        "apply will do."
    )
    assert promotion.config_path.read_text(encoding="utf-8") == PROMOTED
    assert promotion.plan("--env", "prod").out == plan_section(shown.out)
    again = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert again.code == 0
    assert again.out.splitlines() == [
        "Nothing to promote: prod already has staging's revision values (2 deployments "
        "compared); planner.toml is unchanged.",
        "Not promoted:",
        "  canary: not in prod",
    ]
    assert promotion.config_path.read_text(encoding="utf-8") == PROMOTED


def test_write_keeps_the_file_s_mode_and_writes_through_a_symlink(promotion: Scenario) -> None:
    """The file keeps its permissions; a config reached by a symlink is edited where it is
    (the link stays a link)."""
    real = promotion.root / "configs" / "fleet.toml"
    real.parent.mkdir()
    real.write_text(CONFIG, encoding="utf-8")
    real.chmod(0o640)
    link = promotion.root / "fleet.toml"
    link.symlink_to(real)
    result = promotion.cli(
        "promote", "--from", "staging", "--to", "prod", "-c", str(link), "--write"
    )
    assert result.code == 0, result.err
    assert link.is_symlink() and real.read_text(encoding="utf-8") == PROMOTED
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_only_promotes_the_deployments_named(promotion: Scenario) -> None:
    """Each image with a variable of its own: --only world edits world's alone."""
    own = CONFIG.replace("world:${var.image_tag}", "world:${var.world_tag}").replace(
        "[deployments.hello]", '[variables.world_tag]\ndefault = "0.9.0"\n\n[deployments.hello]'
    )
    own = own.replace('{ image_tag = "1.4.0" }', '{ image_tag = "1.4.0", world_tag = "0.9.1" }')
    promotion.config_path.write_text(own, encoding="utf-8")
    result = promotion.cli(
        "promote", "--from", "staging", "--to", "prod", "--only", "world", "--write"
    )
    assert result.code == 0, result.err
    assert '  + environments.prod.variables.world_tag = "0.9.1"' in result.out
    text = promotion.config_path.read_text(encoding="utf-8")
    assert 'variables = { image_tag = "1.2.0", world_tag = "0.9.1" }   # the last' in text


def test_only_one_of_two_deployments_sharing_a_tag_is_refused_and_nothing_written(
    promotion: Scenario,
) -> None:
    """hello and world share image_tag: --only hello names world's image, exit 1, the file
    untouched, nothing on stdout."""
    result = promotion.cli(
        "promote", "--from", "staging", "--to", "prod", "--only", "hello", "--write"
    )
    assert (result.code, result.out) == (1, "")
    assert "Error: cannot promote staging to prod: 1 value cannot be written" in result.err
    assert "deployments.world.source_revision_config.image_uri" in result.err
    assert "planner.toml: environments.prod.variables.image_tag: setting it for hello" in result.err
    assert promotion.config_path.read_text(encoding="utf-8") == CONFIG


def test_a_literal_prod_alone_reads_gets_its_own_value_one_dev_reads_is_refused(
    promotion: Scenario,
) -> None:
    """canary's image is a literal of [deployments.canary] that staging overrides: read
    by prod alone, --write adds prod's own value in [environments.prod.deployments.canary]
    and [deployments.canary] stays; once dev reads it too, the refusal names dev (not
    staging, which has its own value) and nothing is written."""
    text = CONFIG.replace('environments = ["staging"]\n', "").replace(
        "[environments.staging]",
        "[environments.staging.deployments.canary.source_revision_config]\n"
        'image_uri = "registry.example.com/acme/canary:1.4.0"\n\n[environments.staging]',
    )
    shared = text + "\n[environments.dev]\n"
    promotion.config_path.write_text(shared, encoding="utf-8")
    result = promotion.cli("promote", "--from", "staging", "--to", "prod", "--format", "json")
    assert result.code == 1
    error = json.loads(result.out)["error"]
    assert error["code"] == "promotion-refused"
    assert error["details"] == [
        "planner.toml: deployments.canary.source_revision_config.image_uri: prod's "
        "source_revision_config.image_uri of canary is this literal, which dev also "
        "read: promotion only writes under [environments.prod]"
    ]
    assert promotion.config_path.read_text(encoding="utf-8") == shared
    promotion.config_path.write_text(text, encoding="utf-8")
    written = promotion.cli("promote", "--from", "staging", "--to", "prod", "--write")
    assert written.code == 0, written.err
    after = tomllib.loads(promotion.config_path.read_text(encoding="utf-8"))
    own = after["environments"]["prod"]["deployments"]["canary"]["source_revision_config"]
    assert own == {"image_uri": "registry.example.com/acme/canary:1.4.0"}
    assert after["deployments"] == tomllib.loads(text)["deployments"]


def test_secrets_are_masked_in_the_diff_and_never_promoted(promotion: Scenario) -> None:
    """A literal secret on the edited line and beside it shows as (sensitive); the secret
    read from the environment is never printed; prod's secrets are not edited."""
    text = (
        CONFIG.replace(
            'variables = { image_tag = "1.2.0" }',
            f'variables = {{ image_tag = "1.2.0", log_key = "{SECRET_VALUE}" }}',
        )
        .replace(
            'API_TOKEN = { env = "API_TOKEN" }',
            'API_TOKEN = { env = "API_TOKEN" }\nLOG_KEY = "${var.log_key}"',
        )
        .replace('"1.0.0"', '"1.0.0"\n\n[variables.log_key]\ndefault = "none"')
    )
    promotion.config_path.write_text(text, encoding="utf-8")
    result = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert result.code == 0, result.err
    assert SECRET_VALUE not in result.out + result.err
    assert '+variables = { image_tag = "1.4.0", log_key = "(sensitive)" }' in result.out
    promotion.cli("promote", "--from", "staging", "--to", "prod", "--write")
    written = promotion.config_path.read_text(encoding="utf-8")
    assert f'variables = {{ image_tag = "1.4.0", log_key = "{SECRET_VALUE}" }}' in written


def test_a_json_config_keeps_its_key_order_and_indent(promotion: Scenario) -> None:
    """A JSON config is edited in place: the file is the same text with one value changed."""
    text = json.dumps(tomllib.loads(CONFIG), indent=4) + "\n"
    config = promotion.root / "planner.json"
    config.write_text(text, encoding="utf-8")
    result = promotion.cli(
        "promote", "--from", "staging", "--to", "prod", "-c", "planner.json", "--write"
    )
    assert result.code == 0, result.err
    expected = text.replace('"image_tag": "1.2.0"', '"image_tag": "1.4.0"')
    assert config.read_text(encoding="utf-8") == expected != text
    again = promotion.cli("promote", "--from", "staging", "--to", "prod", "-c", "planner.json")
    assert again.out.startswith("Nothing to promote: prod already has staging's")


def test_the_json_output_lists_each_field_with_where_it_is_written(promotion: Scenario) -> None:
    """--format json: the edits (deployment, field, both values, the location), the
    deployments not promoted, the diff and prod's plan, as one document."""
    result = promotion.cli("promote", "--from", "staging", "--to", "prod", "--format", "json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert {key: document[key] for key in ("format_version", "config", "from", "to")} == {
        "format_version": 1, "config": "planner.toml", "from": "staging", "to": "prod"
    }  # fmt: skip
    assert (document["changed"], document["written"]) == (True, False)
    assert document["compared"] == ["hello", "world"]
    assert document["skipped"] == [{"deployment": "canary", "reason": "only-in-from"}]
    hello = document["edits"][0]
    assert hello == {
        "deployment": "hello",
        "field": "source_revision_config.image_uri",
        "from_value": "registry.example.com/acme/hello:1.4.0",
        "to_value": "registry.example.com/acme/hello:1.2.0",
        "location": {
            "file": "planner.toml",
            "path": "environments.prod.variables.image_tag",
            "keys": ["environments", "prod", "variables", "image_tag"],
            "before": "1.2.0",
            "after": "1.4.0",
            "added": False,
        },
    }
    assert document["diff"].startswith("--- planner.toml\n+++ planner.toml\n@@ ")
    assert document["plan"]["environment"] == "prod"
    assert document["plan"]["summary"]["create"] == 2


def test_a_file_changed_while_promoting_is_not_overwritten(tmp_path: Path) -> None:
    """The file is written only if it still holds the text the edits were made on."""
    config = tmp_path / "planner.toml"
    config.write_text("a = 2\n", encoding="utf-8")
    with pytest.raises(PromotionError, match="changed while it was being promoted"):
        write_config(config, "a = 1\n", "a = 3\n")
    assert config.read_text(encoding="utf-8") == "a = 2\n"
    write_config(config, "a = 2\n", "a = 3\n")
    assert config.read_text(encoding="utf-8") == "a = 3\n"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_the_diff_shows_before_a_plan_that_cannot_be_made(
    promotion: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan needs what `planner plan` needs (a secret's environment variable): without
    it the edits and the diff are printed, then the plan's error, exit 1; `--write` needs
    no secret (nothing is planned)."""
    monkeypatch.delenv("API_TOKEN")
    result = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert result.code == 1
    assert "--- planner.toml" in result.out and PLAN_HEADING not in result.out
    assert "API_TOKEN" in result.err
    written = promotion.cli("promote", "--from", "staging", "--to", "prod", "--write")
    assert written.code == 0, written.err
    assert promotion.config_path.read_text(encoding="utf-8") == PROMOTED


def test_a_short_secret_is_masked_where_it_is_a_whole_string(promotion: Scenario) -> None:
    """A secret "1" in the file masks each string "1", not every digit 1 of the diff."""
    text = CONFIG + 'defaults.secrets = { DEBUG = "1" }\n'
    promotion.config_path.write_text(text, encoding="utf-8")
    result = promotion.cli("promote", "--from", "staging", "--to", "prod")
    assert result.code == 0, result.err
    assert '\n-variables = { image_tag = "1.2.0" }   # the last' in result.out
    assert '\n+variables = { image_tag = "1.4.0" }   # the last' in result.out
    assert '\n defaults.secrets = { DEBUG = "(sensitive)" }\n' in result.out
