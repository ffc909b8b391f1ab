"""Contract options met by a new instructor (fresh-user review of issue 21, part 1): options the
tests could never exercise are refused naming the field, and the course's form sentences, starter
notes and shape failures use the course's names and shapes."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, scoring
from grader.problems.course import ContractOptionError, compile_course
from grader.sandbox.api import Limits

#: The TensorFlow tutorial's encoding as a course writes it: a (1, length, depth) buffer.
TF_ENCODING = {"parameters": ["length", "depth"], "shape": "[1, L, d]"}
#: The Annotated Transformer's subsequent_mask(size): (1, size, size).
SUBSEQUENT = {"function": "subsequent_mask", "parameters": ["size"], "shape": [1, "n", "n"]}


def grade(problem_id, options, source, sandbox, seed=3):
    problem = compile_course(PROBLEMS[problem_id], options)
    return scoring.grade(problem, "item", 10.0, source, sandbox, Limits(), seed)


def visible_output(result, name):
    return next(t.output for t in result.tests if t.name == name)


@pytest.mark.parametrize("options", [{"default_axis": 3}, {"default_axis": -4},
                                     {"default_axis": 2, "ranks": [1, 2]}])
def test_a_default_axis_no_hidden_input_has_is_refused(options):
    # softmax's hidden inputs have rank 1 to 3: axis 3 and -4 exist on none, axis 2 only on
    # the rank-3 ones, which ranks [1, 2] leaves out; a default never called is never checked
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS["softmax"], options)
    assert raised.value.field == "contract.default_axis"
    assert f"axis {options['default_axis']}" in raised.value.reason


def test_a_default_axis_some_hidden_input_has_is_taken():
    problem = compile_course(PROBLEMS["softmax"], {"default_axis": 2})
    assert problem.contract.startswith("def softmax(x, axis=2)\n")


@pytest.mark.parametrize("ranks", [[3.0], [3, "4"], [None]])
def test_ranks_that_are_not_integers_are_refused(ranks):
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS["scaled_dot_product_attention"], {"ranks": ranks})
    assert raised.value.field == "contract.ranks"


def test_the_encoding_starter_note_uses_the_courses_names():
    starter = compile_course(PROBLEMS["positional_encoding"], TF_ENCODING).starter
    assert "Shape (1, length, depth)." in starter
    assert "seq_len" not in starter and "d_model" not in starter


def test_a_form_sentence_uses_the_courses_names(fake_sandbox):
    source = ("import numpy as np\n\n\ndef positional_encoding(length, depth):\n"
              "    return np.zeros((length, depth))\n")
    result = grade("positional_encoding", TF_ENCODING, source, fake_sandbox)
    assert result.score == 0
    assert "this course's shape, (length, depth) with a leading axis" in result.output
    assert "seq_len" not in result.output and "d_model" not in result.output
    causal = ("import numpy as np\n\n\ndef subsequent_mask(size):\n"
              "    return np.tril(np.ones((size, size), dtype=bool))\n")
    result = grade("causal_mask", SUBSEQUENT, causal, fake_sandbox)
    assert "this course's shape, (size, size) with a leading axis" in result.output


def test_a_wrong_shape_after_the_leading_axis_is_told_in_the_courses_shape(fake_sandbox):
    # the visible example positional_encoding(3, 4) expects (1, 3, 4); one column too many is
    # (1, 3, 5), not the canonical (3, 5) against (3, 4)
    source = ("import numpy as np\n\n\ndef positional_encoding(length, depth):\n"
              "    return np.zeros((1, length, depth + 1))\n")
    result = grade("positional_encoding", TF_ENCODING, source, fake_sandbox)
    output = visible_output(result, "example: positional_encoding(3, 4)")
    assert "the output has shape (1, 3, 5), expected (1, 3, 4)" in output
    # subsequent_mask(3) expects (1, 3, 3); a mask one longer is (1, 4, 4)
    causal = ("import numpy as np\n\n\ndef subsequent_mask(size):\n"
              "    return np.tril(np.ones((1, size + 1, size + 1), dtype=bool))\n")
    result = grade("causal_mask", SUBSEQUENT, causal, fake_sandbox)
    output = visible_output(result, "example: subsequent_mask(3)")
    assert "the output has shape (1, 4, 4), expected (1, 3, 3)" in output


def test_a_course_without_a_leading_axis_keeps_the_canonical_shape_message():
    adapter = compile_course(PROBLEMS["positional_encoding"], {"layout": "halves"}).course
    message = "the output has shape (3, 5), expected (3, 4)"
    assert adapter.failure(message) == message


def test_hidden_tests_are_shown_in_the_courses_words_and_keep_their_draws(fake_sandbox):
    options = {"function": "attention", "parameters": ["q", "k", "v", "mask"],
               "mask": "numeric-blocked"}
    source = ("import numpy as np\n\n\ndef attention(q, k, v, mask):\n"
              "    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n"
              "    if mask is not None:\n        s = s + mask * -1e9\n"
              "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
              "    return (w / w.sum(axis=-1, keepdims=True)) @ v\n")
    result = grade("scaled_dot_product_attention", options, source, fake_sandbox)
    names = {t.name for t in result.tests}
    assert "inputs: q, k, v and mask are not modified in place" in names
    assert "inputs: Q, K, V and mask are not modified in place" not in names
    assert result.score == 10.0
    # the cases keep their own names (each seeds its draw): only what is shown changes
    problem = compile_course(PROBLEMS["scaled_dot_product_attention"], options)
    assert set(problem.course.test_names) == {c.name for c in problem.spec.cases
                                              if not c.visible}


def test_the_causal_masks_test_names_say_the_courses_shape_and_convention(fake_sandbox):
    source = ("import numpy as np\n\n\ndef subsequent_mask(size):\n"
              "    return (np.triu(np.ones((1, size, size)), k=1) == 0)\n")
    names = {t.name for t in grade("causal_mask", SUBSEQUENT, source, fake_sandbox).tests}
    assert {"shapes: a square (1, size, size) array", "shapes: a larger size",
            "edge cases: size = 1 (the token sees itself)"} <= names
    additive = ("import numpy as np\n\n\ndef causal_mask(n):\n"
                "    return (1 - np.tri(n)) * -1e10\n")
    result = grade("causal_mask", {"mask": "additive"}, additive, fake_sandbox)
    assert result.score == 10.0
    assert "dtypes: the mask is an additive float mask (0 = may attend, a large negative "\
           "number = blocked)" in {t.name for t in result.tests}


@pytest.mark.parametrize("function", ["args", "kwargs", "_grader_np", "_grader_result"])
def test_a_function_name_the_inputs_wrapper_uses_is_refused(function):
    # the wrapper calls the function from inside def __grader_inputs_after__(*args, **kwargs),
    # whose locals args, kwargs, _grader_np and _grader_result would hide it: a correct softmax
    # named args lost its inputs-not-modified test ("'tuple' object is not callable")
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS["softmax"], {"function": function})
    assert raised.value.field == "contract.function"
    assert "reserved" in raised.value.reason


def test_a_function_named_like_a_module_the_learner_may_import_is_taken(fake_sandbox):
    source = ("import numpy\n\n\ndef np(x, axis=-1):\n"
              "    e = numpy.exp(x - numpy.max(x, axis=axis, keepdims=True))\n"
              "    return e / numpy.sum(e, axis=axis, keepdims=True)\n")
    assert grade("softmax", {"function": "np"}, source, fake_sandbox).score == 10.0


#: The TensorFlow tutorial's look-ahead mask: create_look_ahead_mask(size), 1 = blocked.
LOOK_AHEAD = {"function": "create_look_ahead_mask", "parameters": ["size"],
              "mask": "numeric-blocked"}


def _look_ahead(body: str) -> str:
    return f"import numpy as np\n\n\ndef create_look_ahead_mask(size):\n    return {body}\n"


def test_an_additive_mask_under_a_numeric_course_is_told_the_courses_mask(fake_sandbox):
    result = grade("causal_mask", LOOK_AHEAD,
                   _look_ahead("(1 - np.tril(np.ones((size, size)))) * -1e9"), fake_sandbox)
    assert "additive_mask" in {tag.split(":", 1)[1] for t in result.tests for tag in t.tags
                               if tag.startswith("diagnosis:")}
    assert "instead of this course's mask of zeros and ones: 1 where attending is BLOCKED" \
        in result.output
    assert "return True where attending is allowed" not in result.output
    dtype = next(t.output for t in result.tests if t.tags[0] == "dtypes")
    assert dtype.startswith("Failed: the mask is not an array of zeros and ones")
    assert "1 - np.tril(np.ones((size, size)))" in dtype


def test_a_boolean_mask_under_a_numeric_course_is_told_it_is_boolean(fake_sandbox):
    result = grade("causal_mask", LOOK_AHEAD,
                   _look_ahead("np.triu(np.ones((size, size), dtype=bool), k=1)"), fake_sandbox)
    failed = [t for t in result.tests if t.status == "failed"]
    assert [t.tags[0] for t in failed] == ["dtypes"]  # the values are right
    assert failed[0].output.startswith("Failed: the mask is boolean, expected numbers")
    assert "'1 - np.tril(np.ones((size, size)))'" in failed[0].output


def test_an_interleaved_encoding_under_a_halves_course_is_not_told_to_interleave(fake_sandbox):
    # sine and cosine swapped and interleaved, in a course of halves: the d_model = 4 example
    # reads as today's "two halves" mistake, which here means the learner interleaved
    options = {"parameters": ["position", "d_model"], "layout": "halves"}
    source = ("import numpy as np\n\n\ndef positional_encoding(position, d_model):\n"
              "    angle = np.arange(position)[:, None] / 10000 ** (np.arange(0, d_model, 2)"
              " / d_model)\n    pe = np.zeros((position, d_model))\n"
              "    pe[:, 0::2] = np.cos(angle)\n"
              "    pe[:, 1::2] = np.sin(angle[:, :d_model // 2])\n    return pe\n")
    result = grade("positional_encoding", options, source, fake_sandbox)
    assert result.score < 10.0
    assert "the layout required here interleaves them" not in result.output
    example = visible_output(result, "example: positional_encoding(3, 4)")
    assert "this course writes it in two halves" in example


def test_a_mask_parameter_with_another_name_is_written_once_in_the_starter():
    options = {"parameters": ["query", "key", "value", "attn_mask"], "mask": "blocked"}
    problem = compile_course(PROBLEMS["scaled_dot_product_attention"], options)
    assert "; attn_mask boolean, True = blocked." in problem.starter
    assert "attn_attn_mask" not in problem.starter


def test_test_names_rename_the_mask_parameter_not_the_noun():
    options = {"parameters": ["query", "key", "value", "attn_mask"]}
    names = set(compile_course(PROBLEMS["scaled_dot_product_attention"],
                               options).course.test_names.values())
    assert "inputs: query, key, value and attn_mask are not modified in place" in names
    assert "masking: causal mask (L, L) with a batch axis" in names
    assert "stability: logits in the thousands under a mask" in names


@pytest.mark.parametrize("options,field", [
    ({"function": "a" * 101}, "contract.function"),
    ({"parameters": ["x", "b" * 101]}, "contract.parameters[1]"),
])
def test_a_name_longer_than_100_characters_is_refused(options, field):
    with pytest.raises(ContractOptionError) as raised:
        compile_course(PROBLEMS["softmax"], options)
    assert raised.value.field == field
    assert "at most 100 characters" in raised.value.reason


def test_a_name_of_100_characters_is_taken():
    problem = compile_course(PROBLEMS["softmax"], {"function": "a" * 100})
    assert problem.function == "a" * 100


def test_a_nan_mask_under_an_additive_course_is_not_told_it_is_not_a_float(fake_sandbox):
    source = ("import numpy as np\n\n\ndef causal_mask(n):\n"
              "    m = (1 - np.tri(n)) * -1e9\n    m[0, 0] = np.nan\n    return m\n")
    result = grade("causal_mask", {"mask": "additive"}, source, fake_sandbox)
    assert result.score == 0
    dtype = next(t.output for t in result.tests if t.tags[0] == "dtypes")
    assert dtype.startswith("Failed: the mask holds entries that are neither zero nor a large "
                            "negative number (NaN, say)")
    boolean = ("import numpy as np\n\n\ndef causal_mask(n):\n"
               "    return np.tril(np.ones((n, n), dtype=bool))\n")
    result = grade("causal_mask", {"mask": "additive"}, boolean, fake_sandbox)
    dtype = next(t.output for t in result.tests if t.tags[0] == "dtypes")
    assert dtype.startswith("Failed: the mask is not a float array")
