"""The seed rubrics discriminate: paraphrased correct answers earn full marks, wrong answers and
the seed banks' traps (misconceptions) do not."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.content import load_assignment
from grader.items import get_kind
from grader.items.base import GradingContext

CONTENT = Path(__file__).resolve().parents[2] / "rubrics"
ASSIGNMENTS = {p.stem: load_assignment(p, CONTENT) for p in (CONTENT / "assignments").glob("seed-*.yaml")}


def grade(aid, iid, text):
    item = ASSIGNMENTS[aid].items[iid]
    result = get_kind("text").grade(item, {"text": text}, GradingContext(seed=0))
    misconceptions = {t.tags[1].split(":", 1)[1] for t in result.tests if "misconception" in t.tags}
    return result, misconceptions


PARAPHRASES = [
    ("seed-000", "q5-quadratic-cost", "Every token has to be compared with every other token, so for n tokens you get n*n "
     "scores and the memory and time are quadratic. For long documents this gets far too expensive, which is why people "
     "use sparse or linear attention."),
    ("seed-000", "q5-quadratic-cost", "Each position attends to all n positions, giving an n by n attention matrix, so cost "
     "is O(n²). With very long inputs you run out of memory; chunking or sliding-window attention helps."),
    ("seed-001", "tf01-sequential", "False. All positions are processed simultaneously with one matrix product, and each "
     "token attends to every other token directly."),
    ("seed-001", "tf03-weights-learned", "False: the weights are calculated from the queries and keys of the current input; "
     "what is learned are the projection matrices W_Q, W_K and W_V."),
    ("seed-001", "tf04-shuffling", "True, self-attention is permutation equivariant, it has no idea of order, so we add "
     "positional encodings."),
    ("seed-001", "tf05-scaling-argmax", "False. Dividing all scores by the same positive constant preserves their ranking, "
     "so the argmax is unchanged; it just makes the softmax less peaked."),
    ("seed-001", "err01-softmax-axis", "The softmax goes over the keys (each row of QK^T), so the attention weights for a "
     "query sum to 1, not the features."),
    ("seed-001", "err02-score-shape", "It is n x n: one score for each query-key pair."),
    ("seed-001", "err05-sum-of-keys", "The output is a weighted sum of the values, not the keys; the keys are only used to "
     "compute the weights."),
    ("seed-001", "err06-scale-by-dk", "The standard deviation grows like sqrt(d_k), so we divide by sqrt(d_k) to get unit "
     "variance, not by d_k."),
    ("seed-001", "err07-head-dimension", "Each head works in a smaller subspace of size d_model/h, so the total compute is "
     "about the same as a single head."),
    ("seed-001", "why04-multiple-heads", "A single softmax gives only one pattern per query; several heads can capture "
     "different relationships in different subspaces and their outputs are concatenated."),
    ("seed-001", "edge01-identical-keys", "Every weight in the row is the same (1/n), so the output is just the mean of the "
     "value vectors."),
    ("seed-001", "edge06-causal-mask", "Because exp(-inf) is 0, masked positions get zero weight after the softmax, so a "
     "token cannot see future tokens during autoregressive generation."),
    ("seed-002", "q02-qkv", "queries, keys, values"),
    ("seed-002", "q09-complexity", "quadratic"),
    ("seed-002", "q09-complexity", "O(n²)"),
    ("seed-002", "q09-complexity", "O(n*n)"),
    ("seed-002", "q10-causal", "looking at later tokens"),
]


@pytest.mark.parametrize("aid,iid,text", PARAPHRASES, ids=[f"{a}/{i}" for a, i, _ in PARAPHRASES])
def test_paraphrased_correct_answer_earns_full_marks(aid, iid, text):
    result, misconceptions = grade(aid, iid, text)
    assert (result.score, misconceptions) == (result.max_score, set())


# (assignment, item, wrong answer, highest acceptable share of the points, misconceptions expected).
# A misconception restated in the question's own words fires unless the learner refutes it (wrong,
# false, "the statement claims"): restating a false statement endorses it.
WRONG = [
    ("seed-000", "q5-quadratic-cost", "Self-attention is linear in the sequence length, so long sequences are fine.", 0, {"attention-linear"}),
    ("seed-000", "q5-quadratic-cost", "It is not quadratic; each token only looks at its neighbours.", 0, set()),
    ("seed-000", "q5-quadratic-cost", "The cost is O(n^2) because the embedding dimension is squared.", 0.2, set()),
    ("seed-001", "tf01-sequential", "True, it reads one token at a time just like an RNN.", 0, {"wrong-verdict"}),
    ("seed-001", "tf03-weights-learned", "True, the attention weights are learned by backpropagation like any other parameter.", 0, {"wrong-verdict", "weights-learned"}),
    ("seed-001", "tf03-weights-learned", "False, the weights are not computed from the input, they are stored parameters.", 0, {"weights-learned"}),
    ("seed-001", "tf04-shuffling", "False, attention knows the order of the tokens so outputs change.", 0, {"wrong-verdict", "knows-order"}),
    ("seed-001", "tf05-scaling-argmax", "True, dividing changes the ranking of the scores.", 0, {"wrong-verdict"}),
    ("seed-001", "err01-softmax-axis", "The softmax should be applied over the feature dimension of the values.", 0, {"softmax-feature-axis"}),
    ("seed-001", "err02-score-shape", "The shape is d_k x d_k, one per feature.", 0, set()),
    ("seed-001", "err03-scaling-optional", "Larger d_k gives more capacity, nothing wrong here.", 0, {"scaling-optional"}),
    ("seed-001", "err04-knows-order", "Nothing is wrong: self-attention captures order because it sees everything at once.", 0, {"knows-order"}),
    ("seed-001", "err05-sum-of-keys", "The output is a weighted average of the keys, that is correct.", 0, {"sum-of-keys"}),
    ("seed-001", "err05-sum-of-keys", "It should be a weighted sum of the queries.", 0, set()),
    # paraphrased endorsements (QA): an endorsing verdict voids the criteria and fires the trap
    ("seed-001", "err04-knows-order", "The statement is correct: attention sees every token at once, so it knows their "
     "order without positional encodings.", 0, {"knows-order"}),
    ("seed-001", "err04-knows-order", "There is no error. Seeing the whole sequence at once gives attention the order of "
     "the tokens, so positional encodings are optional.", 0, {"knows-order"}),
    ("seed-001", "err05-sum-of-keys", "The statement is right. Values are not used; output is the keys weighted by the "
     "attention.", 0, {"sum-of-keys"}),
    ("seed-001", "tf06-qkv-equal", "This is correct, the three vectors of a token are the same.", 0, {"wrong-verdict"}),
    ("seed-000", "q5-quadratic-cost", "It is wrong to say the memory grows quadratically; it grows linearly.", 0, set()),
    ("seed-000", "q5-quadratic-cost", "Attention does not scale quadratically with sequence length, so long documents "
     "are cheap.", 0, {"long-sequences-cheap"}),
    ("seed-001", "err06-scale-by-dk", "Dividing by d_k is right because the variance grows like d_k.", 0, {"divide-by-dk"}),
    ("seed-001", "err07-head-dimension", "Yes, each head needs the full d_model dimension or it loses capacity.", 0, {"full-dimension-per-head"}),
    ("seed-001", "why02-softmax-vs-sum", "Because softmax is faster to compute.", 0, set()),
    ("seed-001", "why06-positional-encodings", "Attention already sees the order of the rows, so we do not really need them.", 0, {"knows-order"}),
    ("seed-001", "edge01-identical-keys", "The first key gets all the weight.", 0, set()),
    ("seed-001", "edge03-length-one", "It outputs zeros because there is nothing to attend to.", 0, set()),
    ("seed-001", "edge05-zero-scores", "The output becomes zero because all scores are zero.", 0, set()),
    ("seed-001", "edge07-large-dk", "The weights become uniform over all tokens.", 0, set()),
    ("seed-002", "q01-attend-all", "Attend only to the previous token", 0, set()),
    ("seed-002", "q04-output", "A weighted sum of the keys", 0, {"sum-of-keys"}),
    ("seed-002", "q05-scaling", "Normalise the scores to the range 0 to 1", 0, {"normalise-to-unit-range"}),
    ("seed-002", "q09-complexity", "O(n)", 0, {"linear"}),
    ("seed-002", "q10-causal", "Attending to previous tokens", 0, set()),
]


@pytest.mark.parametrize("aid,iid,text,share,expected", WRONG, ids=[f"{a}/{i}/{n}" for n, (a, i, *_) in enumerate(WRONG)])
def test_wrong_answer_scores_low_and_names_the_misconception(aid, iid, text, share, expected):
    result, misconceptions = grade(aid, iid, text)
    assert result.score <= share * result.max_score
    assert misconceptions == expected


REFUTATIONS = [
    ("err04-knows-order", "The statement is wrong: seeing all tokens is not knowing their order, attention is "
     "permutation-equivariant. Order must be injected with positional encodings."),
    ("err04-knows-order", "The statement is not correct. Attention is permutation equivariant, so order has to come "
     "from positional encodings."),
    ("err04-knows-order", "It is true that attention sees every token at once, but it is permutation-equivariant: "
     "positional encodings inject the order."),
    ("err05-sum-of-keys", "I don't think the statement is correct. The blend is over the values v_j; keys only "
     "produce the match scores."),
    ("err05-sum-of-keys", "There is an error: the output mixes the values, while the keys determine the weights."),
]


@pytest.mark.parametrize("iid,text", REFUTATIONS, ids=[f"{i}/{n}" for n, (i, _) in enumerate(REFUTATIONS)])
def test_answers_that_refute_the_statement_keep_full_marks(iid, text):
    result, misconceptions = grade("seed-001", iid, text)
    assert (result.score, misconceptions) == (result.max_score, set())


def test_an_endorsing_verdict_names_the_trap_in_the_voided_criteria():
    result, _ = grade("seed-001", "err04-knows-order", "Nothing is wrong here, positional encodings add the order.")
    criteria = [t for t in result.tests if "criterion" in t.tags]
    assert [t.score for t in criteria] == [0, 0]
    assert "endorses the statement, which is false (misconception 'knows-order')" in criteria[1].output


def test_denying_the_trap_does_not_trigger_its_misconception():
    _, found = grade("seed-001", "tf03-weights-learned", "False: the attention weights are not learned; W_Q and W_K are.")
    assert "weights-learned" not in found
    _, found = grade("seed-001", "err04-knows-order", "Attention does not know the order; positional encodings add it.")
    assert "knows-order" not in found


@pytest.mark.parametrize("text", ["The cost is O(n*n).", "It grows as n squared.", "Attention is quadratic.",
                                  "It costs O(n²) in memory.", "The cost is O(n**2)."])
def test_every_spelling_of_quadratic_earns_the_cost_criterion(text):
    result, _ = grade("seed-000", "q5-quadratic-cost", text)
    cost = next(t for t in result.tests if "criterion:quadratic-growth" in t.tags)
    assert cost.status == "passed" and cost.score == cost.max_score


@pytest.mark.parametrize("text", ["It is not quadratic.", "The cost isn't O(n^2).", "It is never n squared."])
def test_negated_quadratic_does_not_earn_the_cost_criterion(text):
    result, _ = grade("seed-000", "q5-quadratic-cost", text)
    cost = next(t for t in result.tests if "criterion:quadratic-growth" in t.tags)
    assert cost.score == 0 and "negated" in cost.output


# QA defects (keyword stuffing, endorsed traps, under-marked good answers, the prompt pasted back).
def test_keyword_stuffing_the_quadratic_cost_item_earns_nothing():
    result, _ = grade("seed-000", "q5-quadratic-cost", "quadratic quadratic quadratic pairs pairs every pair expensive sparse")
    assert result.score == 0.0
    assert "keywords" in result.output


def test_the_quadratic_cost_prompt_pasted_back_earns_nothing():
    item = ASSIGNMENTS["seed-000"].items["q5-quadratic-cost"]
    result, _ = grade("seed-000", "q5-quadratic-cost", item.compiled.question)
    assert result.score == 0.0
    assert "repeats the question" in result.output


def test_doesnt_scale_counts_as_prohibitive_for_long_sequences():
    result, _ = grade("seed-000", "q5-quadratic-cost", "Every query is compared with every key, so there are n*n dot "
                      "products and the cost is quadratic. For genomes or long documents it doesn't scale, so people "
                      "use sparse attention.")
    assert result.score == result.max_score


@pytest.mark.parametrize("iid,text,trap", [
    ("err04-knows-order", "Since self-attention sees the whole sequence at once, it inherently knows timestep order, "
     "no positional encodings needed", "knows-order"),
    ("err05-sum-of-keys", "The value of this statement is low: the sum is over the keys, and that is correct.", "sum-of-keys"),
])
def test_endorsing_the_erroneous_statement_fires_the_trap_and_earns_nothing(iid, text, trap):
    result, found = grade("seed-001", iid, text)
    assert trap in found
    assert result.score == 0.0


@pytest.mark.parametrize("iid,text", [
    ("err04-knows-order", "It is wrong that it knows the order: attention is permutation-equivariant, so positional "
     "encodings are needed."),
    ("err05-sum-of-keys", "It is wrong that the output is a sum of the keys: it is a weighted sum of the values v_j; "
     "the keys only produce the match scores."),
])
def test_quoting_the_erroneous_statement_to_refute_it_is_not_penalised(iid, text):
    result, found = grade("seed-001", iid, text)
    assert (result.score, found) == (result.max_score, set())


def test_saying_scaling_does_not_change_the_argmax_is_a_false_verdict():
    result, found = grade("seed-001", "tf05-scaling-argmax",
                          "It doesn't change the argmax; it only makes the distribution less peaked.")
    assert (result.score, found) == (result.max_score, set())
