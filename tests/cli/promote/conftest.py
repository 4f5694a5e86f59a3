"""The config every promotion scenario starts from: two environments, two images that
share a tag, one deployment of staging only, a secret read from the environment."""

from __future__ import annotations

STAGING_TENANT = "22222222-2222-4222-8222-222222222222"
PROD_TENANT = "33333333-3333-4333-8333-333333333333"

CONFIG = f"""\
# Two environments, one image tag each.
[variables.image_tag]
default = "1.0.0"
description = "the agents' image tag"

[deployments.hello]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/hello:${{var.image_tag}}"

[deployments.hello.secrets]
API_TOKEN = {{ env = "API_TOKEN" }}

[deployments.world]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/world:${{var.image_tag}}"

[deployments.canary]               # staging only
environments = ["staging"]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/canary:edge"

[environments.staging]
control_plane = {{ tenant_id = "{STAGING_TENANT}" }}
variables = {{ image_tag = "1.4.0" }}   # what staging runs

[environments.prod]
control_plane = {{ tenant_id = "{PROD_TENANT}" }}
variables = {{ image_tag = "1.2.0" }}   # the last release
"""
