"""Promotion's engine: which values of `[environments.TO]` make TO's revision values FROM's,
and every case no one edit can promote, refused naming the deployment, the field and where
its value comes from; properties: idempotence, nothing else changes, layout kept."""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.api.fields import FIELD_BEHAVIOUR, ChangeClass
from planner.config.environments import Inputs, resolve_environment
from planner.config.promoted_fields import PROMOTED_KEYS
from planner.config.promotion import Promotion, SkipReason, plan_promotion
from planner.config.reader import parse_raw
from planner.config.text_edits import edited_text
from planner.errors import PromotionError
from tests.strategies import PROMOTION_ENVIRONMENTS, promotion_configs

TOML = Path("planner.toml")
IMAGE = "registry.example.com/acme/hello"
SECRET = "sk-live-promotion-do-not-print"


def run_promotion(
    text: str,
    from_env: str = "staging",
    to_env: str = "prod",
    *,
    only: tuple[str, ...] = (),
    environ: dict[str, str] | None = None,
    path: Path = TOML,
) -> tuple[Promotion, str]:
    """The promotion of TEXT (the file PATH) and the file's text with its edits made."""
    raw = parse_raw(path, text)
    promotion = plan_promotion(
        raw, from_env=from_env, to_env=to_env, only=only, environ=environ or {}, label=str(path)
    )
    return promotion, edited_text(path, text, promotion.edits)


def refusal(text: str, **kwargs: Any) -> PromotionError:
    with pytest.raises(PromotionError) as refused:
        run_promotion(text, **kwargs)
    return refused.value


def image_of(text: str, env: str, name: str = "hello") -> Any:
    resolved = resolve_environment(tomllib.loads(text), Inputs(env=env), label="t")
    return resolved["deployments"][name]["source_revision_config"]["image_uri"]


def test_the_promoted_fields_are_the_revision_fields_of_the_table() -> None:
    """What promotion copies is what the field-behaviour table says makes a new revision
    under source_revision_config (never a read-only one like repo_commit_sha)."""
    expected = {
        path.split(".", 1)[1]
        for path, change in FIELD_BEHAVIOUR.items()
        if path.startswith("source_revision_config.") and change is ChangeClass.NEW_REVISION
    }
    assert set(PROMOTED_KEYS) == expected and "repo_commit_sha" not in PROMOTED_KEYS


OVERLAYS = f"""
[deployments.hello]
source = "internal_docker"

[environments.staging.deployments.hello.source_revision_config]
image_uri = "{IMAGE}:1.4.0"

[environments.prod.deployments.hello.source_revision_config]
image_uri = "{IMAGE}:1.2.0"   # prod's pin
"""


def test_a_literal_in_the_to_overlay_is_replaced() -> None:
    """prod's own literal takes staging's value, its comment kept; the edit says where."""
    promotion, after = run_promotion(OVERLAYS)
    assert after == OVERLAYS.replace("1.2.0", "1.4.0")
    (edit,) = promotion.fields
    assert (edit.deployment, edit.field) == ("hello", "source_revision_config.image_uri")
    assert (edit.to_value, edit.from_value) == (f"{IMAGE}:1.2.0", f"{IMAGE}:1.4.0")
    assert edit.location == (
        "environments", "prod", "deployments", "hello", "source_revision_config", "image_uri"
    )  # fmt: skip


def test_an_interpolation_in_from_is_written_as_a_literal_that_means_the_same() -> None:
    """A `$${` (a literal `${`) in the value is written escaped, so prod reads the same text."""
    text = OVERLAYS.replace("1.4.0", "$${not-a-variable}")
    _, after = run_promotion(text)
    assert image_of(after, "prod") == image_of(after, "staging") == f"{IMAGE}:${{not-a-variable}}"


TAGGED = f"""
[variables.image_tag]
default = "1.0.0"

[deployments.hello]
source = "internal_docker"
source_revision_config.image_uri = "{IMAGE}:${{var.image_tag}}"

[environments.staging]
variables = {{ image_tag = "1.4.0" }}

[environments.prod]
variables = {{ image_tag = "1.2.0" }}  # last release
"""


def test_a_variable_inside_a_longer_string_gets_the_value_that_makes_it_from_s() -> None:
    """`…:${var.image_tag}`: prod's image_tag becomes staging's, in prod's own table."""
    promotion, after = run_promotion(TAGGED)
    assert after == TAGGED.replace('"1.2.0" }  # last', '"1.4.0" }  # last')
    (edit,) = promotion.fields
    assert edit.location == ("environments", "prod", "variables", "image_tag")
    assert (edit.written_before, edit.written_after, edit.added) == ("1.2.0", "1.4.0", False)


def test_a_variable_prod_takes_from_its_default_is_added_to_prod_s_values() -> None:
    """No value of its own in prod: one is added there; the default (dev's) stays."""
    text = TAGGED.replace('variables = { image_tag = "1.2.0" }  # last release\n', "")
    promotion, after = run_promotion(text)
    assert promotion.fields[0].added and promotion.fields[0].written_before is None
    assert '[environments.prod]\nvariables = { image_tag = "1.4.0" }\n' in after
    assert 'default = "1.0.0"' in after and image_of(after, "prod") == f"{IMAGE}:1.4.0"


def test_a_whole_variable_takes_from_s_value_with_its_type() -> None:
    """`"${var.build}"` inside a string keeps the variable an integer when staging's is one."""
    text = TAGGED.replace('"1.0.0"', "1").replace('"1.4.0"', "41").replace('"1.2.0"', "40")
    text = text.replace("image_tag", "build")
    promotion, after = run_promotion(text)
    assert promotion.fields[0].written_after == 41
    assert "variables = { build = 41 }  # last release" in after


def test_the_service_spelling_of_a_field_is_promoted_where_it_is_written() -> None:
    """`langgraph_config_path` is the agent-config field: edited under the file's word."""
    text = OVERLAYS.replace("image_uri", "langgraph_config_path")
    text = text.replace(f"{IMAGE}:1.4.0", "graphs/v2.json").replace(f"{IMAGE}:1.2.0", "graph.json")
    text = text.replace(
        '"internal_docker"', '"internal_docker"\nsource_revision_config.image_uri = "i:1"'
    )
    promotion, after = run_promotion(text)
    assert [edit.field for edit in promotion.fields] == [
        "source_revision_config.langgraph_config_path"
    ]
    assert 'langgraph_config_path = "graphs/v2.json"   # prod' in after


def test_promoting_twice_changes_nothing_the_second_time() -> None:
    """The promoted file promotes to no edit, and its text is left as it is."""
    for text in (OVERLAYS, TAGGED):
        _, after = run_promotion(text)
        again, unchanged = run_promotion(after)
        assert again.fields == () and unchanged == after and again.compared == ("hello",)


def test_deployments_of_one_environment_are_skipped_with_the_reason() -> None:
    """Only in staging, only in prod, another source: listed, not promoted, no error."""
    added = (
        '\n[deployments.canary]\nenvironments = ["staging"]\nsource = "internal_docker"\n'
        'source_revision_config.image_uri = "c:1"\n'
        '\n[deployments.mirror]\nenvironments = ["prod"]\nsource = "internal_docker"\n'
        'source_revision_config.image_uri = "m:1"\n'
        '\n[deployments.builder]\nsource = "internal_docker"\n'
        'source_revision_config.image_uri = "b:1"\n'
        '\n[environments.prod.deployments.builder]\nsource = "internal_source"\n'
        '\n[deployments.local]\nenvironments = ["dev"]\nsource = "internal_docker"\n'
    )
    text = TAGGED.replace("[environments.staging]", "[environments.dev]\n\n[environments.staging]")
    text += added
    promotion, _ = run_promotion(text)
    assert promotion.skipped == (
        (s := type(promotion.skipped[0]))("canary", SkipReason.ONLY_IN_FROM),
        s("mirror", SkipReason.ONLY_IN_TO),
        s("builder", SkipReason.SOURCE_DIFFERS),
    )
    assert promotion.compared == ("hello",)


def test_only_names_deployments_of_both_environments() -> None:
    """--only a name of one environment, or of no table, is an error naming it."""
    text = (
        TAGGED + '\n[deployments.canary]\nenvironments = ["staging"]\nsource = "internal_docker"\n'
    )
    one = refusal(text, only=("canary",))
    assert (one.message, one.details) == (
        "cannot promote canary from staging to prod",
        ["canary: not in prod"],
    )
    unknown = refusal(TAGGED, only=("helo",))
    assert unknown.message == "planner.toml: no deployment 'helo' (did you mean 'hello'?)"


@pytest.mark.parametrize(
    ("from_env", "to_env", "message"),
    [
        ("staging", "prd", "planner.toml: no environment 'prd' (did you mean 'prod'?)"),
        ("prod", "prod", "--from and --to are both prod: nothing to promote"),
    ],
)
def test_environments_the_config_does_not_declare_are_refused(
    from_env: str, to_env: str, message: str
) -> None:
    """An unknown environment is named with a "did you mean"; one environment twice too."""
    assert refusal(TAGGED, from_env=from_env, to_env=to_env).message == message


def test_a_config_without_environments_has_nothing_to_promote() -> None:
    """No [environments]: an error saying so, not a crash."""
    text = '[deployments.hello]\nsource = "internal_docker"\n'
    assert "has no [environments]" in refusal(text).message


SHARED = f"""
[templates.docker]
source = "internal_docker"
source_revision_config.image_uri = "{IMAGE}:1.0.0"

[deployments.hello]
template = "docker"

[environments.dev]

[environments.staging.deployments.hello.source_revision_config]
image_uri = "{IMAGE}:1.4.0"

[environments.prod]
"""


@pytest.mark.parametrize(
    ("text", "where", "readers"),
    [
        (SHARED, "templates.docker.source_revision_config.image_uri", "dev"),
        (
            SHARED.replace("[templates.docker]", "[defaults]").replace(
                'template = "docker"\n', 'source = "internal_docker"\n'
            ),
            "defaults.source_revision_config.image_uri",
            "dev",
        ),
        (
            SHARED.replace("[templates.docker]", "[deployments.hello]").replace(
                '\n[deployments.hello]\ntemplate = "docker"\n', ""
            ),
            "deployments.hello.source_revision_config.image_uri",
            "dev",
        ),
    ],
)
def test_a_literal_other_environments_read_is_refused_naming_where_it_is(
    text: str, where: str, readers: str
) -> None:
    """prod's value written in a template, [defaults] or the deployment's own table is
    shared: the error names the file, the table and key, the field, the deployment and
    who else reads it (dev; not staging, whose own value overrides it); nothing is
    edited."""
    refused = refusal(text)
    assert refused.message == (
        "cannot promote staging to prod: 1 value cannot be written by one edit of the file"
    )
    assert refused.details == [
        f"planner.toml: {where}: prod's source_revision_config.image_uri of hello is this "
        f"literal, which {readers} also read: promotion only writes under [environments.prod]"
    ]
    assert "[environments.<env>.deployments.<name>]" in (refused.hint or "")


def test_a_literal_only_to_reads_gets_an_overlay_of_to_s_own() -> None:
    """A literal of [deployments.N], a template or [defaults] that every other
    environment overrides is read by prod alone: one edit adds prod's own value in
    [environments.prod.deployments.N], and no other environment's value changes."""
    for text in (
        SHARED.replace("[environments.dev]\n", ""),
        SHARED.replace("[environments.dev]\n", "").replace(
            '[deployments.hello]\ntemplate = "docker"\n',
            '[deployments.hello]\ntemplate = "docker"\n'
            'source_revision_config.image_uri = "r.example.com/own:0.1"\n',
        ),
        SHARED.replace(
            "[environments.dev]\n",
            "[environments.dev.deployments.hello.source_revision_config]\n"
            'image_uri = "r.example.com/dev:9"\n',
        ),
    ):
        promotion, after = run_promotion(text)
        (edit,) = promotion.fields
        loc = ("environments", "prod", "deployments", "hello", "source_revision_config")
        assert edit.location == (*loc, "image_uri") and edit.added
        assert image_of(after, "prod") == image_of(text, "staging") != image_of(text, "prod")
        envs = [env for env in ("dev", "staging") if env in tomllib.loads(text)["environments"]]
        assert [image_of(after, env) for env in envs] == [image_of(text, env) for env in envs]
        assert run_promotion(after)[0].fields == ()


def test_a_value_built_from_several_variables_is_refused() -> None:
    """`${var.registry}/hello:${var.tag}`: no one variable makes it; the error names both."""
    text = TAGGED.replace(f"{IMAGE}:", "${var.registry}/hello:").replace(
        "[deployments.hello]", '[variables.registry]\ndefault = "r"\n\n[deployments.hello]'
    )
    (detail,) = refusal(text).details
    assert detail == (
        "planner.toml: deployments.hello.source_revision_config.image_uri: hello's "
        "source_revision_config.image_uri is built from several variables (registry, "
        "image_tag) in prod: promotion sets one variable's value"
    )


def test_a_value_from_that_does_not_fit_to_s_string_is_refused() -> None:
    """staging's image from another registry cannot come out of prod's `…/hello:${var.tag}`."""
    text = TAGGED + (
        "\n[environments.staging.deployments.hello.source_revision_config]\n"
        'image_uri = "other.example.com/hello:2"\n'
    )
    (detail,) = refusal(text).details
    assert "does not fit prod's 'registry.example.com/acme/hello:${var.image_tag}'" in detail
    assert "'other.example.com/hello:2'" in detail


def test_a_variable_the_environ_sets_is_refused() -> None:
    """PLANNER_VAR_image_tag wins over the file everywhere: promotion says to unset it."""
    (detail,) = refusal(TAGGED, environ={"PLANNER_VAR_image_tag": "9"}).details
    assert "PLANNER_VAR_image_tag sets in every environment: unset it" in detail


TWO = TAGGED.replace(
    "[environments.staging]",
    '[deployments.world]\nsource = "internal_docker"\n'
    'source_revision_config.image_uri = "registry.example.com/acme/world:${var.image_tag}"\n\n'
    "[environments.staging]",
)


def test_only_one_of_the_deployments_sharing_a_variable_is_refused() -> None:
    """--only hello would change world's image too: refused, naming what else changes."""
    (detail,) = refusal(TWO, only=("hello",)).details
    assert detail == (
        "planner.toml: environments.prod.variables.image_tag: setting it for hello would "
        "also change 1 value of prod that is not promoted "
        "(deployments.world.source_revision_config.image_uri): promote the deployments that "
        "share it together, or give hello a value of its own"
    )
    promotion, _ = run_promotion(TWO)
    assert [edit.deployment for edit in promotion.fields] == ["hello", "world"]


def test_a_variable_a_secret_reads_is_never_edited_and_its_value_never_shown() -> None:
    """A variable that feeds a secret too cannot be promoted: the error names the secret,
    never its value."""
    text = TAGGED.replace("1.4.0", SECRET) + (
        '\n[deployments.hello.secrets]\nTOKEN = "${var.image_tag}"\nOTHER = { env = "OTHER" }\n'
    )
    refused = refusal(text)
    (detail,) = refused.details
    assert "deployments.hello.secrets.TOKEN" in detail and "secrets are never promoted" in detail
    assert SECRET not in " ".join([refused.message, *refused.details, refused.hint or ""])


def test_secrets_of_each_environment_stay_its_own() -> None:
    """Secrets that differ between the environments are not edited by a promotion."""
    text = OVERLAYS + (
        '\n[environments.staging.deployments.hello.secrets]\nTOKEN = { env = "STAGING_TOKEN" }\n'
        '\n[environments.prod.deployments.hello.secrets]\nTOKEN = { env = "PROD_TOKEN" }\n'
        'LEVEL = "debug"\n'
    )
    promotion, after = run_promotion(text)
    assert [edit.field for edit in promotion.fields] == ["source_revision_config.image_uri"]
    assert 'TOKEN = { env = "PROD_TOKEN" }\nLEVEL = "debug"' in after


def test_two_deployments_needing_two_values_of_one_variable_are_refused() -> None:
    """staging pins world apart: hello needs image_tag 1.4.0, world 9.9: both named."""
    text = TWO + (
        "\n[environments.staging.deployments.world.source_revision_config]\n"
        'image_uri = "registry.example.com/acme/world:9.9"\n'
    )
    (detail,) = refusal(text).details
    assert detail == (
        "planner.toml: environments.prod.variables.image_tag: hello's "
        "source_revision_config.image_uri needs '1.4.0' here, world's "
        "source_revision_config.image_uri needs '9.9'"
    )


def test_a_field_from_sets_and_to_does_not_is_refused() -> None:
    """staging's table sets a field prod's does not: nothing to replace, named."""
    text = OVERLAYS.replace(':1.4.0"\n', ':1.4.0"\nsource_tarball_path = "t.tgz"\n')
    (detail,) = refusal(text).details
    assert detail == (
        "planner.toml: deployments.hello.source_revision_config.source_tarball_path: "
        "staging sets it, prod does not (nothing to replace)"
    )


def test_a_json_config_is_promoted_in_its_own_layout() -> None:
    """The same edits in a JSON file: key order and indent kept, only the value changes."""
    data = tomllib.loads(TAGGED)
    text = json.dumps(data, indent=4) + "\n"
    promotion, after = run_promotion(text, path=Path("planner.json"))
    assert [edit.location for edit in promotion.fields] == [
        ("environments", "prod", "variables", "image_tag")
    ]
    assert after == text.replace('"image_tag": "1.2.0"', '"image_tag": "1.4.0"')


# ---- properties ---------------------------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def revision_values(text: str, env: str) -> dict[str, Any]:
    resolved = resolve_environment(tomllib.loads(text), Inputs(env=env), label="t")
    return {
        name: table["source_revision_config"] for name, table in resolved["deployments"].items()
    }


def without_revisions(text: str, env: str) -> dict[str, Any]:
    resolved = resolve_environment(tomllib.loads(text), Inputs(env=env), label="t")
    for table in resolved["deployments"].values():
        table.pop("source_revision_config", None)
    return resolved


@settings(max_examples=80, deadline=None)
@given(promotion_configs(), st.permutations(PROMOTION_ENVIRONMENTS))
def test_a_promotion_makes_to_s_revision_values_from_s_and_changes_nothing_else(
    text: str, order: list[str]
) -> None:
    """TO then resolves to FROM's revision values; TO's other values and every other
    environment stay; promoting again edits nothing; the file's lines are kept but for the
    values edited (keys and comments of those lines too) and the lines added."""
    from_env, to_env, other = order
    promotion, after = run_promotion(text, from_env, to_env)
    assert revision_values(after, to_env) == revision_values(text, from_env)
    assert without_revisions(after, to_env) == without_revisions(text, to_env)
    for env in (from_env, other):
        assert resolve_environment(tomllib.loads(after), Inputs(env=env), label="t") == (
            resolve_environment(tomllib.loads(text), Inputs(env=env), label="t")
        )
    again, unchanged = run_promotion(after, from_env, to_env)
    assert again.fields == () and unchanged == after
    assert_only_values_changed(text, after)
    assert bool(promotion.fields) == (
        revision_values(text, to_env) != revision_values(text, from_env)
    )


def assert_only_values_changed(before: str, after: str) -> None:
    """Every line of BEFORE is in AFTER, in order, or replaced by one that differs only
    inside its strings or by keys added to its inline table; no line is removed."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        assert tag in ("equal", "insert", "replace"), (tag, before.splitlines()[i1:i2])
        if tag == "replace":  # lines edited, and maybe keys added among them
            new = after.splitlines()[j1:j2]
            for removed in before.splitlines()[i1:i2]:
                key = removed.split("=")[0]
                added = next(line for line in new if line.split("=")[0] == key)
                assert_same_but_values(removed, added)


def assert_same_but_values(removed: str, added: str) -> None:
    """ADDED is REMOVED with other strings in it (or keys added to its inline table): the
    key it sets and its comment are the same."""
    old_code, _, old_comment = removed.partition("#")
    new_code, _, new_comment = added.partition("#")
    assert old_comment == new_comment and old_code.split("=")[0] == new_code.split("=")[0]
    old_shape, new_shape = _STRING.sub('""', old_code), _STRING.sub('""', new_code)
    assert old_shape == new_shape or new_shape.count("=") > old_shape.count("="), (removed, added)
