"""One Alembic revision per schema change, oldest first (``0001_baseline`` is main at 2a4cd5d)."""
