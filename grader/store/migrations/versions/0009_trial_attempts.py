"""Trials of authored problems left ``running`` by a worker that died (issue 25): when a run
started and how many times, so that the sweep can queue it again or fail it after
``MAX_GRADING_ATTEMPTS`` (existing rows: never started by this schema, no attempts counted).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("problem_trials") as batch:
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("problem_trials") as batch:
        batch.drop_column("attempts")
        batch.drop_column("started_at")
