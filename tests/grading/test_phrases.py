"""The common phrases of low-scoring answers: shared by at least two of them, more common among
them than among the others, shown as written."""
from grader.grading.phrases import low_score_phrases


def test_a_phrase_every_answer_uses_says_nothing():
    low = ["The heads average the values.", "Heads average the values, so nothing is learned.",
           "the softmax is over rows"]
    others = ["Several heads attend to different patterns; the softmax is over rows."]
    assert low_score_phrases(low, others) == [
        {"phrase": "heads average the values", "learners": 2, "others": 0}]


def test_one_answer_is_not_a_pattern_and_case_and_stems_merge():
    low = ["Scaling stops the gradients exploding", "scaling stopped the gradient explosion",
           "A unique sentence here"]
    assert low_score_phrases(low, []) == [
        {"phrase": "scaling stops the gradients", "learners": 2, "others": 0}]


def test_long_answers_are_read_up_to_the_cap():
    filler = "word " * 2000
    low = [filler + "late phrase here", filler + "late phrase here"]
    assert low_score_phrases(low, []) == [{"phrase": "word word word", "learners": 2,
                                           "others": 0}]
