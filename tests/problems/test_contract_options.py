"""Contract options per code item (issue 21, part 1): a built-in problem graded in a course's own
conventions. For each option: a file written in that convention scores full, a file in today's
convention gets the convention mistake named (or the course's form sentence), and the canonical
mistakes are still named under the option."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import PROBLEMS, examples, scoring
from grader.problems.course import ContractOptionError, compile_course
from grader.problems.course.adapter import DefaultAxis
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import diagnoses

SDPA = "scaled_dot_product_attention"


def grade(problem_id, options, source, sandbox, seed=3):
    problem = compile_course(PROBLEMS[problem_id], options)
    return scoring.grade(problem, "item", 10.0, source, sandbox, Limits(), seed)


def _sdpa(mask_line: str, returns: str = "out, w", name: str = "attention",
          params: str = "q, k, v, mask=None", scale: str = " / np.sqrt(q.shape[-1])") -> str:
    return f'''import numpy as np


def {name}({params}):
    s = q @ np.swapaxes(k, -1, -2){scale}
    if mask is not None:
        {mask_line}
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    out = w @ v
    return {returns}
'''


#: Applying each mask convention correctly, and today's way (True = may attend).
APPLY = {
    "allowed": "s = np.where(mask, s, -np.inf)",
    "blocked": "s = np.where(mask, -np.inf, s)",
    "numeric-allowed": "s = s + (1 - mask) * -1e9",
    "numeric-blocked": "s = s + mask * -1e9",
    "additive": "s = s + mask",
}


# -- validation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("problem_id,options,field,reason", [
    (SDPA, {"mask": "True"}, "contract.mask", "must be one of allowed, blocked, numeric-allowed, "
                                              "numeric-blocked, additive"),
    (SDPA, {"returns": "tuple"}, "contract.returns", "must be one of output, output+weights, "
                                                     "weights+output, weights"),
    (SDPA, {"maks": "blocked"}, "contract.maks", "not an option of problem"),
    (SDPA, {"layout": "halves"}, "contract.layout", "not an option of problem"),
    (SDPA, {"ranks": [5]}, "contract.ranks", "input ranks among 2, 3, 4"),
    (SDPA, {"ranks": []}, "contract.ranks", "non-empty list"),
    (SDPA, {"ranks": [True]}, "contract.ranks", "input ranks"),
    (SDPA, {"function": "my-attention"}, "contract.function", "Python function name"),
    (SDPA, {"function": "__grader_inputs_after__"}, "contract.function", "reserved"),
    (SDPA, {"parameters": ["q", "k", "v"]}, "contract.parameters", "a list of 4 parameter names"),
    (SDPA, {"parameters": ["q", "k", "v", "class"]}, "contract.parameters[3]", "Python name"),
    (SDPA, {"parameters": ["q", "q", "v", "mask"]}, "contract.parameters", "repeat"),
    ("causal_mask", {"returns": "weights"}, "contract.returns", "not an option"),
    ("causal_mask", {"shape": [2, "n", "n"]}, "contract.shape", "must be one of [n, n], "
                                                                "[1, n, n]"),
    ("positional_encoding", {"layout": "split"}, "contract.layout", "interleaved, halves"),
    ("positional_encoding", {"padding_row": "yes"}, "contract.padding_row", "true or false"),
    ("positional_encoding", {"shape": [1, "d", "L"]}, "contract.shape", "[L, d], [1, L, d]"),
    ("softmax", {"default_axis": "last"}, "contract.default_axis", "integer axis"),
    ("softmax", {"mask": "blocked"}, "contract.mask", "not an option"),
    ("layer_norm", {"mask": "blocked"}, "contract.mask", "not an option"),
    ("layer_norm", {"ranks": [4]}, "contract.ranks", "input ranks among 1, 2, 3"),
    ("multi_head_attention", {"returns": "weights"}, "contract.returns",
     "must be one of output, output+weights, weights+output"),
    ("multi_head_attention", {"weights": "packed"}, "contract.weights",
     "separate, per-head, fused"),
])
def test_a_bad_option_names_its_field(problem_id, options, field, reason):
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS[problem_id], options)
    assert raised.value.field == field
    assert reason in raised.value.reason


def test_a_contract_that_is_not_a_mapping_is_refused():
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS[SDPA], ["mask", "blocked"])
    assert raised.value.field == "contract"


@pytest.mark.parametrize("options", [None, {}, {
    "function": SDPA, "parameters": ["Q", "K", "V", "mask"], "mask": "allowed",
    "returns": "output", "ranks": [4, 2, 3]}])
def test_todays_contract_written_out_is_the_built_in_problem_itself(options):
    assert compile_course(PROBLEMS[SDPA], options) is PROBLEMS[SDPA]


def test_the_same_options_compile_to_the_same_problem_and_draw_the_same_inputs():
    first = compile_course(PROBLEMS[SDPA], {"mask": "additive", "returns": "output+weights"})
    again = compile_course(PROBLEMS[SDPA], {"returns": "output+weights", "mask": "additive"})
    assert first is again
    canonical = PROBLEMS[SDPA].cases(11)
    for case, same in zip(first.cases(11), canonical):  # canonical cases, unchanged
        assert case.name == same.name
        for (args, _), (expected, _) in zip(case.calls, same.calls):
            assert all(np.array_equal(a, b) for a, b in zip(args, expected)
                       if isinstance(a, np.ndarray))


# -- the calls the learner's function gets -------------------------------------------------------

def test_the_course_call_renames_reorders_and_converts_the_mask():
    problem = compile_course(PROBLEMS[SDPA], {"parameters": ["mask", "q", "k", "v"],
                                              "mask": "additive"})
    Q, K, V = np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 5))
    mask = np.array([[True, False, True, True], [False, False, True, False]])
    args, kwargs = problem.course.call((Q, K, V, mask), {})
    assert kwargs == {} and args[1] is Q and args[2] is K and args[3] is V
    assert args[0].tolist() == [[0.0, -1e9, 0.0, 0.0], [-1e9, -1e9, 0.0, -1e9]]
    # no mask given: the course's signature still gets every parameter (mask=None)
    assert problem.course.call((Q, K, V), {})[0][0] is None


@pytest.mark.parametrize("convention,expected", [
    ("blocked", [[False, True], [False, False]]),
    ("numeric-allowed", [[1.0, 0.0], [1.0, 1.0]]),
    ("numeric-blocked", [[0.0, 1.0], [0.0, 0.0]]),
    ("additive", [[0.0, -1e9], [0.0, 0.0]]),
])
def test_each_mask_convention_of_the_causal_mask_of_two(convention, expected):
    problem = compile_course(PROBLEMS[SDPA], {"mask": convention})
    mask = np.tril(np.ones((2, 2), dtype=bool))
    Q = np.ones((2, 3), dtype=np.float32)
    sent = problem.course.call((Q, Q, Q, mask), {})[0][3]
    assert sent.tolist() == expected
    if convention.startswith("numeric") or convention == "additive":
        assert sent.dtype == np.float32  # the inputs' floating dtype


def test_the_visible_examples_show_the_courses_call():
    problem = compile_course(PROBLEMS[SDPA], {"function": "sdp_attention",
                                              "parameters": ["q", "k", "v", "mask"],
                                              "mask": "numeric-blocked"})
    shown = {e["name"]: e for e in examples.public_examples(problem)}
    masked = shown["example: causal mask, L=3, d_k=1"]["inputs"]
    assert set(masked) == {"q", "k", "v", "mask"}
    assert masked["mask"] == [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    assert problem.function == "sdp_attention"
    assert problem.contract.startswith("def sdp_attention(q, k, v, mask=None)\n")
    assert "1 where the key is BLOCKED" in problem.contract
    assert "def sdp_attention(q, k, v, mask=None):" in problem.starter
    assert "mask 0/1, 1 = blocked" in problem.starter


# -- grading: the mask conventions ---------------------------------------------------------------

@pytest.mark.parametrize("convention", ["blocked", "numeric-allowed", "numeric-blocked",
                                        "additive"])
def test_a_file_in_the_courses_mask_convention_scores_full(fake_sandbox, convention):
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"],
                          "mask": convention}, _sdpa(APPLY[convention]), fake_sandbox)
    assert result.score == 10.0, result.output


@pytest.mark.parametrize("convention,said", [
    ("blocked", "this course's mask uses True for BLOCKED positions"),
    ("numeric-blocked", "this course's mask uses 1 for BLOCKED positions"),
    ("additive", "this course's mask is additive"),
])
def test_todays_mask_convention_under_another_is_named(fake_sandbox, convention, said):
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"],
                          "mask": convention}, _sdpa(APPLY["allowed"]), fake_sandbox)
    assert result.score < 10.0
    assert diagnoses(result) == {"mask_inverted"}
    assert said in result.output
    masking = [t for t in result.tests if t.tags[0] == "masking"]
    assert masking and all(t.status == "failed" for t in masking)


def test_todays_code_is_right_under_a_numeric_may_attend_mask(fake_sandbox):
    """np.where reads a 0/1 float mask as its truth values: 1 = may attend is today's polarity,
    so today's code is correct there (nothing to name)."""
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"],
                          "mask": "numeric-allowed"}, _sdpa(APPLY["allowed"]), fake_sandbox)
    assert result.score == 10.0


def test_an_additive_course_mask_under_todays_boolean_contract_is_named(fake_sandbox):
    """The converse: the item keeps today's boolean mask and the learner adds it."""
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"]},
                   _sdpa(APPLY["additive"]), fake_sandbox)
    assert diagnoses(result) == {"mask_added_as_float"}


def test_canonical_mistakes_are_named_under_the_options(fake_sandbox):
    """No sqrt(d_k) under mask=additive and returns=output+weights."""
    options = {"function": "attention", "parameters": ["q", "k", "v", "mask"],
               "mask": "additive", "returns": "output+weights"}
    result = grade(SDPA, options, _sdpa(APPLY["additive"], scale=""), fake_sandbox)
    assert diagnoses(result) == {"no_scaling"}
    assert result.score == 8.0  # the scaling category (weight 2 of 10) is lost, no more
    message = next(v.message for v in compile_course(PROBLEMS[SDPA], options).variants
                   if v.tag == "no_scaling")
    assert "divide q k^T by sqrt(d_k)" in message and message in result.output


def test_the_messages_use_the_courses_names(fake_sandbox):
    options = {"function": "attention", "parameters": ["query", "key", "value", "attn_mask"]}
    problem = compile_course(PROBLEMS[SDPA], options)
    message = next(v.message for v in problem.variants if v.tag == "k_transpose_all_axes")
    assert message.startswith("key.T reverses every axis of a batched array")
    assert "np.swapaxes(key, -1, -2)" in message
    fill = next(v.message for v in problem.variants if v.tag == "mask_fill_zero")
    assert "np.where(attn_mask, scores, -np.inf)" in fill


# -- grading: the returns ------------------------------------------------------------------------

@pytest.mark.parametrize("returns,line", [
    ("output+weights", "out, w"),
    ("weights+output", "w, out"),
    ("weights", "w"),
])
def test_a_file_returning_the_courses_form_scores_full(fake_sandbox, returns, line):
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"],
                          "returns": returns}, _sdpa(APPLY["allowed"], line), fake_sandbox)
    assert result.score == 10.0, result.output


def test_returning_output_weights_where_the_course_returns_weights_output_is_named(fake_sandbox):
    result = grade(SDPA, {"function": "attention", "parameters": ["q", "k", "v", "mask"],
                          "returns": "weights+output"}, _sdpa(APPLY["allowed"], "out, w"),
                   fake_sandbox)
    assert result.score < 10.0
    assert diagnoses(result) == {"returns_weights_first"}
    assert "You return (output, weights): this course's function returns (weights, output)" \
        in result.output


@pytest.mark.parametrize("returns,line,tag", [
    ("output+weights", "out", "contract_returns_one_array"),
    ("weights+output", "out", "contract_returns_one_array"),
    ("output+weights", "out, w, s", "contract_returns_tuple_length"),
    ("weights", "out", "contract_returns_not_weights"),
    ("weights", "out, w", "contract_returns_not_weights"),
])
def test_a_return_without_the_courses_form_is_named_not_a_crash(fake_sandbox, returns, line,
                                                                  tag):
    source = _sdpa(APPLY["allowed"], line)
    result = grade(SDPA, {"returns": returns}, source.replace("def attention", "def "
                                                              "scaled_dot_product_attention"),
                   fake_sandbox)
    assert result.status == "graded"
    assert tag in diagnoses(result)
    assert result.score < 10.0


def test_default_returns_still_accept_a_pair(fake_sandbox):
    """``returns: output`` is today's contract: (output, weights) is accepted, as today."""
    source = _sdpa(APPLY["allowed"], "out, w", name=SDPA, params="Q, K, V, mask=None") \
        .replace("q @", "Q @").replace("(k,", "(K,").replace("q.shape", "Q.shape") \
        .replace("w @ v", "w @ V")
    result = grade(SDPA, {"returns": "output"}, source, fake_sandbox)
    assert result.score == 10.0, result.output


# -- ranks ---------------------------------------------------------------------------------------

def test_ranks_keep_only_those_inputs_and_the_points(fake_sandbox):
    problem = compile_course(PROBLEMS[SDPA], {"ranks": [3]})
    cases = problem.cases(5)
    assert cases and all(c.calls[0][0][0].ndim == 3 for c in cases)
    assert any(c.visible for c in cases)
    # code written for (B, L, d) only: full marks on a (B, L, d) course
    source = '''import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    B = Q.shape[0]
    outs = []
    for b in range(B):
        s = Q[b] @ K[b].T / np.sqrt(Q.shape[-1])
        if mask is not None:
            m = mask[b] if mask.ndim == 3 else mask
            s = np.where(m, s, -np.inf)
        s = s - s.max(axis=-1, keepdims=True)
        w = np.exp(s)
        outs.append((w / w.sum(axis=-1, keepdims=True)) @ V[b])
    return np.stack(outs)
'''
    result = scoring.grade(problem, "item", 10.0, source, fake_sandbox, Limits(), 5)
    assert result.score == 10.0, result.output
    assert round(sum(t.max_score for t in result.tests), 6) == 10.0
    unbatched = compile_course(PROBLEMS[SDPA], {"ranks": [2]}).cases(5)
    assert unbatched and all(c.calls[0][0][0].ndim == 2 for c in unbatched)


# -- the causal mask -----------------------------------------------------------------------------

CAUSAL = {
    "allowed": "np.tril(np.ones((n, n), dtype=bool))",
    "blocked": "np.triu(np.ones((n, n), dtype=bool), k=1)",
    "numeric-allowed": "np.tril(np.ones((n, n)))",
    "numeric-blocked": "1 - np.tril(np.ones((n, n)))",
    "additive": "(1 - np.tri(n)) * -1e10",
}


def _causal(expression: str, name: str = "causal_mask", param: str = "n") -> str:
    return (f"import numpy as np\n\n\ndef {name}({param}):\n    n = {param}\n"
            f"    return {expression}\n")


@pytest.mark.parametrize("convention", sorted(CAUSAL))
def test_a_causal_mask_in_the_courses_convention_scores_full(fake_sandbox, convention):
    result = grade("causal_mask", {"mask": convention}, _causal(CAUSAL[convention]),
                   fake_sandbox)
    assert result.score == 10.0, result.output


def test_a_minus_inf_additive_causal_mask_scores_full_too(fake_sandbox):
    source = _causal("np.where(np.tri(n, dtype=bool), 0.0, -np.inf)")
    assert grade("causal_mask", {"mask": "additive"}, source, fake_sandbox).score == 10.0


@pytest.mark.parametrize("convention,tag,said", [
    ("blocked", "mask_inverted", "this course's mask uses True for BLOCKED positions"),
    ("numeric-blocked", "mask_inverted", "this course's mask uses 1 for BLOCKED positions"),
    ("additive", "additive_mask", "instead of this course's additive float mask"),
])
def test_todays_causal_mask_under_another_convention_is_named(fake_sandbox, convention, tag,
                                                              said):
    result = grade("causal_mask", {"mask": convention}, _causal(CAUSAL["allowed"]),
                   fake_sandbox)
    assert diagnoses(result) == {tag}
    assert said in result.output
    assert result.score == 1.5  # the shape tests only


def test_a_boolean_mask_for_a_numeric_course_loses_the_dtype_test_only(fake_sandbox):
    result = grade("causal_mask", {"mask": "numeric-allowed"}, _causal(CAUSAL["allowed"]),
                   fake_sandbox)
    failed = [t for t in result.tests if t.status == "failed"]
    # the test's name says the course's dtype (its case's own name, which seeds the draw, is
    # today's "dtypes: the mask is boolean")
    assert [t.name for t in failed] == ["dtypes: the mask is 0/1 numbers with 1 = may attend"]
    assert "this course's mask is a float (or int) array of zeros and ones" in failed[0].output
    assert result.score == 9.0


def test_an_annotated_transformer_subsequent_mask(fake_sandbox):
    options = {"function": "subsequent_mask", "parameters": ["size"], "shape": [1, "n", "n"]}
    source = ("import numpy as np\n\n\ndef subsequent_mask(size):\n"
              "    attn_shape = (1, size, size)\n"
              "    return np.triu(np.ones(attn_shape), k=1).astype('uint8') == 0\n")
    assert grade("causal_mask", options, source, fake_sandbox).score == 10.0
    flat = source.replace("(1, size, size)", "(size, size)")
    result = grade("causal_mask", options, flat, fake_sandbox)
    assert result.score == 0 and diagnoses(result) == {"contract_mask_shape"}
    problem = compile_course(PROBLEMS["causal_mask"], options)
    shown = examples.public_examples(problem)[0]
    assert shown["inputs"] == {"size": 3}
    assert np.shape(shown["expected_output"]) == (1, 3, 3)


# -- a form error does not hide the value's own mistakes -----------------------------------------

SUBSEQUENT = {"function": "subsequent_mask", "parameters": ["size"], "shape": [1, "n", "n"]}


def _tags(test) -> list[str]:
    return [tag.split(":", 1)[1] for tag in test.tags if tag.startswith("diagnosis:")]


@pytest.mark.parametrize("options,expression,value_mistake", [
    # the example: no leading axis AND 1 = blocked (the Annotated Transformer's triu
    # before its "== 0"): read as the (n, n) mask it is, it is today's inverted mask
    (SUBSEQUENT, "np.triu(np.ones((size, size)), k=1).astype('uint8')", "mask_inverted"),
    # a blocked course's mask without the axis, in today's polarity: inverted for the course
    ({**SUBSEQUENT, "mask": "blocked"}, "np.tril(np.ones((size, size), dtype=bool))",
     "mask_inverted"),
    # the strictly-lower triangle (the diagonal blocked too): today's diagonal mistake
    (SUBSEQUENT, "np.tril(np.ones((size, size), dtype=bool), k=-1)", "diagonal_masked"),
    # only the axis is missing: nothing else to name
    (SUBSEQUENT, "np.tril(np.ones((size, size), dtype=bool))", None),
])
def test_a_mask_without_the_leading_axis_names_its_value_mistakes_too(
        fake_sandbox, options, expression, value_mistake):
    source = f"import numpy as np\n\n\ndef subsequent_mask(size):\n    return {expression}\n"
    result = grade("causal_mask", options, source, fake_sandbox)
    # every call lacks the axis: every test fails on the form, with the form's own message
    assert result.score == 0
    assert all(t.status == "failed" and "leading axis of length one" in t.output
               for t in result.tests)
    # the form first, then the mistake of the value read as (n, n), on every test (each size,
    # 1 included, shows it: the (1, 1) mask is [[False]] for all three value mistakes)
    expected = [["contract_mask_shape"] + ([value_mistake] if value_mistake else [])]
    assert [_tags(t) for t in result.tests] == expected * len(result.tests)


# -- the positional encoding ---------------------------------------------------------------------

def _encoding(layout: str, leading: bool, padding: bool, name="positional_encoding",
              params=("seq_len", "d_model")) -> str:
    L, d = params
    body = (f"    pos = np.arange({L})[:, None]\n    i = np.arange(0, {d}, 2)\n"
            f"    angle = pos / 10000 ** (i / {d})\n")
    if layout == "halves":
        body += f"    pe = np.concatenate([np.sin(angle), np.cos(angle[:, :{d} // 2])], axis=-1)\n"
    else:
        body += (f"    pe = np.zeros(({L}, {d}))\n    pe[:, 0::2] = np.sin(angle)\n"
                 f"    pe[:, 1::2] = np.cos(angle[:, :{d} // 2])\n")
    if padding:
        body += "    pe[0] = 0.0\n"
    return (f"import numpy as np\n\n\ndef {name}({L}, {d}):\n{body}"
            f"    return {'pe[None]' if leading else 'pe'}\n")


@pytest.mark.parametrize("layout,shape,padding", [
    ("halves", "[L, d]", False), ("halves", "[1, L, d]", False),
    ("interleaved", "[1, L, d]", False), ("interleaved", "[L, d]", True),
    ("halves", "[1, L, d]", True),
])
def test_an_encoding_in_the_courses_form_scores_full(fake_sandbox, layout, shape, padding):
    options = {"layout": layout, "shape": shape, "padding_row": padding}
    source = _encoding(layout, shape == "[1, L, d]", padding)
    assert grade("positional_encoding", options, source, fake_sandbox).score == 10.0


@pytest.mark.parametrize("options,tag", [
    ({"layout": "halves"}, "contract_encoding_interleaved"),
    ({"shape": "[1, L, d]"}, "contract_encoding_shape"),
    ({"padding_row": True}, "contract_padding_row"),
])
def test_todays_encoding_under_another_form_is_named(fake_sandbox, options, tag):
    result = grade("positional_encoding", options, _encoding("interleaved", False, False),
                   fake_sandbox)
    assert diagnoses(result) == {tag} and result.score == 0


def test_halves_under_todays_interleaved_contract_is_still_named(fake_sandbox):
    result = grade("positional_encoding", {"parameters": ["max_seq_len", "dm"]},
                   _encoding("halves", False, False, params=("max_seq_len", "dm")),
                   fake_sandbox)
    assert diagnoses(result) == {"halves_concatenated"}


def test_the_padding_row_encoding_as_the_course_shows_it():
    problem = compile_course(PROBLEMS["positional_encoding"],
                             {"layout": "halves", "padding_row": True})
    shown = examples.public_examples(problem)[0]  # positional_encoding(3, 4)
    expected = np.asarray(shown["expected_output"])
    assert expected[0].tolist() == [0.0, 0.0, 0.0, 0.0]
    # row 1 is position 1: sines of 1 and 1/100 first, then their cosines
    assert np.allclose(expected[1], [np.sin(1), np.sin(0.01), np.cos(1), np.cos(0.01)],
                       atol=1e-6)
    assert "Row 0 is reserved for the padding token" in problem.contract


def test_a_canonical_mistake_is_named_under_the_encoding_options(fake_sandbox):
    source = _encoding("halves", True, False).replace("np.sin(angle), np.cos",
                                                      "np.cos(angle), np.sin")
    result = grade("positional_encoding", {"layout": "halves", "shape": [1, "L", "d"]}, source,
                   fake_sandbox)
    assert result.score < 10.0
    assert "sin_cos_swapped" in diagnoses(result)


# -- softmax -------------------------------------------------------------------------------------

SOFTMAX = '''import numpy as np


def softmax(x, axis={axis}):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
'''


def test_a_softmax_with_the_courses_default_axis_scores_full(fake_sandbox):
    result = grade("softmax", {"default_axis": 0}, SOFTMAX.format(axis=0), fake_sandbox)
    assert result.score == 10.0, result.output
    problem = compile_course(PROBLEMS["softmax"], {"default_axis": 0})
    assert problem.contract.startswith("def softmax(x, axis=0)\n")
    assert "def softmax(x, axis=0):" in problem.starter


def test_todays_default_axis_under_another_is_named(fake_sandbox):
    result = grade("softmax", {"default_axis": 0}, SOFTMAX.format(axis=-1), fake_sandbox)
    assert diagnoses(result) == {"default_axis_last"}
    assert "this course's default axis is 0" in result.output


def test_the_default_axis_is_left_to_the_courses_signature():
    problem = compile_course(PROBLEMS["softmax"], {"default_axis": 0})
    x = np.ones((2, 3))
    assert problem.course.call((x, DefaultAxis(0)), {}) == ((x,), {})
    assert problem.course.call((x, 1), {}) == ((x, 1), {})


def test_an_unstable_softmax_is_still_named_under_the_default_axis(fake_sandbox):
    source = SOFTMAX.format(axis=0).replace("x - np.max(x, axis=axis, keepdims=True)", "x")
    result = grade("softmax", {"default_axis": 0}, source, fake_sandbox)
    assert result.score == 8.0  # the stability category (weight 2 of 10), no more
    assert all(t.status == "failed" for t in result.tests if t.tags[0] == "stability")
    assert diagnoses(result) == {"not_stable"}


# -- through the real sandbox --------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_sandbox():
    from grader.sandbox import get_sandbox

    sandbox = get_sandbox("unsafe-dev")
    yield sandbox
    sandbox.close()


ATTENTION = {"function": "attention", "parameters": ["q", "k", "v", "mask"]}


@pytest.mark.parametrize("problem_id,options,course_file,todays_file,named", [
    (SDPA, {**ATTENTION, "mask": "blocked"}, _sdpa(APPLY["blocked"]), _sdpa(APPLY["allowed"]),
     "mask_inverted"),
    (SDPA, {**ATTENTION, "mask": "additive", "returns": "output+weights"},
     _sdpa(APPLY["additive"]), _sdpa(APPLY["allowed"]), "mask_inverted"),
    (SDPA, {**ATTENTION, "returns": "weights+output"}, _sdpa(APPLY["allowed"], "w, out"),
     _sdpa(APPLY["allowed"], "out, w"), "returns_weights_first"),
    (SDPA, {**ATTENTION, "returns": "output+weights"}, _sdpa(APPLY["allowed"], "out, w"),
     _sdpa(APPLY["allowed"], "out"), "contract_returns_one_array"),
    ("causal_mask", {"mask": "numeric-blocked"}, _causal(CAUSAL["numeric-blocked"]),
     _causal(CAUSAL["allowed"]), "mask_inverted"),
    ("causal_mask", {"mask": "additive"}, _causal(CAUSAL["additive"]),
     _causal(CAUSAL["allowed"]), "additive_mask"),
    ("positional_encoding", {"layout": "halves", "shape": "[1, L, d]"},
     _encoding("halves", True, False), _encoding("interleaved", True, False),
     "contract_encoding_interleaved"),
    ("positional_encoding", {"padding_row": True}, _encoding("interleaved", False, True),
     _encoding("interleaved", False, False), "contract_padding_row"),
    ("softmax", {"default_axis": 0}, SOFTMAX.format(axis=0), SOFTMAX.format(axis=-1),
     "default_axis_last"),
])
def test_through_the_real_sandbox_the_course_file_is_full_and_todays_is_named(
        real_sandbox, problem_id, options, course_file, todays_file, named):
    assert grade(problem_id, options, course_file, real_sandbox).score == 10.0
    result = grade(problem_id, options, todays_file, real_sandbox)
    assert result.score < 10.0 and named in diagnoses(result)


# -- multi-head attention ------------------------------------------------------------------------

_SPLIT = '''
    def heads(t):
        return np.swapaxes(t.reshape(*t.shape[:-1], n_head, t.shape[-1] // n_head), -2, -3)
    q, k, v = heads(q), heads(k), heads(v)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]){mask}
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    o = np.swapaxes(w @ v, -2, -3)
    o = o.reshape(*o.shape[:-2], -1)
'''

#: picoGPT's fused multi-head attention (c_attn, c_proj) with a mask parameter.
FUSED_MHA = ("import numpy as np\n\n\ndef mha(x, c_attn_w, c_attn_b, c_proj_w, c_proj_b, n_head, "
             "mask=None):\n    q, k, v = np.split(x @ c_attn_w + c_attn_b, 3, axis=-1)"
             + _SPLIT.format(mask="\n    if mask is not None:\n        s = np.where("
                                  "np.expand_dims(mask, -3), s, -np.inf)")
             + "    return o @ c_proj_w + c_proj_b\n")
FUSED_OPTIONS = {"function": "mha", "weights": "fused", "parameters": [
    "x", "c_attn_w", "c_attn_b", "c_proj_w", "c_proj_b", "n_head", "mask"]}

#: The same, always causal (a GPT decoder's heads): no mask parameter.
CAUSAL_MHA = ("import numpy as np\n\n\ndef mha(x, c_attn_w, c_attn_b, c_proj_w, c_proj_b, "
              "n_head):\n    q, k, v = np.split(x @ c_attn_w + c_attn_b, 3, axis=-1)"
              + _SPLIT.format(mask=" + (1 - np.tri(x.shape[-2])) * -1e10")
              + "    return o @ c_proj_w + c_proj_b\n")
CAUSAL_OPTIONS = {**FUSED_OPTIONS, "parameters": FUSED_OPTIONS["parameters"][:-1],
                  "causal": True}

PER_HEAD_MHA = '''import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    heads = []
    for h in range(num_heads):
        q, k, v = X @ W_q[h], X @ W_k[h], X @ W_v[h]
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None:
            s = np.where(np.asarray(mask, bool), s, -np.inf)
        s = s - s.max(axis=-1, keepdims=True)
        w = np.exp(s)
        heads.append((w / w.sum(axis=-1, keepdims=True)) @ v)
    return np.concatenate(heads, axis=-1) @ W_o
'''


def test_per_head_weights_are_sent_as_each_heads_block_of_columns():
    problem = compile_course(PROBLEMS["multi_head_attention"], {"weights": "per-head"})
    d_model, H = 6, 3
    W = [np.arange(36.0).reshape(6, 6) + 100 * i for i in range(4)]
    X = np.ones((4, d_model))
    args, _ = problem.course.call((X, *W, H), {})
    assert args[1].shape == (3, 6, 2)
    assert args[1][1].tolist() == W[0][:, 2:4].tolist()  # head 1: columns 2 and 3
    assert args[4] is W[3]  # W_o stays (d_model, d_model)


def test_fused_weights_are_sent_with_their_biases():
    problem = compile_course(PROBLEMS["multi_head_attention"], FUSED_OPTIONS)
    W = [np.full((4, 4), float(i)) for i in range(4)]
    args, _ = problem.course.call((np.ones((3, 4)), *W, 2), {})
    assert args[1].shape == (4, 12) and args[1][0].tolist() == [0.0] * 4 + [1.0] * 4 + [2.0] * 4
    # X is sent shifted by u = (0.3, -0.2, 0.4, -0.1), and b_qkv = u @ W_qkv: u sums to 0.4,
    # so u @ W is 0.4 * i in block i (W_q, W_k, W_v full of 0, 1, 2)
    assert np.allclose(args[0], np.ones((3, 4)) - [0.3, -0.2, 0.4, -0.1])
    assert np.allclose(args[2], [0.0] * 4 + [0.4] * 4 + [0.8] * 4)  # b_qkv: nonzero
    assert args[3] is W[3]
    assert np.allclose(args[4], 0.5 * np.cos(np.arange(4) + 1.0))  # b_o: nonzero
    assert problem.contract.startswith("def mha(x, c_attn_w, c_attn_b, c_proj_w, c_proj_b, "
                                       "n_head, mask=None)\n")
    assert "return concat @ c_proj_w + c_proj_b," in problem.contract


def test_a_fused_visible_example_shows_its_shifted_inputs_as_decimals():
    problem = compile_course(PROBLEMS["multi_head_attention"], FUSED_OPTIONS)
    shown = examples.public_examples(problem)[0]["inputs"]
    # the example's X row 2 is (0.0, 0.3, 0.0, -0.8), minus u = (0.3, -0.2, 0.4, -0.1)
    assert examples.public_examples(PROBLEMS["multi_head_attention"])[0]["inputs"]["X"][2] == [
        0.0, 0.3, 0.0, -0.8]
    assert shown["x"][2] == [-0.3, 0.5, -0.4, -0.7]
    assert all(round(b, 2) == b for b in shown["c_attn_b"])  # u @ W: two decimals


@pytest.mark.parametrize("options,source", [
    ({"weights": "per-head"}, PER_HEAD_MHA),
    (FUSED_OPTIONS, FUSED_MHA),
    (CAUSAL_OPTIONS, CAUSAL_MHA),
])
def test_multi_head_attention_in_the_courses_layout_scores_full(fake_sandbox, options, source):
    assert grade("multi_head_attention", options, source, fake_sandbox).score == 10.0


def test_fused_weights_without_the_output_bias_are_named(fake_sandbox):
    result = grade("multi_head_attention", FUSED_OPTIONS,
                   FUSED_MHA.replace(" + c_proj_b\n", "\n"), fake_sandbox)
    assert diagnoses(result) == {"output_bias_missing"}
    assert "add c_proj_b after the output projection" in result.output


def test_the_fused_call_projects_exactly_as_the_canonical_one():
    """(X - u) @ W_qkv + b_qkv == X @ [W_q | W_k | W_v]: the canonical reference is the fused
    call's answer."""
    problem = compile_course(PROBLEMS["multi_head_attention"], FUSED_OPTIONS)
    rng = np.random.default_rng(5)
    X, W = rng.standard_normal((2, 5, 6)), [rng.standard_normal((6, 6)) for _ in range(4)]
    args, _ = problem.course.call((X, *W, 3), {})
    assert np.abs(args[0] @ args[1] + args[2] - X @ np.concatenate(W[:3], axis=1)).max() < 1e-10
    assert np.abs(args[2]).min() > 0  # every entry of b_qkv counts


def test_fused_weights_without_the_projection_bias_are_named(fake_sandbox):
    result = grade("multi_head_attention", FUSED_OPTIONS,
                   FUSED_MHA.replace("x @ c_attn_w + c_attn_b", "x @ c_attn_w"), fake_sandbox)
    assert result.score < 5.0
    assert diagnoses(result) == {"qkv_bias_missing"}
    assert "The projection bias c_attn_b is not added" in result.output


def test_fused_weights_without_either_bias_are_named(fake_sandbox):
    source = FUSED_MHA.replace("x @ c_attn_w + c_attn_b", "x @ c_attn_w").replace(
        " + c_proj_b\n", "\n")
    result = grade("multi_head_attention", FUSED_OPTIONS, source, fake_sandbox)
    assert diagnoses(result) == {"biases_missing"}
    assert "Neither bias is added" in result.output


def test_heads_that_are_not_causal_under_an_always_causal_course_are_named(fake_sandbox):
    result = grade("multi_head_attention", CAUSAL_OPTIONS,
                   CAUSAL_MHA.replace(" + (1 - np.tri(x.shape[-2])) * -1e10", ""), fake_sandbox)
    assert diagnoses(result) == {"mask_ignored"}
    assert "this course's attention is always causal" in result.output


def test_always_causal_heads_keep_only_the_cases_causal_heads_can_take():
    problem = compile_course(PROBLEMS["multi_head_attention"], CAUSAL_OPTIONS)
    names = {case.name for case in problem.cases(3)}
    assert "masking: causal mask (L, L)" in names
    assert not any("padding" in n or "per-example" in n or "equivariance" in n for n in names)
    for case in problem.cases(3):  # every canonical call carries the causal mask
        X, mask = case.calls[0][0][0], case.calls[0][0][6]
        L = X.shape[-2]
        assert np.array_equal(mask, np.tril(np.ones((L, L), dtype=bool)))
        assert len(problem.course.call(*case.calls[0])[0]) == 6  # sent without it


def test_always_causal_heads_take_no_mask_option():
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS["multi_head_attention"], {"causal": True, "mask": "blocked"})
    assert raised.value.field == "contract.mask"
    with pytest.raises(ContractOptionError) as raised:  # seven names where six are expected
        compile_course(PROBLEMS["multi_head_attention"],
                       {"causal": True, "parameters": FUSED_OPTIONS["parameters"]})
    assert raised.value.field == "contract.parameters"


# -- the other attention problems' masks ---------------------------------------------------------

@pytest.mark.parametrize("problem_id,sample,line,blocked", [
    ("grouped_query_attention", "correct_einsum", "scores = np.where(mask, scores, -np.inf)",
     "scores = np.where(mask, -np.inf, scores)"),
    ("multi_head_attention", "correct_einsum_tuple",
     "scores = np.where(np.asarray(mask)[..., None, :, :], scores, -1e9)",
     "scores = np.where(np.asarray(mask)[..., None, :, :], -1e9, scores)"),
    ("attention_backward", "correct_einsum", "S = np.where(mask, S, -np.inf)",
     "S = np.where(mask, -np.inf, S)"),
    ("transformer_encoder_block", "correct_einsum",
     "s = np.where(np.asarray(mask)[..., None, :, :], s, -np.inf)",
     "s = np.where(np.asarray(mask)[..., None, :, :], -np.inf, s)"),
])
def test_a_blocked_mask_course_for_the_other_attention_problems(fake_sandbox, problem_id,
                                                                sample, line, blocked):
    from grader.problems import samples

    source = samples.source(problem_id, sample)
    assert line in source
    assert grade(problem_id, {"mask": "blocked"}, source.replace(line, blocked),
                 fake_sandbox).score == 10.0
    result = grade(problem_id, {"mask": "blocked"}, source, fake_sandbox)
    assert result.score < 10.0
    masking = [t for t in result.tests if "masked" in t.name or t.tags[0] == "masking"]
    assert masking and any(t.status == "failed" for t in masking)


# -- mask shapes ---------------------------------------------------------------------------------

def test_mask_shapes_keep_only_the_courses_masks_and_send_1_lq_lk():
    from grader.problems.course import mask_shape

    problem = compile_course(PROBLEMS[SDPA], {"mask_shapes": [[1, "Lq", "Lk"],
                                                              ["B", 1, 1, "Lk"]]})
    sent = set()
    for case in problem.cases(2):
        for args, kwargs in case.calls:
            course_args = problem.course.call(args, kwargs)[0]
            sent.add(mask_shape(course_args[3], course_args[0]))
    assert sent == {None, "[1, Lq, Lk]", "[B, 1, 1, Lk]"}
    assert "This course's masks have shape (1, Lq, Lk) or (B, 1, 1, Lk)." in problem.contract


def test_padding_only_code_is_full_under_a_padding_mask_course(fake_sandbox):
    """Code that reshapes every mask to (B, 1, 1, Lk) is right for key-padding masks only."""
    source = _sdpa("s = np.where(mask.reshape(mask.shape[0], *([1] * (s.ndim - 2)), "
                   "mask.shape[-1]), s, -np.inf)")
    options = {**ATTENTION, "mask_shapes": [["B", 1, 1, "Lk"]]}
    assert grade(SDPA, options, source, fake_sandbox).score == 10.0
    assert grade(SDPA, ATTENTION, source, fake_sandbox).score < 10.0


@pytest.mark.parametrize("options,field", [
    ({"mask_shapes": [["B", "Lk"]]}, "contract.mask_shapes[0]"),
    ({"mask_shapes": []}, "contract.mask_shapes"),
    ({"mask_shapes": [[1, "Lq", "Lk"]], "ranks": [2]}, "contract.mask_shapes"),
])
def test_mask_shapes_that_cannot_be_used_name_the_field(options, field):
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS[SDPA], options)
    assert raised.value.field == field


def test_todays_mask_shapes_written_out_are_todays_contract():
    today = [["Lq", "Lk"], ["B", "Lq", "Lk"], ["B", 1, "Lq", "Lk"], ["B", 1, 1, "Lk"]]
    assert compile_course(PROBLEMS[SDPA], {"mask_shapes": today[::-1]}) is PROBLEMS[SDPA]


def test_the_precheck_of_the_visible_examples_reads_the_courses_returns(fake_sandbox):
    from grader.problems.precheck import precheck

    problem = compile_course(PROBLEMS[SDPA], {**ATTENTION, "returns": "weights+output",
                                              "mask": "blocked"})
    right = precheck(problem, "item", _sdpa(APPLY["blocked"], "w, out"), fake_sandbox, Limits())
    assert [t["status"] for t in right.tests] == ["passed"] * 3
    todays = precheck(problem, "item", _sdpa(APPLY["blocked"], "out, w"), fake_sandbox,
                      Limits())
    assert [t["status"] for t in todays.tests] == ["failed"] * 3
    assert all("this course's function returns (weights, output)" in t["output"]
               for t in todays.tests)


@pytest.mark.parametrize("expression,tag,said", [
    ("np.triu(np.ones((n, n), dtype=bool))", "diagonal_masked", "block only keys j > i"),
    ("np.triu(np.ones((n, n), dtype=bool), k=2)", "off_by_one_future",
     "block every key j > i"),
    ("np.tril(np.ones((n, n), dtype=bool), k=-1)", "transposed",
     "the blocked positions are below the diagonal"),
])
def test_the_causal_masks_mistakes_are_told_in_a_blocked_courses_terms(fake_sandbox,
                                                                      expression, tag, said):
    result = grade("causal_mask", {"mask": "blocked"}, _causal(expression), fake_sandbox)
    assert diagnoses(result) == {tag}
    assert said in result.output


def test_a_numeric_mask_added_as_a_number_is_told_in_the_courses_terms(fake_sandbox):
    result = grade(SDPA, {**ATTENTION, "mask": "numeric-allowed"}, _sdpa("s = s + mask"),
                   fake_sandbox)
    assert diagnoses(result) == {"mask_added_as_float"}
    assert "this course's mask has 1 where a query may attend" in result.output


@pytest.mark.parametrize("value,status", [
    (np.zeros((2, 3)), "contract"), ((np.zeros(2),), "contract"),
    ([np.zeros(2), np.zeros(3), np.zeros(1)], "contract"), (3.5, "contract"),
    ((np.zeros((2, 2)), 7), "ok"), (np.zeros((0,)), "contract"),
    ((np.zeros((1, 2)), np.zeros((1, 2, 3))), "ok"),
])
def test_any_return_is_read_without_a_crash(value, status):
    """Odd learner values: a canonical value or a named form outcome, never an exception (the
    statuses for (output, weights) worked out from its form: a pair or not)."""
    from grader.sandbox.api import CallOutcome

    Q = np.ones((2, 3))
    pair = compile_course(PROBLEMS[SDPA], {"returns": "output+weights"})
    found = pair.course.outcome(CallOutcome("ok", value=value), (Q, Q, Q, None), {}, False, ())
    assert found.status == status
    calls = [
        (compile_course(PROBLEMS[SDPA], {"returns": r}), (Q, Q, Q, None))
        for r in ("weights+output", "weights")] + [
        (compile_course(PROBLEMS["causal_mask"], {"mask": m, "shape": "[1, n, n]"}), (2,))
        for m in ("blocked", "additive", "numeric-allowed")] + [
        (compile_course(PROBLEMS["positional_encoding"], {"layout": "halves",
                                                          "padding_row": True}), (2, 3)),
        (compile_course(PROBLEMS["multi_head_attention"], {"weights": "fused"}),
         (Q, *[np.ones((3, 3))] * 4, 1, None))]
    for problem, args in calls:
        found = problem.course.outcome(CallOutcome("ok", value=value), args, {}, False, args)
        assert found.status in ("ok", "contract")
        assert found.status == "ok" or found.error


def test_the_contract_and_starter_state_each_convention():
    causal = compile_course(PROBLEMS["causal_mask"], {"function": "look_ahead",
                                                      "parameters": ["size"],
                                                      "mask": "numeric-blocked",
                                                      "shape": [1, "n", "n"]})
    assert "of shape (1, size, size) where entry [i, j] is 1 when key\nposition j is BLOCKED" \
        in causal.contract
    assert '"""0/1 floats (1, size, size): 1 where key j is blocked for query i (j > i)."""' \
        in causal.starter
    picogpt = compile_course(PROBLEMS[SDPA], {**ATTENTION, "mask": "additive",
                                              "mask_required": True, "ranks": [2]})
    assert picogpt.contract.startswith("def attention(q, k, v, mask)\n")  # no default
    assert "This course's masks have shape (Lq, Lk)." in picogpt.contract
    assert "This course's inputs: (L, d) (no batch axis)" in picogpt.contract
    assert all(len(line) <= 100 for line in picogpt.contract.splitlines()
               if not line.startswith(("Scoring: ", "NumPy: ")))
    encoding = compile_course(PROBLEMS["positional_encoding"], {"shape": "[1, L, d]"})
    assert '"""Sinusoidal positional encoding, shape (1, seq_len, d_model)."""' \
        in encoding.starter


def test_the_pictures_are_drawn_in_the_courses_convention(fake_sandbox):
    result = grade("causal_mask", {"mask": "blocked"}, _causal(CAUSAL["blocked"]), fake_sandbox)
    (picture,) = result.extra_data["pictures"]  # causal_mask(3): 1 above the diagonal
    assert picture["expected"] == [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    assert picture["learner"] == picture["expected"]
    assert picture["finding"] == "Your mask match the expected mask."
    options = {"layout": "halves", "padding_row": True}
    result = grade("positional_encoding", options, _encoding("halves", False, True),
                   fake_sandbox)
    (picture,) = result.extra_data["pictures"]  # positional_encoding(3, 4), halves
    assert picture["expected"][0] == [0.0, 0.0, 0.0, 0.0]
    assert picture["expected"][1] == [round(float(np.sin(1)), 4), 0.01,
                                      round(float(np.cos(1)), 4), 1.0]
    assert picture["learner"] == picture["expected"]


def test_a_problem_compiled_again_sends_the_same_course_calls_for_a_seed(monkeypatch):
    """Seed invariance per item: the same seed and options give the same inputs, even when the
    compiled problem was evicted from the cache and compiled again."""
    import grader.problems.course as course_module

    options = {**ATTENTION, "mask": "numeric-blocked", "ranks": [3, 4], "returns": "weights"}
    first = compile_course(PROBLEMS[SDPA], options)
    monkeypatch.setattr(course_module, "_CACHE", type(course_module._CACHE)())
    again = compile_course(PROBLEMS[SDPA], options)
    assert again is not first
    for one, other in zip(first.cases(9), again.cases(9), strict=True):
        assert one.name == other.name
        for call, same in zip(one.calls, other.calls, strict=True):
            sent, resent = first.course.call(*call)[0], again.course.call(*same)[0]
            assert len(sent) == len(resent) == 4
            for a, b in zip(sent, resent):
                assert (a is None and b is None) or np.array_equal(a, b)


def test_a_contract_on_a_course_problem_is_refused_naming_the_field():
    """Options apply to the built-in problems; an authored problem states its own contract."""
    from pathlib import Path

    import yaml

    from grader.items import get_kind

    root = Path(__file__).resolve().parents[2]
    document = yaml.safe_load((root / "examples" / "problems" / "softmax.yaml").read_text())
    inline = {"id": document["id"], "version": 1, "document": document}
    with pytest.raises(ContractOptionError) as raised:
        get_kind("code").load("item", {"id": "item", "kind": "code", "points": 10,
                                       "problem": inline, "contract": {"mask": "blocked"}},
                              root)
    assert raised.value.field == "contract"
    assert "built-in problems only" in raised.value.reason


def test_the_readmes_example_item_grades_the_tensorflow_tutorials_attention(fake_sandbox):
    from pathlib import Path

    import yaml

    from tests.api.test_contract_options_api import TF_ATTENTION

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = readme.index("```yaml\n# The TensorFlow tutorial's attention")
    (item,) = yaml.safe_load(readme[start + len("```yaml\n"):readme.index("```", start + 8)])
    assert item["contract"]["ranks"] == [3, 4]
    result = grade(item["problem"], item["contract"], TF_ATTENTION, fake_sandbox)
    assert result.score == 10.0, result.output


# -- a form error does not hide the value's own mistakes (returns, encodings) --------------------

def test_one_array_for_a_pair_names_the_outputs_mistake_too(fake_sandbox):
    """(output, weights) promised, the output alone returned, unscaled: read as the output, it is
    the no-scaling mistake wherever d_k != 1 (the scaling cases; outside them the cases use
    d_k = 1, where not scaling is right, so only the form is named there)."""
    source = _sdpa(APPLY["allowed"], "out", name=SDPA, scale="")
    result = grade(SDPA, {"returns": "output+weights"}, source, fake_sandbox)
    assert result.score == 0
    assert all(t.status == "failed" and "returns one array" in t.output for t in result.tests)
    by_category = {}
    for t in result.tests:
        by_category.setdefault(t.tags[0], set()).add(tuple(_tags(t)))
    assert by_category["scaling"] == {("contract_returns_one_array", "no_scaling")}
    for category in ("masking", "values", "softmax", "stability"):
        assert by_category[category] == {("contract_returns_one_array",)}, category


@pytest.mark.parametrize("line,named", [
    ("out", {"contract_returns_one_array"}),  # the right output alone: only the form
    ("out, w, s", {"contract_returns_tuple_length"}),  # three values: not read, only the form
    # the weights alone, read as the output: today's "returns the weights" mistake beside it
    ("(out, w)[1]", {"contract_returns_one_array", "returns_weights_only"}),
])
def test_other_returns_for_a_pair_name_the_form_and_what_the_value_shows(fake_sandbox, line, named):
    source = _sdpa(APPLY["allowed"], line, name=SDPA)
    result = grade(SDPA, {"returns": "output+weights"}, source, fake_sandbox)
    assert result.score == 0 and diagnoses(result) == named


def test_an_encoding_without_the_leading_axis_names_its_value_mistake_too(fake_sandbox):
    source = _encoding("interleaved", False, False).replace("10000", "1000")
    result = grade("positional_encoding", {"shape": [1, "L", "d"]}, source, fake_sandbox)
    assert result.score == 0
    assert {tuple(_tags(t)) for t in result.tests} == {
        ("contract_encoding_shape", "base_1000")}
    right = grade("positional_encoding", {"shape": [1, "L", "d"]},
                  _encoding("interleaved", False, False), fake_sandbox)
    assert right.score == 0 and diagnoses(right) == {"contract_encoding_shape"}


def test_a_form_error_reads_the_value_only_when_it_is_unambiguous():
    from grader.problems.course import convert

    mask = np.tril(np.ones((3, 3), dtype=bool))
    with pytest.raises(convert.FormError) as raised:
        convert.causal_mask(mask, "blocked", "[1, n, n]", 3)
    assert raised.value.read.tolist() == (~mask).tolist()  # True = blocked, read canonically
    with pytest.raises(convert.FormError) as raised:  # (3, 3) for size 4: not read
        convert.causal_mask(mask, "allowed", "[1, n, n]", 4)
    assert raised.value.read is None
    out = np.ones((2, 3))
    with pytest.raises(convert.FormError) as raised:
        convert.returns(out, "output+weights", ())
    assert raised.value.read is out
    with pytest.raises(convert.FormError) as raised:
        convert.returns((out, out, out), "output+weights", ())
    assert raised.value.read is None


@pytest.mark.parametrize("options,named", [
    # the course's names: the three mistakes, as without options
    ({"parameters": ["x", "w_q", "w_k", "w_v", "w_o", "n_head", "mask"]}, set()),
    # (output, weights) promised, the output alone returned: the form, and the three beside it
    ({"returns": "output+weights"}, {"contract_returns_one_array"}),
])
def test_three_multi_head_mistakes_are_named_under_the_options(fake_sandbox, options, named):
    """Heads by a reshape alone, scores over sqrt(d_model), no W_o (issue 21.2)."""
    from pathlib import Path

    source = (Path(__file__).parent / "realistic" / "mha_reshape_dmodel_no_wo.py").read_text()
    if "parameters" in options:
        for old, new in [("X", "x"), ("W_", "w_"), ("num_heads", "n_head")]:
            source = source.replace(old, new)
    result = grade("multi_head_attention", options, source, fake_sandbox)
    assert result.score < 10.0
    assert diagnoses(result) == named | {"split_and_merge_without_transpose",
                                         "scale_by_sqrt_d_model", "output_projection_missing"}
