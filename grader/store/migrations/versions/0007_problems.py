"""Instructor-authored code problems (issue 25): one row per version of a course's problem, the
document as uploaded and parsed, the visible examples' values the sandbox computed at upload, and
the upload's trial report. A new table: no existing row changes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "problems",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("problem_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("expected", sa.JSON(), nullable=False),
        sa.Column("trial", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "problem_id", "version"),
    )
    op.create_index("ix_problems_course_id", "problems", ["course_id"])


def downgrade() -> None:
    op.drop_index("ix_problems_course_id", table_name="problems")
    op.drop_table("problems")
