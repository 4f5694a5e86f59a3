"""Options shared by several commands."""

from __future__ import annotations

import argparse


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c",
        "--config",
        default="planner.toml",
        metavar="FILE",
        help="config file, TOML or JSON (default: planner.toml)",
    )


def add_endpoint_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help="control plane URL (else PLANNER_BASE_URL, else the config, else the embedded one)",
    )


def add_format_option(parser: argparse.ArgumentParser, choices: list[str]) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")
