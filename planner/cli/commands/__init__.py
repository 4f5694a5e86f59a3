"""The arguments of each command: its parser (`register`), its frozen arguments value and
`parse(namespace)`, which checks the rules that combine flags. Light by rule: argparse, the
option helpers (`planner.cli.options`), the exit codes and the errors only, so that
`planner COMMAND --help` imports nothing of the engine (tests/test_layers.py)."""
