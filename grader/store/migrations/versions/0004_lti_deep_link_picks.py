"""Deep-linking picks: the assignment picker of a deep-linking launch, single use and bound to the
launch that opened it (grader/store/lti_models.py, LtiDeepLinkPick).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_deep_link_picks",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("launch_state", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.String(length=36), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("user_sub", sa.String(length=255), nullable=False),
        sa.Column("return_url", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("browser_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("expires_at", utc(), nullable=False),
        sa.Column("used_at", utc(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lti_deep_link_picks_platform_id", "lti_deep_link_picks",
                    ["platform_id"])
    op.create_index("ix_lti_deep_link_picks_expires_at", "lti_deep_link_picks", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_lti_deep_link_picks_expires_at", table_name="lti_deep_link_picks")
    op.drop_index("ix_lti_deep_link_picks_platform_id", table_name="lti_deep_link_picks")
    op.drop_table("lti_deep_link_picks")
