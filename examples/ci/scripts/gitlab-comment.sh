#!/usr/bin/env bash
# The sticky merge-request note: update the note holding this plan's marker, or create it.
#
# Usage: gitlab-comment.sh MARKDOWN_FILE
# Environment: as gitlab-api.sh, and CI_MERGE_REQUEST_IID (set in merge request pipelines).
set -euo pipefail

body="$1"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gitlab-api.sh"
marker="$("$here/marker.sh" "$body")"
notes="merge_requests/$CI_MERGE_REQUEST_IID/notes"

existing="$(gitlab_api GET "$notes?per_page=100&sort=asc" \
  | jq -r --arg marker "$marker" '.[] | select(.body | contains($marker)) | .id' | head -n 1)"

if [ -n "$existing" ]; then
  gitlab_api PUT "$notes/$existing" --data-urlencode "body@$body" > /dev/null
  echo "Updated note $existing ($marker)."
else
  gitlab_api POST "$notes" --data-urlencode "body@$body" > /dev/null
  echo "Commented on !$CI_MERGE_REQUEST_IID ($marker)."
fi
