"""The delivery log takes other channels than webhooks, and replays as rows of their own.

- ``channel`` (``webhook`` for every existing row): which sender delivers the row;
- ``replay_of``: the delivery a replay repeats (replays no longer reopen the old row);
- ``next_attempt_at`` may be empty (a delivery that is no longer pending has no next attempt).

Existing rows keep every value they had.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.add_column(sa.Column("channel", sa.String(length=32), nullable=False,
                                   server_default="webhook"))
        batch.add_column(sa.Column("replay_of", sa.String(length=36), nullable=True))
        batch.alter_column("next_attempt_at", existing_type=sa.DateTime(timezone=True),
                           nullable=True)


def downgrade() -> None:
    op.execute("UPDATE webhook_deliveries SET next_attempt_at = created_at "
               "WHERE next_attempt_at IS NULL")
    # the code before this revision would send every pending row as a webhook
    op.execute("UPDATE webhook_deliveries SET status = 'gave_up' "
               "WHERE channel <> 'webhook' AND status = 'pending'")
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.alter_column("next_attempt_at", existing_type=sa.DateTime(timezone=True),
                           nullable=False)
        batch.drop_column("replay_of")
        batch.drop_column("channel")
