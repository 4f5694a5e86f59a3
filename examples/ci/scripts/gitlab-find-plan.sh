#!/usr/bin/env bash
# Download the plan reviewed in the merge request that this push merged: the artifacts of
# the job `plan: [<env>]` of the MR's latest successful pipeline.
#
# Usage: gitlab-find-plan.sh ENV_NAME
# Environment: as gitlab-api.sh, CI_COMMIT_SHA (set by GitLab), PLAN_DIR (default plan-out).
# Writes: $PLAN_DIR/plan.json, $PLAN_DIR/merge-request (its iid, to comment on).
# Exit: 0 with $PLAN_DIR/plan.json in place, 1 when there is no reviewed plan.
set -euo pipefail

environment="$1"
dir="${PLAN_DIR:-plan-out}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gitlab-api.sh"

mr="$(gitlab_api GET "repository/commits/$CI_COMMIT_SHA/merge_requests" | jq -r '.[0].iid // empty')"
if [ -z "$mr" ]; then
  echo "No merge request merged $CI_COMMIT_SHA: there is no reviewed plan to apply." >&2
  exit 1
fi
pipeline="$(gitlab_api GET "merge_requests/$mr/pipelines" \
  | jq -r '[.[] | select(.status == "success")][0].id // empty')"
job=""
if [ -n "$pipeline" ]; then
  job="$(gitlab_api GET "pipelines/$pipeline/jobs?scope%5B%5D=success&per_page=100" \
    | jq -r --arg name "plan: [$environment]" '.[] | select(.name == $name) | .id' | head -n 1)"
fi
if [ -z "$job" ]; then
  echo "No successful job 'plan: [$environment]' for !$mr: nothing reviewed to apply." >&2
  exit 1
fi
unpacked="$(mktemp -d)"
gitlab_api GET "jobs/$job/artifacts" --output "$unpacked/artifacts.zip"
python3 -m zipfile -e "$unpacked/artifacts.zip" "$unpacked/files"
mkdir -p "$dir"
echo "$mr" > "$dir/merge-request"
cp "$(find "$unpacked/files" -name plan.json | head -n 1)" "$dir/plan.json"
rm -rf "$unpacked"
echo "Downloaded the plan reviewed in !$mr (job $job) to $dir/plan.json."
