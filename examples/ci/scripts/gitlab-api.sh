#!/usr/bin/env bash
# One GitLab API call for the other gitlab-*.sh scripts (sourced): `gitlab_api METHOD PATH
# [curl arguments...]` prints the response.
# Environment: GITLAB_TOKEN (a project access token with the `api` scope: CI_JOB_TOKEN
# cannot write notes or issues), CI_API_V4_URL, CI_PROJECT_ID (set by GitLab).

gitlab_api() {
  local method="$1" path="$2"
  shift 2
  curl --fail --silent --show-error --request "$method" \
    --header "PRIVATE-TOKEN: $GITLAB_TOKEN" \
    "$CI_API_V4_URL/projects/$CI_PROJECT_ID/$path" "$@"
}
