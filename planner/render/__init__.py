"""planner.render: the only place that formats for people (text, markdown, JSON views of
a plan or a result, the apply's live progress, command listings, errors)."""
