"""Durable storage of submissions and their results (SQLAlchemy: SQLite embedded, PostgreSQL in
production)."""
from grader.store import lti_models  # noqa: F401 (the LTI tool's tables join Base.metadata)
from grader.store.db import Store
from grader.store.models import Submission

__all__ = ["Store", "Submission"]
