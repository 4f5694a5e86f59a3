#!/usr/bin/env bash
# The step of the planner GitHub Action (action.yml at the repository root): `plan` or
# `apply` with the action's inputs, then the sticky pull-request comment. The inputs
# arrive as environment variables (never as `${{ }}` in the script): INPUT_COMMAND,
# INPUT_CONFIG, INPUT_ENVIRONMENT, INPUT_STATE, INPUT_PLAN_DIR, INPUT_PLAN_FILE,
# INPUT_COMMENT; PR_NUMBER (empty: no comment), GH_TOKEN, GITHUB_REPOSITORY; PLANNER_BIN,
# the directory the install step put `planner` in.
#
# plan:  plan.sh into INPUT_PLAN_DIR, then github-comment.sh with its plan.md (also when
#        the plan has errors: the comment shows them). Exit: plan.sh's, else the comment's.
# apply: apply.sh INPUT_PLAN_FILE; when it leaves a new plan for review (replan.md, a
#        stale plan whose changes differ), that plan becomes the comment. Exit: apply.sh's.
# Writes `plan-file=` and `markdown-file=` (and plan.sh's `changes=`) to $GITHUB_OUTPUT.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ -n "${PLANNER_BIN:-}" ]; then
  PATH="$PLANNER_BIN:$PATH"
fi
export PLANNER_CONFIG="${INPUT_CONFIG:-planner.toml}"
export PLAN_DIR="${INPUT_PLAN_DIR:-plan-out}"
if [ -n "${INPUT_ENVIRONMENT:-}" ]; then
  export PLANNER_ENV="$INPUT_ENVIRONMENT"
fi
if [ -n "${INPUT_STATE:-}" ]; then
  export PLANNER_STATE="$INPUT_STATE" # may hold a password: never printed
fi
unset INPUT_STATE

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1=$2" >> "$GITHUB_OUTPUT"
  fi
}

# The sticky comment of a plan's markdown, when asked for and on a pull request.
comment() {
  if [ "${INPUT_COMMENT:-true}" != "true" ]; then
    return 0
  fi
  if [ -z "${PR_NUMBER:-}" ]; then
    echo "No pull request (the pull-request input is empty): no comment."
    return 0
  fi
  if ! grep -q '<!-- planner-plan: ' "$1" 2> /dev/null; then
    echo "No plan in $1 to comment with (see the errors above)." >&2
    return 0
  fi
  "$here/github-comment.sh" "$1"
}

case "${INPUT_COMMAND:-plan}" in
  plan)
    output plan-file "$PLAN_DIR/plan.json"
    output markdown-file "$PLAN_DIR/plan.md"
    status=0
    "$here/plan.sh" || status=$?
    commented=0
    comment "$PLAN_DIR/plan.md" || commented=$?
    [ "$status" -ne 0 ] && exit "$status"
    exit "$commented"
    ;;
  apply)
    planfile="${INPUT_PLAN_FILE:-$PLAN_DIR/plan.json}"
    output plan-file "$planfile"
    replan="$(dirname "$planfile")/replan.md"
    rm -f "$replan" # only a plan this apply made is posted
    status=0
    "$here/apply.sh" "$planfile" || status=$?
    if [ "$status" -ne 0 ] && [ -s "$replan" ]; then
      comment "$replan" || true
    fi
    exit "$status"
    ;;
  *)
    printf 'Unknown command %q: the action runs plan or apply.\n' "$INPUT_COMMAND" >&2
    exit 1
    ;;
esac
