#!/usr/bin/env bash
# The drift issue: update the open issue holding this config and environment's drift
# marker, or open one (label `planner-drift`); with --close (the check found no drift),
# comment on that open issue that the drift cleared and close it (nothing when none is open).
#
# Usage: github-issue.sh [--close] MARKDOWN_FILE
# Environment: GH_TOKEN, GITHUB_REPOSITORY, and GITHUB_SERVER_URL / GITHUB_RUN_ID (for a
# link to the run, when set).
set -euo pipefail

close=false
if [ "${1:-}" = "--close" ]; then
  close=true
  shift
fi
drift="$1"
here="$(cd "$(dirname "$0")" && pwd)"
marker="$("$here/marker.sh" "$drift" planner-drift)"
where="${marker#<!-- planner-drift: }"
where="${where% -->}"
run=""
if [ -n "${GITHUB_RUN_ID:-}" ]; then
  run="${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
fi

existing="$(gh api "repos/$GITHUB_REPOSITORY/issues?state=open&labels=planner-drift" --paginate \
  | jq -r --arg marker "$marker" '.[] | select((.body // "") | contains($marker)) | .number' \
  | head -n 1)"

if [ "$close" = true ]; then
  if [ -z "$existing" ]; then
    echo "No drift, no open drift issue ($where)."
    exit 0
  fi
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$existing/comments" \
    -f "body=The drift check found no drift in \`$where\` any more: closing.${run:+ Run: $run}" \
    > /dev/null
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/$existing" \
    -f state=closed -f state_reason=completed > /dev/null
  echo "Closed issue #$existing: the drift in $where cleared."
  exit 0
fi

body="$(mktemp)"
{
  echo "$marker"
  echo "The nightly drift check found changes made outside the planner in \`$where\`."
  if [ -n "$run" ]; then
    echo "Run: $run"
  fi
  echo
  cat "$drift"
} > "$body"

if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/$existing" -F "body=@$body" > /dev/null
  echo "Updated issue #$existing ($where)."
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues" -f "title=Drift in $where" \
    -F "body=@$body" -f "labels[]=planner-drift" > /dev/null
  echo "Opened an issue: drift in $where."
fi
rm -f "$body"
