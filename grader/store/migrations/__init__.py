"""Alembic's script directory for the store's schema (``env.py``, ``versions/``).

Run through :mod:`grader.store.migrate` (``grader db upgrade``); see that module for the rules."""
