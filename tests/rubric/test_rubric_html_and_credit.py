"""Issue 12, part 4 (text as typed in an LMS: HTML decoded before matching, evidence in the typed
text) and part 5 (partial credit in the language: k of n concepts, weights per alternative, base
credit for an on-topic answer, near misses)."""
from __future__ import annotations

import pytest

from grader.rubric import compile_rubric
from grader.rubric.analysis import analyse, decode_html

STRICT = {"base": 0, "near_miss": 0}


def rubric(*criteria, question="Why is the dot product scaled?", credit=None, **extra):
    doc = {"question": question, "max_points": sum(c["points"] for c in criteria), "criteria": list(criteria),
           **extra}
    if credit is not None:
        doc["credit"] = credit
    return compile_rubric(doc)


def crit(cid, points, *concepts, **options):
    return {"id": cid, "description": cid, "points": points, "concepts": list(concepts), **options}


# -- part 4: HTML -------------------------------------------------------------------------------------
@pytest.mark.parametrize("typed,plain", [
    ("weights &lt;= 1 &amp; sum to one", "weights <= 1 & sum to one"),
    ("divide by &#8730;d<sub>k</sub>", "divide by √d_k"),
    ("divide by &radic;d_k", "divide by √d_k"),
    ("cost O(n<sup>2</sup>)", "cost O(n^2)"),
    ("<p>first</p><p>second</p>", "\nfirst\n\nsecond\n"),
    ("<b>soft</b>max", "softmax"),
    ("if i<n and j>0", "if i<n and j>0"),     # not a tag
    ("AT&T", "AT&T"),                           # not a character reference
])
def test_html_entities_and_simple_tags_are_decoded(typed, plain):
    assert decode_html(typed)[0] == plain


def test_html_answer_matches_and_its_evidence_points_into_the_typed_text():
    r = rubric(crit("scale", 2, {"phrase": "divid* sqrt(d_k)", "gap": 2}), crit("cost", 1, "n^2"), credit=STRICT)
    typed = "<p>We divide the scores by &#8730;d<sub>k</sub>.</p><p>Cost: n<sup>2</sup></p>"
    result = r.score(typed)
    assert result.points == 3.0
    spans = [typed[s:e] for s, e in result.criteria[0].evidence]
    assert spans == ["divide", "&#8730;d<sub>k"]
    assert [typed[s:e] for s, e in result.criteria[1].evidence] == ["n<sup>2"]


def test_html_sentence_breaks_end_phrases_and_entities_reach_regexes():
    r = rubric(crit("pair", 1, "score matrix"), crit("bound", 1, {"regex": r"<=\s*1\b"}), credit=STRICT)
    assert r.score("a score<br>matrix").criteria[0].met is False      # <br> ends the sentence
    assert r.score("a score <b>matrix</b>").criteria[0].met is True
    result = r.score("each weight is &lt;= 1")
    assert result.criteria[1].met and [("each weight is &lt;= 1"[s:e]) for s, e in result.criteria[1].evidence] \
        == ["1"]


def test_html_offsets_map_every_content_token_back():
    typed = "x &amp; <i>keys</i> &gt; values"
    a = analyse(typed)
    assert [typed[s:e] for s, e in a.span] == ["x", "keys", "values"]


# -- part 5: k of n concepts ---------------------------------------------------------------------------
def test_k_of_n_concepts_with_partial_credit():
    # require 2 of 3 concepts; partial: one of them earns 1/2 of the 4 points
    r = rubric(crit("why", 4, "variance", "saturat*", "gradient*", require=2, partial=True), credit=STRICT)
    assert r.score("the variance grows").points == 2.0
    assert r.score("the variance grows and softmax saturates").points == 4.0
    assert r.score("variance, saturation and gradients").points == 4.0   # more than k: still 4


# -- part 5: weights per alternative ---------------------------------------------------------------------
def test_weights_per_alternative():
    # "unlimited" earns the 4 points, "many" half of them, "several" a quarter
    r = rubric(crit("number", 4, {"any": ["unlimited|infinite", {"phrase": "many", "weight": 0.5},
                                          {"phrase": "several", "weight": 0.25}]}),
               question="How many constructors can a class have?", credit=STRICT, defaults={})
    assert r.score("an unlimited number").points == 4.0
    assert r.score("as many as you like").points == 0.0        # "many" is a question word: discounted
    assert r.score("several of them").points == 1.0
    assert r.score("several, in fact an infinite number").points == 4.0  # the best alternative counts


def test_weights_in_an_all_group_take_the_smallest():
    r = rubric(crit("both", 2, {"all": [{"phrase": "keys", "weight": 0.5}, "values"]}), credit=STRICT)
    assert r.score("keys and values").points == 1.0


# -- part 5: base credit for an on-topic answer ----------------------------------------------------------
def test_base_credit_for_an_on_topic_answer():
    # 3 criteria of 1 point; "variance" meets one; the answer is on topic, so it earns 0.3 of the 2
    # missed points: 1 + 0.6 = 1.6
    r = rubric(crit("var", 1, "variance grows"), crit("sat", 1, "saturat*"), crit("grad", 1, "small gradient*"))
    assert r.score("Its variance grows with the dimension.").points == 1.6
    # no criterion met, but "gradients" is one of the two words of "small gradient*": a near miss
    # of 1 x 0.5 x 1/2 = 0.25; on topic, so 0.3 of the other 2.75 points: 0.25 + 0.825 = 1.075
    assert r.score("The gradients of the dot product vanish.").points == 1.075
    # off topic, or only the question's own words, or empty: nothing
    assert r.score("I like turtles very much indeed.").points == 0.0
    assert r.score("The dot product is scaled.").points == 0.0
    assert r.score("").points == 0.0


def test_base_credit_is_tunable_and_never_added_to_a_misconception():
    doc = dict(question="Why is the dot product scaled?", max_points=2,
               criteria=[crit("var", 1, "variance grows"), crit("sat", 1, "saturat*")],
               misconceptions=[{"id": "dk", "patterns": ["divid* d_k"], "penalty": 0.5, "message": "sqrt(d_k)"}])
    assert compile_rubric({**doc, "credit": {"base": 0.5}}).score("the variance grows").points == 1.5
    assert compile_rubric({**doc, "credit": {"base": 0}}).score("the variance grows").points == 1.0
    # a misconception: no base credit, and its penalty: 1 - 0.5
    assert compile_rubric(doc).score("the variance grows, so divide by d_k").points == 0.5


# -- part 5: near misses -----------------------------------------------------------------------------------
def test_a_near_miss_earns_part_of_a_criterion():
    # "weights sum to one": both words of "weights sum" are there but 4 words apart (gap 0): a near
    # miss of 2/2 words earns near_miss (0.5) of the 2 points = 1; the base credit adds nothing more
    # on the criterion but 0.3 of the missed 1 point: 1.3
    r = rubric(crit("sum", 2, "weights sum"), question="What does softmax guarantee?")
    result = r.score("The weights, after the softmax, sum to one.")
    assert (result.criteria[0].credit, result.criteria[0].points) == ("near_miss", 1.0)
    assert result.points == 1.3
    assert result.criteria[0].feedback.startswith('Partly there: your answer touches on this ("weights"; "sum")')


def test_a_near_miss_needs_half_the_words_and_keeps_negations():
    r = rubric(crit("none", 2, {"phrase": "no|not constructor* defin*", "gap": 2}), credit={"base": 0},
               question="When does C++ create a default constructor?")
    # 2 of 3 words but not the negation: no near miss ("a constructor is defined" says the opposite)
    assert r.score("when a constructor is defined elsewhere").points == 0.0
    # all three words, but too far apart and out of order: 0.5 x 2 x 3/3 = 1
    assert r.score("when no one, ever, in the whole program, defines a constructor").points == 1.0
    # the negation and a question word only ("constructor"): nothing of the answer's own
    assert r.score("when no one, ever, in the whole program, has a constructor").points == 0.0
    # one word of three: nothing
    assert r.score("the constructor").points == 0.0


# -- issue 22 item 5: base credit does not reward a wrong answer --------------------------------
ROWS = {
    "question": "Is the softmax in attention taken over the rows or the columns of the score matrix?",
    "max_points": 3,
    "criteria": [{"id": "rows", "description": "over each row (one query's scores)", "points": 3,
                  "concepts": [{"phrase": "each|every row*", "gap": 1}]}],
}


@pytest.mark.parametrize("answer, points", [
    ("Over each row: every query's scores become weights that sum to one.", 3),
    # on topic in the question's terms, but the option the criteria do not credit: no base credit,
    # and no near miss for "each" (it was 0.5 of the words: 0.5 * 0.5 * 3 = 0.75, plus 0.3 * 2.25)
    ("Over the columns, so that each column of weights sums to one.", 0),
    ("columns", 0),
    # on topic and no option picked: base credit 0.3 of the 3 points it missed
    ("The softmax turns the scores into weights that add up to one.", 0.9),
    # the credited option without the criterion's wording: base credit as before
    ("over the rows, turning scores into probabilities that add to one", 0.9),
])
def test_base_credit_does_not_reward_the_option_the_rubric_does_not_credit(answer, points):
    assert compile_rubric(ROWS).score(answer).points == pytest.approx(points)
