"""Answer analysis: notation, offsets, negation scope."""
from grader.rubric.analysis import analyse


def keys(text):
    return analyse(text).key


def test_every_spelling_of_n_squared_reaches_one_token():
    for text in ["O(n^2)", "O(n²)", "O(n**2)", "O(n*n)", "O(n × n)", "O(n · n)"]:
        assert keys(text) == ["o(n^2)"], text
    for text in ["n squared", "n^2", "n²", "n*n", "n x n", "n by n", "n-squared", "n-by-n",
                 "n-x-n", "n-times-n"]:
        assert keys(text) == ["n^2"], text


def test_hyphenated_n_by_n_is_n_squared_but_other_hyphenations_are_not():
    # an "n-by-n matrix of scores" earned nothing for "n^2"; words joined alike stay words
    assert keys("an n-by-n matrix of scores") == ["n^2", "matrix", "score"]
    assert "n^2" not in analyse("step-by-step, a-by-b, n - by - n").index


def test_superscripts_are_mapped_before_nfkc_so_n2_is_not_produced():
    assert "n2" not in analyse("it grows like n²").index
    assert "n^2" in analyse("it grows like n²").index


def test_square_roots_of_d_k_are_one_token():
    for text in ["√dₖ", "sqrt(d_k)", "sqrt d_k", "square root of d_k", "\\sqrt{d_{k}}", "√(dk)"]:
        assert keys(text) == ["sqrt(d_k)"], text


def test_big_o_token_also_answers_to_its_argument():
    a = analyse("self-attention is O(n²)")
    assert a.index["n^2"] == a.index["o(n^2)"]


def test_evidence_offsets_index_the_original_text():
    text = "Cost: O(n²) — quadratic."
    a = analyse(text)
    spans = {k: text[s:e] for k, (s, e) in zip(a.key, a.span)}
    assert spans["o(n^2)"] == "O(n²)"
    assert spans["quadrat"] == "quadratic"


def test_negation_scope_covers_following_words_until_but():
    a = analyse("It is not quadratic but linear.")
    neg = dict(zip(a.surface, a.neg))
    assert neg["quadratic"] >= 0
    assert neg["linear"] == -1


def test_negation_scope_ends_at_a_new_clause_after_and():
    a = analyse("The weights are not learned and the softmax is over keys")
    neg = dict(zip(a.surface, a.neg))
    assert neg["learned"] >= 0
    assert neg["softmax"] == -1 and neg["keys"] == -1


def test_not_only_is_not_a_negation():
    a = analyse("It is not only quadratic in time")
    assert all(n == -1 for n in a.neg)


def test_contractions_negate():
    a = analyse("attention doesn't know the order")
    neg = dict(zip(a.surface, a.neg))
    assert neg["know"] >= 0


def test_sentences_split_on_full_stops_but_not_decimals():
    a = analyse("The weight is 0.5 roughly. Next sentence")
    assert a.sent[a.surface.index("roughly")] == 0
    assert a.sent[a.surface.index("next")] == 1


def test_a_refutation_frame_negates_what_it_refutes():
    a = analyse("It is wrong to say the memory grows quadratically; it grows linearly.")
    negated = [w for w, n in zip(a.surface, a.neg) if n >= 0]
    assert negated == ["memory", "grows", "quadratically"]
    assert [a.surface[n] for n in a.neg if n >= 0] == ["wrong"] * 3
    b = analyse("It is false that attention knows the order.")
    assert [w for w, n in zip(b.surface, b.neg) if n >= 0] == ["attention", "knows", "order"]


def test_a_negated_or_plain_refutation_word_is_no_frame():
    for text in ("It is not wrong to say the memory grows quadratically.", "The memory is wrong, it grows quadratically.",
                 "The wrong axis gives weights over features."):
        a = analyse(text)
        assert all(a.surface[n] != "wrong" for n in a.neg if n >= 0), text
