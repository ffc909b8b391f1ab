"""Rubric engine for free-text explanations: a pure package (no Flask, Celery or database).

Public API::

    doc = parse_rubric(text, "yaml")          # or "json" / None to sniff
    rubric = compile_rubric(doc)              # raises RubricError(.errors = [{path, message}, ...])
    result = rubric.score("Because every token attends to every other token ...")
    result.points, result.criteria[0].evidence, result.to_dict()

    agreement(scores, human, max_points)      # Pearson r, quadratic weighted kappa, exact/within-one
    trial_report(rubric, [{"text": ..., "mark": ...}, ...])
    explain(rubric, "an answer")              # why: matches, variants, negation scopes, near misses

The rubric language is documented in :mod:`grader.rubric.schema` and ``rubrics/README.md``.
"""
from grader.rubric.agreement import TrialTooSlow, agreement, trial_report
from grader.rubric.budget import ScoringTimeout
from grader.rubric.engine import CompiledRubric, RubricScore, compile_rubric
from grader.rubric.explain import explain
from grader.rubric.files import load_marked_responses, load_rubric_file
from grader.rubric.parsing import parse_rubric
from grader.rubric.schema import RubricError

__all__ = ["CompiledRubric", "RubricError", "RubricScore", "ScoringTimeout", "TrialTooSlow", "agreement",
           "compile_rubric", "explain", "load_marked_responses", "load_rubric_file", "parse_rubric", "trial_report"]
