"""Descriptions of wire fields for the config's JSON Schema (editor hover text)."""

from __future__ import annotations

FIELD_DOCS: dict[str, dict[str, str]] = {
    "SourceConfig": {
        "integration_id": "git_host: id (uuid) of the repository integration (immutable)",
        "repo_url": "git_host: repository URL (immutable)",
        "deployment_type": "dev_free, dev, prod, dev_zero or dev_free_zero (not external_docker; "
        "immutable)",
        "build_on_push": "git_host: rebuild on every push (must be false for a tag ref)",
        "custom_url": "external_docker: custom URL (changes in place)",
        "resource_spec": "replicas, CPU, memory and pod settings (any change: new revision)",
        "listener_id": "external_docker: listener id, a uuid (immutable)",
        "listener_config": "external_docker: listener settings (immutable)",
        "install_command": "git_host / internal_source: install command (new revision)",
        "build_command": "git_host / internal_source: build command (new revision)",
        "template_id": "internal_template: the template to deploy (immutable)",
    },
    "SourceRevisionConfig": {
        "repo_ref": "git_host: branch, tag (refs/tags/...) or commit to build",
        "agent_config_path": "path of the agent config file (not external_docker)",
        "image_uri": "external_docker / internal_docker: image to run",
        "source_tarball_path": "internal_source: path of the source tarball",
    },
    "ListenerConfig": {"k8s_namespace": "Kubernetes namespace of the listener"},
    "SecretReference": {
        "name": "environment variable name in the deployment",
        "secret_name": "name of the Kubernetes Secret",
        "secret_key": "key inside the Kubernetes Secret",
    },
    "Lifecycle": {
        "protect": "a plan that would delete or replace this deployment fails",
        "ignore_changes": "field paths the planner leaves alone once the deployment exists",
        "create_before_destroy": "a replace creates the new deployment and waits for its "
        "revision before it deletes the old one (the remote name must change)",
    },
}

_GROUPS = {
    "queue": "queue",
    "orchestrator": "orchestrator",
    "executor": "executor",
    "cache": "cache",
    "db": "database",
}
_MEASURES = {
    "min_scale": "minimum replicas",
    "max_scale": "maximum replicas",
    "cpu": "CPU request (cores, may be fractional)",
    "cpu_limit": "CPU limit (cores, may be fractional)",
    "memory_mb": "memory request (MB)",
    "memory_limit_mb": "memory limit (MB)",
    "storage_gi": "storage (Gi)",
    "max_connections": "maximum connections",
}
_OTHER = {
    "labels": "pod labels (free-form table)",
    "annotations": "pod annotations (free-form table)",
    "service_account_name": "Kubernetes service account",
    "image_pull_secrets": "image pull secrets, each { name = ... }",
    "volumes": "pod volumes",
    "volume_mounts": "volume mounts of the main container",
    "init_containers": "init containers",
    "sidecars": "sidecar containers",
}


def resource_spec_doc(field: str) -> str | None:
    """`queue_cpu_limit` -> 'queue: CPU limit (cores, may be fractional)'."""
    if field in _OTHER:
        return _OTHER[field]
    group, _, measure = field.partition("_")
    if group in _GROUPS and measure in _MEASURES:
        return f"{_GROUPS[group]}: {_MEASURES[measure]}"
    return f"main: {_MEASURES[field]}" if field in _MEASURES else None
