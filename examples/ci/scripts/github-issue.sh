#!/usr/bin/env bash
# The drift issue: update the open issue holding this config and environment's drift
# marker, or open one (label `planner-drift`).
#
# Usage: github-issue.sh MARKDOWN_FILE
# Environment: GH_TOKEN, GITHUB_REPOSITORY, and GITHUB_SERVER_URL / GITHUB_RUN_ID (for a
# link to the run, when set).
set -euo pipefail

drift="$1"
here="$(cd "$(dirname "$0")" && pwd)"
marker="$("$here/marker.sh" "$drift" planner-drift)"
where="${marker#<!-- planner-drift: }"
where="${where% -->}"

body="$(mktemp)"
{
  echo "$marker"
  echo "The nightly drift check found changes made outside the planner in \`$where\`."
  if [ -n "${GITHUB_RUN_ID:-}" ]; then
    echo "Run: ${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
  fi
  echo
  cat "$drift"
} > "$body"

existing="$(gh api "repos/$GITHUB_REPOSITORY/issues?state=open&labels=planner-drift" --paginate \
  | jq -r --arg marker "$marker" '.[] | select((.body // "") | contains($marker)) | .number' \
  | head -n 1)"

if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/$existing" -F "body=@$body" > /dev/null
  echo "Updated issue #$existing ($where)."
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues" -f "title=Drift in $where" \
    -F "body=@$body" -f "labels[]=planner-drift" > /dev/null
  echo "Opened an issue: drift in $where."
fi
rm -f "$body"
