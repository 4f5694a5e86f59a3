#!/usr/bin/env bash
# The drift issue: update the open issue holding this config and environment's drift
# marker, or open one (label `planner-drift`); with --close (the check found no drift),
# note on that open issue that the drift cleared and close it (nothing when none is open).
#
# Usage: gitlab-issue.sh [--close] MARKDOWN_FILE
# Environment: as gitlab-api.sh, and CI_PIPELINE_URL (a link to the run, when set).
set -euo pipefail

close=false
if [ "${1:-}" = "--close" ]; then
  close=true
  shift
fi
drift="$1"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gitlab-api.sh"
marker="$("$here/marker.sh" "$drift" planner-drift)"
where="${marker#<!-- planner-drift: }"
where="${where% -->}"

existing="$(gitlab_api GET "issues?state=opened&labels=planner-drift&per_page=100" \
  | jq -r --arg marker "$marker" '.[] | select((.description // "") | contains($marker)) | .iid' \
  | head -n 1)"

if [ "$close" = true ]; then
  if [ -z "$existing" ]; then
    echo "No drift, no open drift issue ($where)."
    exit 0
  fi
  pipeline="${CI_PIPELINE_URL:+ Pipeline: $CI_PIPELINE_URL}"
  gitlab_api POST "issues/$existing/notes" \
    --data-urlencode "body=The drift check found no drift in \`$where\` any more: closing.$pipeline" \
    > /dev/null
  gitlab_api PUT "issues/$existing" --data-urlencode "state_event=close" > /dev/null
  echo "Closed issue #$existing: the drift in $where cleared."
  exit 0
fi

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

if [ -n "$existing" ]; then
  gitlab_api PUT "issues/$existing" --data-urlencode "description@$body" > /dev/null
  echo "Updated issue #$existing ($where)."
else
  gitlab_api POST issues --data-urlencode "title=Drift in $where" \
    --data-urlencode "description@$body" --data-urlencode "labels=planner-drift" > /dev/null
  echo "Opened an issue: drift in $where."
fi
rm -f "$body"
