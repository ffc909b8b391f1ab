"""Every item valid today is graded exactly as before (issue 21, part 1): a code item with no
``contract:``, with ``contract: {}``, or with every default written out grades every sample
submission of the catalogue with the same scores, the same test names and the same diagnoses
as the built-in problem itself."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.items import get_kind
from grader.items.base import GradingContext
from grader.items.code import problem_of
from grader.problems import PROBLEMS, samples, scoring
from grader.problems.course.options import defaults
from grader.sandbox.api import Limits


def _item(problem_id: str, contract):
    raw = {"id": "item", "kind": "code", "points": 10, "problem": problem_id}
    if contract is not _ABSENT:
        raw["contract"] = contract
    return get_kind("code").load("item", raw, Path("."))


_ABSENT = object()


def _written_out(problem_id: str) -> dict:
    problem = PROBLEMS[problem_id]
    return defaults(problem_id, problem.parameter_names, problem.function)


def _summary(result):
    return (result.score, result.output, [(t.name, t.status, t.score, t.max_score, t.tags)
                                          for t in result.tests],
            result.extra_data["diagnoses"])


@pytest.mark.parametrize("problem_id", sorted(PROBLEMS))
def test_todays_contract_in_any_spelling_is_the_built_in_problem(problem_id):
    for contract in (_ABSENT, None, {}, _written_out(problem_id)):
        item = _item(problem_id, contract)
        assert problem_of(item) is PROBLEMS[problem_id]
        assert "contract" not in item.spec
        assert get_kind("code").public_view(item)["contract"] == PROBLEMS[problem_id].contract


def test_the_defaults_written_out_name_every_option_of_the_problem():
    assert _written_out("scaled_dot_product_attention") == {
        "function": "scaled_dot_product_attention", "parameters": ["Q", "K", "V", "mask"],
        "mask": "allowed", "mask_required": False, "returns": "output", "ranks": [2, 3, 4],
        "mask_shapes": ["[Lq, Lk]", "[B, Lq, Lk]", "[B, 1, Lq, Lk]", "[B, 1, 1, Lk]"]}
    assert _written_out("multi_head_attention") == {
        "function": "multi_head_attention",
        "parameters": ["X", "W_q", "W_k", "W_v", "W_o", "num_heads", "mask"],
        "mask": "allowed", "mask_required": False, "returns": "output", "ranks": [2, 3],
        "weights": "separate", "causal": False}
    assert _written_out("positional_encoding") == {
        "function": "positional_encoding", "parameters": ["seq_len", "d_model"],
        "layout": "interleaved", "shape": "[L, d]", "padding_row": False}


@pytest.mark.parametrize("problem_id", sorted(PROBLEMS))
def test_every_sample_grades_as_before_with_the_defaults_written_out(fake_sandbox, problem_id):
    item = _item(problem_id, _written_out(problem_id))
    names = samples.names(problem_id, "correct_") + samples.names(problem_id, "bug_")
    assert names
    for name in names:
        source = samples.source(problem_id, name)
        before = scoring.grade(PROBLEMS[problem_id], "item", 10.0, source, fake_sandbox,
                               Limits(), 4)
        after = get_kind("code").grade(item, {"code": source},
                                       GradingContext(seed=4, sandbox=fake_sandbox))
        assert _summary(after) == _summary(before), name
