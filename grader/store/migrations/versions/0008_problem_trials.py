"""Trials of authored problems on a worker (issue 25, production mode): a version's ``status``
(existing rows were stored only once their trial passed: ``passed``) and the trial runs.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("problems") as batch:
        batch.add_column(sa.Column("status", sa.String(length=16), nullable=False,
                                   server_default="passed"))
    op.create_table(
        "problem_trials",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("problem_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("mutants", sa.Boolean(), nullable=False),
        sa.Column("decides", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_problem_trials_course_id", "problem_trials", ["course_id"])


def downgrade() -> None:
    op.drop_index("ix_problem_trials_course_id", table_name="problem_trials")
    op.drop_table("problem_trials")
    with op.batch_alter_table("problems") as batch:
        batch.drop_column("status")
