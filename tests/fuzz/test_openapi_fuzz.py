"""schemathesis against the served OpenAPI document (/api/v1/openapi.json) of an app on the embedded
default: no response is a 5xx, and every response matches the document (status code, content type,
headers, body schema). ``FUZZ_EXAMPLES`` sets the examples per operation (default 15 for CI; 200 for
a thorough run by hand)."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import (content_type_conformance, not_a_server_error,
                                 response_headers_conformance, response_schema_conformance,
                                 status_code_conformance)

from grader.app import close_app

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory):
    from grader.app import create_app
    from grader.bootstrap import KEY_FILE

    tmp = tmp_path_factory.mktemp("fuzz")
    app = create_app({
        "INSTANCE_PATH": str(tmp / "instance"),
        "DATABASE_URL": f"sqlite:///{tmp / 'grader.db'}",
        "CELERY_BROKER_URL": "",
        "GRADER_SECRET_KEY": "fuzz-secret",
        "SWEEP_INTERVAL_SECONDS": 3600,
    })
    app.config["FUZZ_KEY"] = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text() \
        .strip()
    yield app
    close_app(app)


@pytest.fixture(scope="module")
def api_schema(fuzzed_app):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", fuzzed_app)


def fuzz_operation(operation, headers: dict, statuses: Counter, known: dict | None = None
                   ) -> str | None:
    """Run hypothesis over one operation; the failure report, or ``None`` when every case passed.
    ``statuses`` counts the status codes seen. ``known`` pins path parameters to ids that exist
    (so the fuzzer reaches past the 404 of a random id into the handlers)."""

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    def run(case):
        for name in list(case.path_parameters or {}):
            if known and name in known:
                case.path_parameters[name] = known[name]
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        statuses[response.status_code] += 1

    try:
        run()
    except Exception as exc:  # schemathesis raises one error naming every failed check
        notes = "\n".join(getattr(exc, "__notes__", []))  # hypothesis: the falsifying example
        return f"{operation.label}: {type(exc).__name__}: {exc}\n{notes}"
    return None


def known_ids(app, headers: dict) -> dict[str, str]:
    """Ids that exist in the fuzzed app: the built-in assignment, the local course, a submission
    and a rubric created here."""
    client = app.test_client()
    created = client.post("/api/v1/assignments/attention-basics/submissions", headers=headers,
                          json={"learner_id": "fuzz", "responses": {"no-positions": {"choice": "B"}}})
    assert created.status_code == 202, created.get_json()
    rubric = {"id": "fuzz-rubric", "question": "Why quadratic?", "max_points": 1,
              "criteria": [{"id": "pairs", "description": "all pairs", "points": 1,
                            "concepts": ["every pair"]}]}
    assert client.post("/api/v1/rubrics", headers=headers, json=rubric).status_code == 201
    return {"assignment_id": "attention-basics", "course_id": app.config["GRADER"]["LOCAL_COURSE"],
            "submission_id": created.get_json()["id"], "rubric_id": "fuzz-rubric"}


def test_no_5xx_and_every_response_matches_the_document(api_schema, fuzzed_app):
    headers = {"Authorization": f"Bearer {fuzzed_app.config['FUZZ_KEY']}"}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    statuses: Counter = Counter()
    known = known_ids(fuzzed_app, headers)
    failures = [report for op in operations for pinned in (None, known)
                if (report := fuzz_operation(op, headers, statuses, pinned))]
    print(f"{len(operations)} operations, responses by status: {dict(sorted(statuses.items()))}")
    assert not failures, "\n\n".join(failures)
    assert len(operations) >= 10
    assert any(200 <= code < 300 for code in statuses) and any(400 <= code < 500 for code in statuses)
