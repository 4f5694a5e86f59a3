#!/usr/bin/env bash
# The nightly drift check: has anything changed outside the planner?
#
# Environment: PLANNER_CONFIG, PLANNER_ENV, PLAN_DIR as plan.sh.
# Writes: $PLAN_DIR/drift.md (the plan's markdown) and, when there is drift,
# $PLAN_DIR/drift-detected; `drift=true|false` to $GITHUB_OUTPUT.
# Exit: 0 checked (drift or not), 1 error.
set -euo pipefail

config="${PLANNER_CONFIG:-planner.toml}"
dir="${PLAN_DIR:-plan-out}"
mkdir -p "$dir"
rm -f "$dir/drift-detected"

status=0
planner plan -c "$config" --refresh-only --detailed-exitcode --format markdown \
  > "$dir/drift.md" || status=$?

case "$status" in
  0) drift=false ;;
  2) drift=true; touch "$dir/drift-detected" ;;
  *) echo "planner plan --refresh-only failed (exit $status)" >&2; exit 1 ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "drift=$drift" >> "$GITHUB_OUTPUT"
fi
echo "Drift: $drift."
