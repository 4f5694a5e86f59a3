"""`planner promote` against `planner serve --dialect service` over loopback HTTP: a config
in the service's words (`langgraph_config_path`) is promoted where it writes them, the plan
of prod is made over HTTP, and once written and applied, prod's plan is empty."""

from __future__ import annotations

import json

import pytest

from planner.api.vocabulary import Dialect
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from tests.cli.conftest import Scenario
from tests.cli.promote.conftest import PROD_TENANT, STAGING_TENANT
from tests.loopback import served

CONFIG = f"""\
[deployments.hello]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/hello:1.0.0"
source_revision_config.langgraph_config_path = "graph.json"

[environments.staging]
control_plane = {{ tenant_id = "{STAGING_TENANT}" }}

[environments.staging.deployments.hello.source_revision_config]
langgraph_config_path = "graphs/v2.json"   # the new graph, tried in staging

[environments.prod]
control_plane = {{ tenant_id = "{PROD_TENANT}" }}

[environments.prod.deployments.hello.source_revision_config]
langgraph_config_path = "graph.json"       # prod's
"""


def test_a_service_dialect_config_is_promoted_and_planned_over_http(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """prod's own `langgraph_config_path` takes staging's; the plan shown comes from the
    served plane (a new revision of the running deployment); after --write and apply,
    prod plans nothing and a second promotion has nothing to do."""
    scenario.config_path.write_text(CONFIG, encoding="utf-8")
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    settings = ServerSettings(
        db_path=scenario.root / "served.db",
        build_seconds=0.05,
        deploy_seconds=0.05,
        dialect=Dialect.SERVICE,
        api_keys={EMBEDDED_API_KEY: [STAGING_TENANT, PROD_TENANT]},
    )
    with served(settings) as url:
        remote = ("--base-url", url)
        assert scenario.cli("apply", "--env", "prod", "--auto-approve", *remote).code == 0
        result = scenario.cli(
            "promote", "--from", "staging", "--to", "prod", "--format", "json", *remote
        )
        assert result.code == 0, result.err
        assert "embedded" not in result.err
        document = json.loads(result.out)
        (edit,) = document["edits"]
        assert edit["field"] == "source_revision_config.langgraph_config_path"
        assert (edit["to_value"], edit["from_value"]) == ("graph.json", "graphs/v2.json")
        (change,) = document["plan"]["changes"]
        assert (change["name"], change["action"]) == ("hello", "new_revision")
        assert scenario.config_path.read_text(encoding="utf-8") == CONFIG
        written = scenario.cli("promote", "--from", "staging", "--to", "prod", "--write", *remote)
        assert written.code == 0, written.err
        text = scenario.config_path.read_text(encoding="utf-8")
        assert 'langgraph_config_path = "graphs/v2.json"       # prod\'s' in text
        assert scenario.cli("apply", "--env", "prod", "--auto-approve", *remote).code == 0
        after = scenario.cli("plan", "--env", "prod", "--detailed-exitcode", *remote)
        assert after.code == 0, after.out
        again = scenario.cli("promote", "--from", "staging", "--to", "prod", *remote)
        assert again.out.startswith("Nothing to promote")
