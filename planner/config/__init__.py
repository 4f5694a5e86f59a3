"""Config: TOML/JSON files loaded into validated desired state."""
