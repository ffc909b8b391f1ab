"""The compiled dump of the response schemas returns exactly what marshmallow's dump returns:
same keys in the same order, same values and types, unknown keys left out."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from marshmallow import Schema, fields

from grader.api.fastdump import compile_dump, is_compiled
from grader.api.schemas import ItemResultSchema, SubmissionSchema, TestResultSchema
from tests.conftest import example, wait_final


def same(schema_cls, obj) -> None:
    expected = schema_cls().dump(obj)
    got = compile_dump(schema_cls)(obj)
    assert got == expected
    # the same JSON text: key order and int/float types included (10 is dumped as 10.0)
    assert json.dumps(got) == json.dumps(expected)


def test_the_submission_schemas_are_compiled():
    for schema in (SubmissionSchema, ItemResultSchema, TestResultSchema):
        assert is_compiled(schema), schema


def test_synthetic_submissions_dump_alike():
    now = datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=timezone.utc)
    test = {"name": "t", "score": 1, "max_score": 2, "status": "passed", "output": b"bytes",
            "visibility": "hidden", "tags": ["a", 3, None], "number": None,
            "output_format": "text", "extra_data": {"k": [1, 2]}, "unknown": "left out"}
    item = {"item_id": "sdpa", "kind": "code", "score": 1, "max_score": 10.5,
            "status": "graded", "output": "", "tests": [test, {"name": "only a name"}],
            "extra_data": None}
    views = [
        {"id": "s1", "assignment_id": "a", "assignment_version": "3", "learner_id": "l",
         "status": "graded", "content_sha256": "0" * 64, "received_at": now,
         "started_at": now + timedelta(seconds=1), "finished_at": None, "attempts": 1,
         "score": 1, "max_score": 10, "failure_reason": None, "items": [item]},
        {"id": "s2", "status": "queued", "items": []},  # most keys missing: left out
        {"id": "s3", "status": "failed", "items": None, "failure_reason": "sandbox down",
         "received_at": now.replace(tzinfo=None)},
    ]
    for view in views:
        same(SubmissionSchema, view)


def test_a_real_graded_submission_dumps_alike(client):
    resp = client.post("/api/v1/assignments/attention-basics/submissions",
                       json=example("submission_divides_by_dk.json"))
    url = resp.headers["Location"]
    data = wait_final(lambda: client.get(url).get_json())
    assert data["status"] == "graded" and data["score"] == 8.0  # scaling lost (2 of 10 points)
    from grader.api.submissions import submission_view

    app = client.application
    with app.app_context():
        submission = app.extensions["grader"].store.get(data["id"])
        view = submission_view(submission)
    same(SubmissionSchema, view)
    assert data == json.loads(json.dumps(SubmissionSchema().dump(view)))


def test_other_schemas_fall_back_to_marshmallow():
    class Renamed(Schema):
        name = fields.String(data_key="title")

    class Flag(Schema):
        on = fields.Boolean()

    for schema, obj in ((Renamed, {"name": "x"}), (Flag, {"on": 1})):
        assert not is_compiled(schema)
        same(schema, obj)
    assert compile_dump(Renamed)({"name": "x"}) == {"title": "x"}
