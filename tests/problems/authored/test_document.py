"""The problem document: what it draws, and errors that name the field."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grader.problems.authored import DocumentError, compile_document, load_document, parse
from grader.problems.authored.draw import draw_case, holds, plan
from grader.problems.draws import case_rng

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "problems"


def cosine() -> dict:
    return parse((EXAMPLES / "cosine_attention.yaml").read_text())


def errors_of(raw) -> list[tuple[str, str]]:
    with pytest.raises(DocumentError) as caught:
        load_document(raw)
    return [(e["path"], e["message"]) for e in caught.value.errors]


def test_unknown_dimension_in_a_shape_is_named_with_its_path():
    raw = cosine()
    raw["arguments"]["K"]["shape"] = ["B", "Lx", "d"]
    assert errors_of(raw) == [("arguments.K.shape[1]",
                               "unknown dimension 'Lx' (dims: B, Lq, Lk, d)")]


def test_every_fault_is_reported_at_once():
    raw = cosine()
    del raw["title"]
    raw["categories"]["values"]["cases"] = 0
    raw["mistakes"][0]["source"] = "def something_else(Q, K, V, tau):\n    return Q\n"
    found = dict(errors_of(raw))
    assert found["title"] == "Missing data for required field."
    assert found["categories.values.cases"] == "a category needs a hidden case or a visible example"
    # the semantic checks run once the fields themselves are valid
    raw["title"], raw["categories"]["values"]["cases"] = "t", 2
    assert errors_of(raw) == [("mistakes[0].source",
                               "defines no top-level function 'cosine_attention'")]


def test_reference_with_a_syntax_error_is_refused_without_running_it():
    raw = cosine()
    raw["reference"] = "def cosine_attention(Q, K, V, tau)\n    return Q\n"
    (path, message), = errors_of(raw)
    assert path == "reference" and message.startswith("SyntaxError: ")


def test_bad_condition_and_unknown_override_are_named():
    raw = cosine()
    raw["categories"]["values"]["where"] = ["Lq !== Lk"]
    raw["categories"]["unbatched"]["shapes"]["W"] = ["d"]
    found = dict(errors_of(raw))
    assert found["categories.values.where[0]"].startswith("write 'A op B'")
    assert found["categories.unbatched.shapes.W"] == "not an array argument"


def test_category_overrides_reach_the_draw():
    doc = load_document(cosine())
    unbatched = draw_case(case_rng(5, "unbatched #1"), plan(doc, "unbatched"))
    (Q, K, V, tau), _ = unbatched.calls[0]
    sizes = unbatched.data["sizes"]
    assert Q.shape == (sizes["Lq"], sizes["d"]) and K.shape == V.shape == (sizes["Lk"], sizes["d"])
    assert 0.05 <= tau <= 0.5 and isinstance(tau, float)
    sharp = draw_case(case_rng(5, "sharp #1"), plan(doc, "sharp"))
    assert 0.0005 <= sharp.calls[0][0][3] <= 0.001


def test_where_conditions_hold_on_every_draw():
    doc = load_document(cosine())
    values = plan(doc, "values")
    for seed in range(30):
        sizes = draw_case(case_rng(seed, "values #1"), values).data["sizes"]
        assert sizes["Lq"] != sizes["Lk"]
    assert holds("d % H == 0", {"d": 8, "H": 4}) and not holds("d % H == 0", {"d": 6, "H": 4})


def test_scale_override_multiplies_the_standard_normal_draw():
    doc = load_document(cosine())
    plain = draw_case(case_rng(9, "x"), plan(doc, "values")).calls[0][0][0]
    assert np.abs(plain).max() < 10  # a standard normal draw
    large = draw_case(case_rng(9, "x"), plan(doc, "large-logits")).calls[0][0][0]
    assert np.abs(large).max() > 10


def test_masks_let_every_query_attend_to_a_key():
    raw = cosine()
    raw["arguments"]["mask"] = {"mask": "padding", "shape": ["B", "Lq", "Lk"]}
    doc = load_document(raw)
    for seed in range(20):
        args = draw_case(case_rng(seed, "m"), plan(doc, "values")).calls[0][0]
        mask = args[4]
        assert mask.dtype == bool and mask.any(axis=-1).all()
        # padding: the same keys for every query of a batch element, a prefix of the keys
        assert (mask == mask[:, :1, :]).all()
        lengths = mask[:, 0, :].sum(axis=-1)
        assert (mask[:, 0, :] == (np.arange(mask.shape[-1]) < lengths[:, None])).all()


def test_compiled_cases_are_named_by_category_and_visible_examples_fixed():
    problem = compile_document(cosine())
    names = [c.name for c in problem.cases(3)]
    assert names[:2] == ["example 1", "example 2"]
    assert names.count("unbatched #1") == 1 and "values: batched, Lq != Lk #4" in names
    assert len(names) == 2 + 4 + 2 + 2 + 2 + 1
    again = compile_document(cosine())
    np.testing.assert_array_equal(problem.visible[0].calls[0][0][0],
                                  again.visible[0].calls[0][0][0])
    assert "rtol 0.0001, atol 1e-05" in problem.contract


def test_calling_the_reference_in_process_is_refused():
    problem = compile_document(cosine())
    with pytest.raises(RuntimeError, match="runs only in the sandbox"):
        problem.implementations[0](1, 2, 3, 4)
