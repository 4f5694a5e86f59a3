#!/usr/bin/env bash
# Apply the reviewed plan file. When it is stale (the JSON error code `stale_plan`: the
# state or a deployment moved since the review), plan again and apply the new plan only
# if its changes are exactly the reviewed ones; otherwise leave it for review and fail.
#
# Usage: apply.sh PLANFILE
# Writes beside PLANFILE: apply.ndjson (the events of `apply --format json`) and, after
# a stale plan, replan.json / replan.md (the new plan, for a comment).
# Exit: 0 applied (or nothing left to apply), 1 failed or needs a new review.
set -euo pipefail

planfile="$1"
dir="$(dirname "$planfile")"

# The changes of a plan file, as reviewers saw them (what is sent, field by field).
changes_of() {
  jq -S '[.changes[] | select(.action != "no_op") | {name, action, fields, patch}]' "$1"
}

apply_plan() {
  local status=0
  planner apply "$1" --format json > "$dir/apply.ndjson" || status=$?
  cat "$dir/apply.ndjson"
  return "$status"
}

status=0
apply_plan "$planfile" || status=$?
[ "$status" -eq 0 ] && exit 0

code="$(jq -rs '[.[] | objects | .error.code? // empty] | last // empty' "$dir/apply.ndjson" 2>/dev/null || true)"
if [ "$code" != "stale_plan" ]; then
  exit "$status"
fi

echo "The reviewed plan is stale: planning again." >&2
# The config as the reviewed plan named it (so the new plan keeps its comment marker).
args=(-c "$(jq -r '.config // .saved.config_path' "$planfile")")
state="$(jq -r '.saved.state_path' "$planfile")"
case "$state" in
  # A PostgreSQL state is recorded without its password: $PLANNER_STATE (or the config's
  # [state] url) names it with one, as when the plan was made.
  postgres://* | postgresql://*) ;;
  *) args+=(--state "$state") ;;
esac
environment="$(jq -r '.environment // empty' "$planfile")"
if [ -n "$environment" ]; then
  args+=(--env "$environment")
fi
replan=0
planner plan "${args[@]}" --out "$dir/replan.json" --detailed-exitcode --format markdown \
  > "$dir/replan.md" || replan=$?
case "$replan" in
  0) echo "Nothing left to apply: the changes were applied meanwhile." >&2; exit 0 ;;
  2) ;;
  *) echo "planning again failed (exit $replan)" >&2; exit 1 ;;
esac

if [ "$(changes_of "$planfile")" = "$(changes_of "$dir/replan.json")" ]; then
  echo "The new plan makes exactly the reviewed changes: applying it." >&2
  apply_plan "$dir/replan.json"
  exit $?
fi
echo "The changes differ from the reviewed plan: not applying unreviewed changes." >&2
echo "The new plan is in $dir/replan.md; review it and run the apply again." >&2
exit 1
