"""Celery workers: the queue consumer side of the service (``workers.celery_app``,
``workers.tasks``)."""
