#!/usr/bin/env bash
# Print the marker of a plan's markdown (`<!-- planner-plan: <config>#<env> -->`), the key
# of its sticky comment; with a second argument, that word replaces `planner-plan`
# (`planner-drift` keys the drift issue of the same config and environment).
# Usage: marker.sh MARKDOWN_FILE [KIND]
set -euo pipefail

marker="$(grep -o -m1 '<!-- planner-plan: [^>]* -->' "$1" || true)"
if [ -z "$marker" ]; then
  echo "no planner-plan marker in $1" >&2
  exit 1
fi
echo "${marker/planner-plan/${2:-planner-plan}}"
