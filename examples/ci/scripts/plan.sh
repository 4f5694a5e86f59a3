#!/usr/bin/env bash
# Plan one environment for review: the saved plan (the artifact apply uses) and its
# markdown (the pull-request comment and the step summary).
#
# Environment: PLANNER_CONFIG (default planner.toml), PLANNER_ENV (the environment, when
# the config has some), PLAN_DIR (default plan-out), plus the usual PLANNER_BASE_URL,
# PLANNER_API_KEY and the secrets' variables.
# Writes: $PLAN_DIR/plan.json, $PLAN_DIR/plan.md; `changes=true|false` to $GITHUB_OUTPUT.
# Exit: 0 when the plan was made (with or without changes), 1 on error (plan.md then
# holds the plan's errors when there is a plan, so the comment still tells reviewers).
set -euo pipefail

config="${PLANNER_CONFIG:-planner.toml}"
dir="${PLAN_DIR:-plan-out}"
mkdir -p "$dir"

status=0
planner plan -c "$config" --out "$dir/plan.json" --detailed-exitcode --format markdown \
  > "$dir/plan.md" || status=$?

case "$status" in
  0) changes=false ;;
  2) changes=true ;;
  *) echo "planner plan failed (exit $status)" >&2; exit 1 ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "changes=$changes" >> "$GITHUB_OUTPUT"
fi
echo "Plan saved to $dir/plan.json (changes: $changes)."
