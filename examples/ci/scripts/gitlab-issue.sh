#!/usr/bin/env bash
# The drift issue: update the open issue holding this config and environment's drift
# marker, or open one (label `planner-drift`).
#
# Usage: gitlab-issue.sh MARKDOWN_FILE
# Environment: as gitlab-api.sh, and CI_PIPELINE_URL (a link to the run, when set).
set -euo pipefail

drift="$1"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gitlab-api.sh"
marker="$("$here/marker.sh" "$drift" planner-drift)"
where="${marker#<!-- planner-drift: }"
where="${where% -->}"

body="$(mktemp)"
{
  echo "$marker"
  echo "The nightly drift check found changes made outside the planner in \`$where\`."
  if [ -n "${CI_PIPELINE_URL:-}" ]; then
    echo "Pipeline: $CI_PIPELINE_URL"
  fi
  echo
  cat "$drift"
} > "$body"

existing="$(gitlab_api GET "issues?state=opened&labels=planner-drift&per_page=100" \
  | jq -r --arg marker "$marker" '.[] | select((.description // "") | contains($marker)) | .iid' \
  | head -n 1)"

if [ -n "$existing" ]; then
  gitlab_api PUT "issues/$existing" --data-urlencode "description@$body" > /dev/null
  echo "Updated issue #$existing ($where)."
else
  gitlab_api POST issues --data-urlencode "title=Drift in $where" \
    --data-urlencode "description@$body" --data-urlencode "labels=planner-drift" > /dev/null
  echo "Opened an issue: drift in $where."
fi
rm -f "$body"
