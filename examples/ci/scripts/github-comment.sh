#!/usr/bin/env bash
# The sticky pull-request comment: update the comment holding this plan's marker, or
# create it. One comment per config and environment, edited on every push.
#
# Usage: github-comment.sh MARKDOWN_FILE
# Environment: GH_TOKEN, GITHUB_REPOSITORY, PR_NUMBER (the pull request).
set -euo pipefail

body="$1"
here="$(cd "$(dirname "$0")" && pwd)"
marker="$("$here/marker.sh" "$body")"

existing="$(gh api "repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments" --paginate \
  | jq -r --arg marker "$marker" '.[] | select(.body | contains($marker)) | .id' | head -n 1)"

if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" \
    -F "body=@$body" > /dev/null
  echo "Updated comment $existing ($marker)."
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments" \
    -F "body=@$body" > /dev/null
  echo "Commented on #$PR_NUMBER ($marker)."
fi
