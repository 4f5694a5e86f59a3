"""What every command resolves first: the target (config, environment, state, endpoint)."""
