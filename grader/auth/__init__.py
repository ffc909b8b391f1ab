"""API keys, roles and course scoping.

Roles (from least to most within a course): ``lms`` posts submissions, reads results and exports
grades for its course; ``instructor`` does everything in its course (rubrics, assignments, regrades,
exports, submissions); ``admin`` manages courses and keys and belongs to no course.
"""
from grader.auth.keys import Principal, generate_key, hash_secret, parse_key

__all__ = ["Principal", "generate_key", "hash_secret", "parse_key"]
