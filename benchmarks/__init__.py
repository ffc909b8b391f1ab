"""Benchmarks of the grading service in production mode (scripts, not tests); see each module."""
