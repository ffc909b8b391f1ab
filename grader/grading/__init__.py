"""Grading a stored submission: the worker-side step between the queue and the store."""
from grader.grading.service import GradingService, submission_seed

__all__ = ["GradingService", "submission_seed"]
