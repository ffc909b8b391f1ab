"""The instructor's control (issue 26): a course's time zone, score overrides with their audit
list, per-learner extensions, what a regrade applies (versions old -> new), and single-use
sign-in links for the instructor pages.

Existing rows keep their meaning: a course without a time zone reads dates without a UTC offset
as UTC (as before), a regrade run made before has no ``versions``, and no submission has an
override.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("courses") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(length=64), nullable=True))
    with op.batch_alter_table("regrades") as batch:
        batch.add_column(sa.Column("versions", sa.JSON(), nullable=True))
    op.create_table(
        "score_overrides",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("item_id", sa.String(length=200), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("previous_score", sa.Float(), nullable=True),
        sa.Column("engine_score", sa.Float(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("author", sa.String(length=300), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_score_overrides_course_id", "score_overrides", ["course_id"])
    op.create_index("ix_score_overrides_submission_id", "score_overrides", ["submission_id"])
    op.create_table(
        "late_extensions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=False),
        sa.Column("learner_id", sa.String(length=200), nullable=False),
        sa.Column("due_at", sa.String(length=64), nullable=False),
        sa.Column("author", sa.String(length=300), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "assignment_id", "learner_id"),
    )
    op.create_index("ix_late_extensions_course_id", "late_extensions", ["course_id"])
    op.create_table(
        "instructor_sign_ins",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=True),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("expires_at", utc(), nullable=False),
        sa.Column("used_at", utc(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("instructor_sign_ins")
    op.drop_index("ix_late_extensions_course_id", table_name="late_extensions")
    op.drop_table("late_extensions")
    op.drop_index("ix_score_overrides_submission_id", table_name="score_overrides")
    op.drop_index("ix_score_overrides_course_id", table_name="score_overrides")
    op.drop_table("score_overrides")
    with op.batch_alter_table("regrades") as batch:
        batch.drop_column("versions")
    with op.batch_alter_table("courses") as batch:
        batch.drop_column("time_zone")
