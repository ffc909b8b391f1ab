"""Alembic environment: always run from :func:`grader.store.migrate.upgrade` (or ``grader db``),
which hands over an open connection in ``config.attributes["connection"]`` (holding the migration
lock). Target metadata: :data:`grader.store.models.Base.metadata`, so ``grader db revision
--autogenerate`` compares the models with a database."""
from __future__ import annotations

from alembic import context

from grader.store.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER most columns
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
