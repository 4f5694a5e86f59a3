"""What a read kept that no wire model knows comes back in `with_unknown`, at any depth;
the models themselves (as a server validates a body) keep nothing unknown."""

from __future__ import annotations

import json

from planner.api.models import Deployment, ResourceSpec
from planner.api.unknown import READ_EXTRA, with_unknown
from planner.api.vocabulary import RESOURCE_SPEC_KEYS
from tests.api.api_fakes import deployment_json

SEED_CPU, SERVICE_CPU = RESOURCE_SPEC_KEYS[0]
SPEC = {
    "cpu": 1,
    "future_setting": {"mode": "fast", "levels": [1, 2]},
    "sidecars": [{"name": "proxy", "image": "envoy:1", "ports": [{"containerPort": 9901}]}],
    "volumes": [{"name": "data", "hostPath": {"path": "/data"}}],
}


def test_every_unknown_key_comes_back_at_its_depth() -> None:
    """A spec read as the client reads it dumps back whole: top-level and nested keys no
    model knows included, known ones as the models hold them."""
    spec = ResourceSpec.model_validate_json(json.dumps(SPEC), extra=READ_EXTRA)
    assert with_unknown(spec) == {**SPEC, "cpu": 1.0}


def test_a_model_validated_as_a_server_validates_keeps_nothing_unknown() -> None:
    """Without the client's `extra`, unknown keys are ignored, as the local control plane
    must (it stores only what the API has)."""
    spec = ResourceSpec.model_validate(SPEC)
    assert with_unknown(spec) == {
        "cpu": 1.0,
        "sidecars": [{"name": "proxy", "image": "envoy:1"}],
        "volumes": [{"name": "data"}],
    }


def test_the_other_spelling_of_a_known_key_is_not_sent_twice() -> None:
    """A spec holding both spellings of one field sends it once, with the field's value."""
    spec = ResourceSpec.model_validate({SEED_CPU: 1, SERVICE_CPU: 2}, extra=READ_EXTRA)
    assert with_unknown(spec) == {SEED_CPU: 1.0}


def test_a_deployment_read_keeps_its_specs_unknown_keys() -> None:
    """A whole deployment read with the client's `extra` holds the spec's unknown keys."""
    doc = deployment_json("d1")
    doc["source_config"] = {"resource_spec": SPEC}
    deployment = Deployment.model_validate_json(json.dumps(doc), extra=READ_EXTRA)
    spec = deployment.source_config.resource_spec
    assert spec is not None and with_unknown(spec)["future_setting"] == SPEC["future_setting"]
