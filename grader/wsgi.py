"""WSGI entry point for gunicorn: ``gunicorn 'grader.wsgi:app'`` (configuration from the
environment)."""
from grader.app import create_app

app = create_app()
