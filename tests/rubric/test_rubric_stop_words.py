"""A rubric keeps a stop word it writes on purpose (issue 22 item 6): ``'has'`` (quoted) must come
right before the next word of the phrase; unquoted, stop words are ignored on both sides as
before. All-or-nothing credit: each expected score is the criteria met."""
import pytest

from grader.rubric import RubricError, compile_rubric


def one(concept):
    return compile_rubric({"question": "Why does the penny sink?", "max_points": 1,
                           "credit": {"base": 0, "near_miss": 0},
                           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": [concept]}]})


@pytest.mark.parametrize("concept, answer, points", [
    ("penny 'has' more mass", "the penny has more mass", 1),
    ("penny 'has' more mass", "The penny, which is small, has more mass", 0),  # a comma between
    ("penny 'has' more mass", "the penny is more mass", 0),
    ("penny 'has' more mass", "the penny more mass", 0),
    ('penny "has" more mass', "the penny has more mass", 1),                  # either quote
    ("penny 'has|had' more mass", "the penny had more mass", 1),              # alternatives
    ("penny 'has|had' more mass", "the penny gets more mass", 0),
    ("penny 'has' more mass", "the penny, it has more mass", 0),
    # unquoted, a stop word is ignored on both sides, as before
    ("penny has more mass", "the penny more mass", 1),
    ("penny has more mass", "the penny is more mass", 1),
])
def test_a_quoted_stop_word_is_required(concept, answer, points):
    assert one(concept).score(answer).points == points


def test_a_kept_stop_word_needs_a_word_after_it_and_an_unquoted_alternative_says_how_to_keep_it():
    with pytest.raises(RubricError, match=r"quoted stop word\(s\) has in \"penny 'has'\" need a word"):
        one("penny 'has'")
    with pytest.raises(RubricError, match=r"alternative 'has' in .* is a stop word and never matches; "
                                          r"quote it \('has'\) to keep it"):
        one("penny has|gets more mass")
