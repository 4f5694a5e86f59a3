"""MkDocs hook: pages generated at build time, so they cannot drift from the code.

- one page per command and subcommand, from `planner.cli.main.build_parser()`;
- the config reference, the saved plan reference and the apply events reference, from the
  JSON Schemas the code builds (`planner schema` writes the same ones to `schemas/`);
- the field-behaviour page, from the table the planner and the local control plane use
  (`planner.api.fields.FIELD_BEHAVIOUR`);
- the words table of the two dialects, from `planner.api.vocabulary`, put where a page
  holds the line `VOCABULARY_MARKER` (the guide "Using planner with the real service");
- the security page, from `SECURITY.md` at the repository root (which stays the source).

Nothing generated is checked in. `mkdocs.yml` names the hook (`hooks: [docs/hooks.py]`)
and holds a placeholder nav entry, `reference/commands/index.md`, that `on_config`
expands into one entry per command.
"""

from __future__ import annotations

import argparse
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COMMANDS_DIR = "reference/commands"
COMMANDS_INDEX = f"{COMMANDS_DIR}/index.md"
HELP_WIDTH = 88
MAX_INLINE_ENUM = 10
# Where the guides explain a command (paths relative to docs/); a command without an
# entry simply gets no "see also" line.
COMMAND_GUIDES = {
    "validate": "guides/config.md#validation",
    "plan": "guides/plan-and-review.md",
    "apply": "guides/apply.md",
    "destroy": "guides/apply.md",
    "import": "guides/drift-and-import.md#planner-import",
    "show": "guides/pull-requests.md#what-reviewers-see",
    "state": "reference/state.md#commands",
    "unlock": "reference/state.md#the-lock",
    "providers": "reference/control-plane-client.md#planner-providers",
    "repos": "reference/control-plane-client.md#planner-repos",
    "serve": "local-control-plane/serve.md",
    "schema": "guides/config.md",
    "reconcile": "guides/reconcile.md",
    "promote": "guides/promotion.md",
}


# ---- commands ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    from planner.cli.main import build_parser as build

    return build()


def iter_commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every (sub)command below `parser`, depth first: (words, parser, one-line help)."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            words = (*path, name)
            yield words, sub, helps.get(name, "")
            yield from iter_commands(sub, words)


def command_page_path(words: tuple[str, ...]) -> str:
    return f"{COMMANDS_DIR}/{'-'.join(words)}.md"


def fixed_width_help(parser: argparse.ArgumentParser) -> str:
    """`--help` as a user sees it, at a fixed width (independent of the terminal)."""
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=HELP_WIDTH)
    return parser.format_help()


CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)


def escape_html(text: str) -> str:
    """TEXT with `&`, `<` and `>` outside code spans escaped, so a help text's
    `<config stem>` prints as written instead of vanishing as an unknown HTML tag."""
    out, start = [], 0
    for span in CODE_SPAN.finditer(text):
        out += [html.escape(text[start : span.start()], quote=False), span.group(0)]
        start = span.end()
    return "".join([*out, html.escape(text[start:], quote=False)])


def cell(text: str) -> str:
    return escape_html(text).replace("|", "\\|").replace("\n", " ")


def option_rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = argparse.HelpFormatter(parser.prog, width=HELP_WIDTH)
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}`"
        metavar = formatter._format_args(action, action.dest.upper()) if action.nargs != 0 else ""
        help_text = formatter._expand_help(action) if action.help else ""
        if action.choices is not None and not isinstance(action.choices, dict):
            help_text += f" (one of: {', '.join(f'`{c}`' for c in action.choices)})"
        argument = f"`{metavar}`" if metavar else ""
        rows.append(f"| {names} | {cell(argument)} | {cell(help_text)} |")
    return rows


def command_page(
    words: tuple[str, ...], parser: argparse.ArgumentParser, summary: str, children: list[str]
) -> str:
    title = " ".join(("planner", *words))
    lines = [f"# `{title}`", "", escape_html(parser.description or summary), ""]
    lines += ["```text", fixed_width_help(parser).rstrip(), "```", ""]
    rows = option_rows(parser)
    if rows:
        lines += ["## Arguments and options", "", "| Name | Value | Meaning |", "|---|---|---|"]
        lines += [*rows, ""]
    if children:
        lines += ["## Subcommands", "", *children, ""]
    if words[0] in COMMAND_GUIDES:
        lines += [f"See also: [the guide](../../{COMMAND_GUIDES[words[0]]}).", ""]
    lines += [
        "_Generated from the argument parser (`planner.cli.main.build_parser()`) when the",
        "site is built. Exit codes: see the [command overview](index.md)._",
        "",
    ]
    return "\n".join(lines)


def command_pages() -> dict[str, str]:
    """Page path -> Markdown, for every command and subcommand, plus the overview."""
    parser = build_parser()
    commands = list(iter_commands(parser))
    pages: dict[str, str] = {}
    for words, sub, summary in commands:
        children = [
            f"- [`planner {' '.join(w)}`]({Path(command_page_path(w)).name}): {s}"
            for w, _, s in commands
            if len(w) == len(words) + 1 and w[: len(words)] == words
        ]
        pages[command_page_path(words)] = command_page(words, sub, summary, children)
    pages[COMMANDS_INDEX] = commands_index(parser, commands)
    return pages


def commands_index(
    parser: argparse.ArgumentParser,
    commands: list[tuple[tuple[str, ...], argparse.ArgumentParser, str]],
) -> str:
    lines = [
        "# Commands",
        "",
        "One page per command, generated from the argument parser, so it cannot drift.",
        "",
        "| Command | What it does |",
        "|---|---|",
    ]
    for words, _, summary in commands:
        link = Path(command_page_path(words)).name
        lines.append(f"| [`planner {' '.join(words)}`]({link}) | {cell(summary)} |")
    lines += [
        "",
        "## Options of every command",
        "",
        "Long options take two dashes. Terraform's one-dash spellings (`-out=p.json`,",
        "`-auto-approve`, `-var`, `-json`) are refused with one line naming the planner",
        "spelling (`did you mean --out?`, exit 1).",
        "",
        "```text",
        fixed_width_help(parser).rstrip(),
        "```",
        "",
        "## Exit codes",
        "",
        "Names and exit codes are a contract: scripts and CI rely on them.",
        "",
        "| Code | When |",
        "|---|---|",
        "| 0 | success (for `plan --detailed-exitcode`: no changes) |",
        "| 1 | an error, a usage error too (one clear line plus detail lines; no traceback "
        "unless `--debug`): the parser's usual 2 would read as changes |",
        "| 2 | `plan --detailed-exitcode` with changes |",
        "| 130 | interrupted (SIGINT, Ctrl-C) |",
        "| 143 | terminated (SIGTERM, e.g. a cancelled CI job; `apply` and `destroy` wind "
        "down first, see [Interrupts](../../guides/apply.md#interrupts)) |",
        "",
    ]
    return "\n".join(lines)


def command_nav() -> list[dict[str, str]]:
    """The nav entries that replace the placeholder: overview, then each command."""
    nav = [{"Overview": COMMANDS_INDEX}]
    for words, _, _ in iter_commands(build_parser()):
        nav.append({f"planner {' '.join(words)}": command_page_path(words)})
    return nav


# ---- JSON Schema references -------------------------------------------------------------


def anchor(name: str) -> str:
    return name.lower()


def describe_type(schema: dict[str, Any]) -> str:
    """A short Markdown rendering of a property's type."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{anchor(name)})"
    if "anyOf" in schema:
        return " or ".join(describe_type(part) for part in schema["anyOf"])
    if "oneOf" in schema:
        return " or ".join(describe_type(part) for part in schema["oneOf"])
    if "enum" in schema and len(schema["enum"]) <= MAX_INLINE_ENUM:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    if "enum" in schema:
        return f"one of {len(schema['enum'])} values (listed below)"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and "items" in schema:
        return f"list of {describe_type(schema['items'])}"
    if kind == "object" and "patternProperties" in schema:
        pattern, value = next(iter(schema["patternProperties"].items()))
        return f"table: key matching `{pattern}` → {describe_type(value)}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"table of {describe_type(schema['additionalProperties'])}"
    if kind == "object" and schema.get("additionalProperties", True) is not False:
        return "table (free-form)"
    return f"`{kind}`"


CONSTRAINTS = {
    "minimum": "≥ {}",
    "exclusiveMinimum": "> {}",
    "maximum": "≤ {}",
    "exclusiveMaximum": "< {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "pattern": "matches `{}`",
    "format": "format `{}`",
    "const": "always `{}`",
}


def describe_constraints(schema: dict[str, Any]) -> str:
    parts = [text.format(schema[key]) for key, text in CONSTRAINTS.items() if key in schema]
    if "propertyNames" in schema:
        parts += [f"keys {describe_constraints(schema['propertyNames'])}"]
    if "default" in schema:
        parts.append(f"default `{json.dumps(schema['default'])}`")
    return "; ".join(parts)


def long_enum(schema: dict[str, Any]) -> list[Any] | None:
    for candidate in (schema, schema.get("items", {})):
        if "enum" in candidate and len(candidate["enum"]) > MAX_INLINE_ENUM:
            return list(candidate["enum"])
    return None


def object_section(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"## `{name}` {{#{anchor(name)}}}", ""]
    if schema.get("description"):
        lines += [escape_html(schema["description"]), ""]
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        constraints = describe_constraints(schema)
        lines += [f"Type: {describe_type(schema)}" + (f" ({constraints})" if constraints else "")]
        return [*lines, ""]
    required = set(schema.get("required", []))
    lines += ["| Key | Type | Required | Description | Constraints |", "|---|---|---|---|---|"]
    enums = []
    for key, prop in properties.items():
        lines.append(
            f"| `{key}` | {cell(describe_type(prop))} | {'yes' if key in required else ''} "
            f"| {cell(prop.get('description', ''))} | {cell(describe_constraints(prop))} |"
        )
        values = long_enum(prop)
        if values is not None:
            enums.append((key, values))
    if schema.get("additionalProperties") is False:
        lines += ["", "Any other key is an error."]
    for key, values in enums:
        lines += ["", f'??? note "Allowed values of `{key}` ({len(values)})"', ""]
        lines += [f"    - `{value}`" for value in values]
    return [*lines, ""]


def schema_page(title: str, intro: str, schema: dict[str, Any], root_name: str) -> str:
    lines = [f"# {title}", "", intro, "", *object_section(root_name, schema)]
    for name, definition in sorted(schema.get("$defs", {}).items()):
        lines += object_section(name, definition)
    return "\n".join(lines)


def config_reference() -> str:
    from planner.config.json_schema import config_schema

    intro = (
        "Generated from the config's JSON Schema (`planner.config.json_schema.config_schema()`,"
        " the same document `planner schema` prints and `schemas/config.schema.json` holds)"
        " when the site is built. The [config guide](../guides/config.md) explains merging,"
        " secrets, lifecycle and validation."
    )
    return schema_page("Config reference", intro, config_schema(), "Config")


def plan_reference() -> str:
    from planner.plan.saved import plan_file_json_schema

    intro = (
        "Generated from the plan's JSON Schema (`planner.plan.saved.plan_file_json_schema()`,"
        " checked in as `schemas/plan.schema.json`) when the site is built. The"
        " [plan format page](plan-format.md) explains the keys and the saved plan."
    )
    return schema_page("Plan JSON Schema reference", intro, plan_file_json_schema(), "Plan")


def apply_events_reference() -> str:
    from planner.apply.events import apply_events_json_schema

    intro = (
        "Generated from the apply events' JSON Schema"
        " (`planner.apply.events.apply_events_json_schema()`, checked in as"
        " `schemas/apply-events.schema.json`) when the site is built. The"
        " [apply events page](apply-events.md) explains the stream."
    )
    schema = apply_events_json_schema()
    return schema_page("Apply events JSON Schema reference", intro, schema, "ApplyEvent")


def rollback_reference() -> str:
    from planner.apply.rollback_report import rollback_json_schema

    intro = (
        "Generated from the JSON Schema of `planner rollback --format json`"
        " (`planner.apply.rollback_report.rollback_json_schema()`, checked in as"
        " `schemas/rollback.schema.json`) when the site is built. The"
        " [rollback guide](../guides/rollback.md) explains the command."
    )
    schema = rollback_json_schema()
    return schema_page("Rollback result JSON Schema reference", intro, schema, "RollbackReport")


# ---- field behaviour ---------------------------------------------------------------------

CLASS_ORDER = ("immutable", "in-place", "new-revision", "read-only")


def field_behaviour_page() -> str:
    """The field-behaviour table, one row per entry, grouped by class."""
    from planner.api.fields import FIELD_BEHAVIOUR, REASONS, bound_leaves

    leaves = bound_leaves()
    lines = [
        "# Field behaviour",
        "",
        "How a change to each field of a deployment is applied. Generated from the table",
        "the planner and the local control plane both use (`planner.api.fields.FIELD_BEHAVIOUR`)",
        "when the site is built. The table is bound to the API's wire models: every field of",
        "the create and PATCH bodies (and of a deployment read) gets its class from exactly",
        "one row, and a row naming a table classes every key below it. A field without a",
        "class is refused when planner starts, never planned as read-only.",
        "",
        "| Field | Class | A change |",
        "|---|---|---|",
    ]
    for change_class in CLASS_ORDER:
        for path, found in FIELD_BEHAVIOUR.items():
            if found.value == change_class:
                below = " and every key below it" if path not in leaves else ""
                reason = "never planned" if change_class == "read-only" else REASONS[found]
                lines.append(f"| `{path}`{below} | {change_class} | {cell(reason)} |")
    lines += ["", "Exit codes: see the [command overview](commands/index.md#exit-codes).", ""]
    return "\n".join(lines)


# ---- the two dialects' words ------------------------------------------------------------

VOCABULARY_MARKER = "<!-- generated: the words table of planner.api.vocabulary -->"


def vocabulary_table() -> str:
    """The pairs of `planner.api.vocabulary`, one row each, by where the word appears."""
    from planner.api.vocabulary import (
        INTEGRATION_SEGMENT,
        RESOURCE_SPEC_KEYS,
        REVISION_CONFIG_KEYS,
        SOURCE_WORDS,
    )

    places = [
        ("a `source` value", SOURCE_WORDS),
        ("a key of `source_revision_config`", REVISION_CONFIG_KEYS),
        ("a key of `source_config.resource_spec`", RESOURCE_SPEC_KEYS),
    ]
    lines = ["| Where | The seed's word | The service's word |", "|---|---|---|"]
    for where, pairs in places:
        lines += [f"| {where} | `{seed}` | `{service}` |" for seed, service in pairs]
    seed, service = INTEGRATION_SEGMENT
    lines.append(
        f"| the integration routes | `/v1/integrations/{seed}/install`, "
        f"`/v1/integrations/{seed}/{{integration_id}}/repos` | "
        f"`/v1/integrations/{service}/install`, "
        f"`/v1/integrations/{service}/{{integration_id}}/repos` |"
    )
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """A page's `VOCABULARY_MARKER` line replaced by the words table."""
    if VOCABULARY_MARKER not in markdown:
        return markdown
    return markdown.replace(VOCABULARY_MARKER, vocabulary_table())


def security_page() -> str:
    """SECURITY.md as a page of the site: its links into docs/ made relative to docs/."""
    return (ROOT / "SECURITY.md").read_text(encoding="utf-8").replace("](docs/", "](")


def generated_pages() -> dict[str, str]:
    """Every generated page: path under docs/ -> Markdown."""
    return {
        **command_pages(),
        "reference/config.md": config_reference(),
        "reference/plan-schema.md": plan_reference(),
        "reference/apply-events-schema.md": apply_events_reference(),
        "reference/rollback-schema.md": rollback_reference(),
        "reference/field-behaviour.md": field_behaviour_page(),
        "security.md": security_page(),
    }


# ---- MkDocs events ----------------------------------------------------------------------


def expand_placeholder(nav: Any) -> Any:
    """Replace the value `reference/commands/index.md` in the nav with every command."""
    if isinstance(nav, list):
        return [expand_placeholder(item) for item in nav]
    if isinstance(nav, dict):
        return {
            key: command_nav() if value == COMMANDS_INDEX else expand_placeholder(value)
            for key, value in nav.items()
        }
    return nav


def on_config(config: Any) -> Any:
    config["nav"] = expand_placeholder(config["nav"])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, content in generated_pages().items():
        files.append(File.generated(config, path, content=content))
    return files
