#!/usr/bin/env bash
# Download the plan reviewed in the pull request that this push merged: the artifact
# `plan-<env>` of the latest successful run of the plan workflow on the PR's head commit.
#
# Usage: github-find-plan.sh ENV_NAME
# Environment: GH_TOKEN, GITHUB_REPOSITORY, GITHUB_SHA (the merge commit),
# PLAN_WORKFLOW (default planner-plan.yml), PLAN_DIR (default plan-out).
# Writes: $PLAN_DIR/plan.json, $PLAN_DIR/pull-request (its number; also `pr=` to
# $GITHUB_OUTPUT).
# Exit: 0 with $PLAN_DIR/plan.json in place, 1 when there is no reviewed plan.
set -euo pipefail

environment="$1"
dir="${PLAN_DIR:-plan-out}"
workflow="${PLAN_WORKFLOW:-planner-plan.yml}"

pr="$(gh api "repos/$GITHUB_REPOSITORY/commits/$GITHUB_SHA/pulls" | jq -r '.[0].number // empty')"
if [ -z "$pr" ]; then
  echo "No pull request merged $GITHUB_SHA: there is no reviewed plan to apply." >&2
  exit 1
fi
head="$(gh api "repos/$GITHUB_REPOSITORY/pulls/$pr" | jq -r '.head.sha')"
run="$(gh api "repos/$GITHUB_REPOSITORY/actions/workflows/$workflow/runs?head_sha=$head&status=success" \
  | jq -r '.workflow_runs[0].id // empty')"
if [ -z "$run" ]; then
  echo "No successful plan run for #$pr (commit $head): nothing reviewed to apply." >&2
  exit 1
fi
mkdir -p "$dir"
echo "$pr" > "$dir/pull-request"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "pr=$pr" >> "$GITHUB_OUTPUT"
fi
gh run download "$run" --repo "$GITHUB_REPOSITORY" --name "plan-$environment" --dir "$dir"
echo "Downloaded the plan reviewed in #$pr (run $run) to $dir/plan.json."
