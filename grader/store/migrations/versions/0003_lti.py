"""LTI 1.3 tool tables: tool keys, platform registrations, login states (the nonce store), grade
targets and cached access tokens (grader/store/lti_models.py).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_tool_keys",
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("public_jwk", sa.JSON(), nullable=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("retired_at", utc(), nullable=True),
        sa.PrimaryKeyConstraint("kid"),
    )
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("deployment_ids", sa.JSON(), nullable=False),
        sa.Column("auth_login_url", sa.Text(), nullable=False),
        sa.Column("auth_token_url", sa.Text(), nullable=False),
        sa.Column("key_set_url", sa.Text(), nullable=False),
        sa.Column("auth_audience", sa.Text(), nullable=True),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("learner_prefix", sa.String(length=40), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id"),
    )
    op.create_index("ix_lti_platforms_issuer", "lti_platforms", ["issuer"])
    op.create_index("ix_lti_platforms_course_id", "lti_platforms", ["course_id"])
    op.create_table(
        "lti_login_states",
        sa.Column("state", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.String(length=36), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("expires_at", utc(), nullable=False),
        sa.Column("used_at", utc(), nullable=True),
        sa.PrimaryKeyConstraint("state"),
        sa.UniqueConstraint("nonce"),
    )
    op.create_index("ix_lti_login_states_platform_id", "lti_login_states", ["platform_id"])
    op.create_index("ix_lti_login_states_expires_at", "lti_login_states", ["expires_at"])
    op.create_table(
        "lti_grade_targets",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.String(length=36), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=False),
        sa.Column("user_sub", sa.String(length=255), nullable=False),
        sa.Column("course_id", sa.String(length=64), nullable=False),
        sa.Column("assignment_id", sa.String(length=200), nullable=False),
        sa.Column("learner_id", sa.String(length=200), nullable=False),
        sa.Column("lineitem_url", sa.Text(), nullable=True),
        sa.Column("lineitems_url", sa.Text(), nullable=True),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
        sa.Column("updated_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "deployment_id", "resource_link_id", "user_sub"),
    )
    op.create_index("ix_lti_grade_targets_platform_id", "lti_grade_targets", ["platform_id"])
    op.create_index("ix_lti_grade_targets_learner", "lti_grade_targets",
                    ["course_id", "assignment_id", "learner_id"])
    op.create_table(
        "lti_access_tokens",
        sa.Column("platform_id", sa.String(length=36), nullable=False),
        sa.Column("scope", sa.String(length=500), nullable=False),
        sa.Column("token", sa.Text(), nullable=False),
        sa.Column("expires_at", utc(), nullable=False),
        sa.PrimaryKeyConstraint("platform_id", "scope"),
    )


def downgrade() -> None:
    op.drop_table("lti_access_tokens")
    op.drop_index("ix_lti_grade_targets_learner", table_name="lti_grade_targets")
    op.drop_index("ix_lti_grade_targets_platform_id", table_name="lti_grade_targets")
    op.drop_table("lti_grade_targets")
    op.drop_index("ix_lti_login_states_expires_at", table_name="lti_login_states")
    op.drop_index("ix_lti_login_states_platform_id", table_name="lti_login_states")
    op.drop_table("lti_login_states")
    op.drop_index("ix_lti_platforms_course_id", table_name="lti_platforms")
    op.drop_index("ix_lti_platforms_issuer", table_name="lti_platforms")
    op.drop_table("lti_platforms")
    op.drop_table("lti_tool_keys")
