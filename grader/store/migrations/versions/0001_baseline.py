"""Baseline: the store's schema as ``create_all`` made it on main up to commit 2a4cd5d.

Written out here (not imported from the models) so that it stays what it was while the models
move on. A store made by that ``create_all`` is recorded at this revision without running it.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def utc() -> sa.DateTime:
    """``grader.store.models.UTCDateTime`` stores an aware UTC ``DateTime`` (naive on SQLite)."""
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "assignment_id", "version"),
    )
    op.create_index("ix_assignments_course_id", "assignments", ["course_id"])
    op.create_table(
        "courses",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("webhook_secret", sa.String(length=128), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("request_sha256", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "key"),
    )
    op.create_table(
        "regrades",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=False),
        sa.Column("dry_run", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("finished_at", utc(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_regrades_course_id", "regrades", ["course_id"])
    op.create_table(
        "rubrics",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("rubric_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "rubric_id", "version"),
    )
    op.create_index("ix_rubrics_course_id", "rubrics", ["course_id"])
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=False),
        sa.Column("assignment_version", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.String(length=200), nullable=False),
        sa.Column("responses", sa.JSON(), nullable=False),
        sa.Column("content_sha256", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("received_at", utc(), nullable=False),
        sa.Column("queued_at", utc(), nullable=False),
        sa.Column("started_at", utc(), nullable=True),
        sa.Column("finished_at", utc(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("max_score", sa.Float(), nullable=True),
        sa.Column("results", sa.JSON(), nullable=True),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        sa.Column("callback_url", sa.Text(), nullable=True),
        sa.Column("idempotency_key", sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    for column in ("assignment_id", "course_id", "learner_id", "status"):
        op.create_index(f"ix_submissions_{column}", "submissions", [column])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("next_attempt_at", utc(), nullable=False),
        sa.Column("give_up_at", utc(), nullable=False),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("delivered_at", utc(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_deliveries_course_id", "webhook_deliveries", ["course_id"])
    op.create_index("ix_webhook_deliveries_submission_id", "webhook_deliveries",
                    ["submission_id"])
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=True),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "grade_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("max_score", sa.Float(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("versions", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_grade_records_submission_id", "grade_records", ["submission_id"])


def downgrade() -> None:
    for table in ("grade_records", "api_keys", "webhook_deliveries", "submissions", "rubrics",
                  "regrades", "idempotency_keys", "courses", "assignments"):
        op.drop_table(table)
