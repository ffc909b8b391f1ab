"""LMSs under real conditions (issue 27): the line items the tool makes for links that came
without one, one per (platform, deployment, resource link, tag) whatever the number of processes
(grader/store/lti_models.py, ``LtiLineItem``), and the one-URL registration links of LTI Dynamic
Registration (``LtiRegistrationLink``).

Existing rows keep their meaning: grade targets that already have a line item keep it; a target
still without one gets it from this table on its next score.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_line_items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.String(length=36), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=False),
        sa.Column("tag", sa.String(length=255), nullable=False),
        sa.Column("lineitem_url", sa.Text(), nullable=True),
        sa.Column("claimed_at", utc(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "deployment_id", "resource_link_id", "tag"),
    )
    op.create_index("ix_lti_line_items_platform_id", "lti_line_items", ["platform_id"])
    op.create_table(
        "lti_registration_links",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("learner_prefix", sa.String(length=40), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("expires_at", utc(), nullable=False),
        sa.Column("used_at", utc(), nullable=True),
        sa.Column("platform_id", sa.String(length=36), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("lti_registration_links")
    op.drop_index("ix_lti_line_items_platform_id", table_name="lti_line_items")
    op.drop_table("lti_line_items")
