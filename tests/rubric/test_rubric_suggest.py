"""Paraphrases the rubric did not foresee: phrases of under-marked answers that no criterion
matched, and WordNet suggestions read offline from Debian's wordnet-base files."""
import json

import pytest

from grader.rubric import compile_rubric, trial_report
from grader.rubric.suggest import load_wordnet, rubric_words, unmatched_phrases, wordnet_suggestions

POP = compile_rubric({
    "question": "What does pop do?", "max_points": 5,
    "criteria": [{"id": "remove-top", "description": "removes the top element", "points": 5,
                  "concepts": ["remove top"]}]})

# Hand-made trial, max 5, tolerance 1: #0-#2 are marked high (>= 2.5) but earn 0 (they say
# "deletes", the rubric says "remove"): the under-marked ones. #3 matches. #4 (mark 0) is low-marked.
RESPONSES = [
    {"id": "a", "text": "It deletes the top item.", "mark": 5},
    {"id": "b", "text": "pop deletes the newest item", "mark": 5},
    {"id": "c", "text": "Deletes the last item pushed.", "mark": 4},
    {"id": "d", "text": "It will remove the top item.", "mark": 5},
    {"id": "e", "text": "No idea, some item.", "mark": 0},
]


def scored(rubric, responses):
    return [r["text"] for r in responses], [r["id"] for r in responses], \
        [rubric.score(r["text"]) for r in responses], [float(r["mark"]) for r in responses]


def test_phrases_of_under_marked_answers_are_counted_against_low_marked_ones():
    texts, ids, results, marks = scored(POP, RESPONSES)
    section = unmatched_phrases(POP, texts, ids, results, marks, tolerance=1.0)
    assert (section["under_marked"], section["low_marked"]) == (3, 1)
    # content words of #0-#2: (delet, top, item), (pop, delet, newest, item), (delet, last, item, push).
    # "deletes" is in all three and in no low-marked answer; "item" is in all three but also in the
    # low-marked #4 (share 1/1 >= 3/3), so it is no paraphrase of the missing point; every other
    # n-gram occurs once; "pop" is a question word.
    assert section["phrases"] == [
        {"phrase": "deletes", "count": 3, "low_marked_count": 0, "in_rubric": False,
         "responses": ["a", "b", "c"]}]


def test_words_a_criterion_used_as_evidence_are_not_listed():
    rubric = compile_rubric({
        "question": "What does pop do?", "max_points": 4,
        "criteria": [{"id": "top", "description": "the top element", "points": 1, "concepts": ["top"]},
                     {"id": "remove", "description": "removes it", "points": 3, "concepts": ["remove"]}]})
    responses = [{"id": i, "text": "It deletes the top element.", "mark": 4} for i in range(2)]
    texts, ids, results, marks = scored(rubric, responses)
    phrases = unmatched_phrases(rubric, texts, ids, results, marks, tolerance=0.8)["phrases"]
    # content words: delet, top, element. "top" is criterion 'top''s evidence, so it is cut out and
    # no n-gram spans it: only "deletes" and "element" remain, 2 answers each (no low-marked
    # answers to contrast with), listed in key order at equal counts
    assert [(p["phrase"], p["count"]) for p in phrases] == [("deletes", 2), ("element", 2)]


def test_rubric_words_expand_synonyms_and_skip_wildcards_and_stop_words():
    doc = compile_rubric({
        "question": "q?", "max_points": 1,
        "synonyms": {"take": ["remove*", "take away"]},
        "criteria": [{"id": "c", "description": "d", "points": 1,
                      "concepts": [{"all": ["@take the top-most", {"not": "push"}]}, {"regex": "x+"}]}]}).doc
    assert rubric_words(doc) == {"c": ["take", "away", "top", "most"]}


WORDNET = load_wordnet()


def test_wordnet_is_read_from_debians_files_with_the_lexnames_shim():
    assert WORDNET is not None, "WordNet missing: scripts/install-system-deps.sh installs wordnet-base"
    # the lexicographer file numbers in Debian's data files resolve through the shimmed lexnames:
    # dog.n.01 is in file 05 (noun.animal), run.v.01 in 38 (verb.motion)
    assert WORDNET.synset("dog.n.01").lexname() == "noun.animal"
    assert WORDNET.synset("run.v.01").lexname() == "verb.motion"
    assert WORDNET.get_version() == "3.0"


def test_wordnet_suggests_the_word_under_marked_answers_use_instead():
    texts, ids, results, marks = scored(POP, RESPONSES)
    section = wordnet_suggestions(POP, texts, results, marks, tolerance=1.0, wordnet=WORDNET)
    assert section["available"] is True
    # WordNet 3.0: delete.v.01 ("remove or make invisible") is a hyponym of remove.v.01, the 2nd
    # sense of "remove"; #0-#2 all say "deletes" and none met the criterion
    assert section["used"][0] == {
        "criterion": "remove-top", "rubric_word": "remove", "answer_phrase": "delete",
        "relation": "narrower", "sense": "delete.v.01: remove or make invisible", "count": 3}
    remove = [a for a in section["alternatives"] if a["word"] == "remove"]
    assert remove and "withdraw" in remove[0]["alternatives"]  # remove.v.01's synonyms no answer used


def test_without_wordnet_the_trial_works_and_says_suggestions_are_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_WORDNET_DIR", str(tmp_path))  # an empty folder: no database files
    report = trial_report(POP, RESPONSES)
    assert report["suggestions"]["available"] is False
    assert "suggestions are unavailable" in report["suggestions"]["reason"]
    assert report["unmatched_phrases"]["phrases"][0]["phrase"] == "deletes"
    assert report["agreement"]["n"] == 5


def test_the_engine_never_adds_a_suggestion_by_itself():
    before = POP.score("It deletes the top item.").points
    trial_report(POP, RESPONSES)
    assert POP.score("It deletes the top item.").points == before == 0.0


def test_trial_over_the_api_has_every_section(client):
    doc = {"id": "pop", "question": "What does pop do?", "max_points": 3,
           "criteria": [{"id": "remove-top", "description": "removes the top element", "points": 3,
                         "concepts": ["remove top"]}]}
    assert client.post("/api/v1/rubrics", json=doc).status_code == 201
    report = client.post("/api/v1/rubrics/pop/trial", json={"responses": RESPONSES, "max_mark": 5}).get_json()
    assert report["tolerance"] == 0.6 and '"tolerance": 0.6' in json.dumps(report)
    assert report["calibration"]["n"] == 5
    assert report["calibration"]["reason"].startswith("5 marked responses")
    assert report["unmatched_phrases"]["phrases"][0]["count"] == 3
    assert report["suggestions"]["used"][0]["answer_phrase"] == "delete"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_trial_from_the_command_line_prints_the_sections(tmp_path, fmt):
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    rubric = tmp_path / "pop.yaml"
    rubric.write_text(yaml.safe_dump(POP.doc))
    marked = tmp_path / "marked.json"
    marked.write_text(json.dumps(RESPONSES + [{"text": "It will remove the top.", "mark": 4}]))
    grader = str(Path(sys.executable).parent / "grader")
    args = [grader, "rubric", "trial", str(rubric), str(marked)] + (["--json"] if fmt == "json" else [])
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    if fmt == "json":
        assert json.loads(out.stdout)["calibration"]["n"] == 6
    else:
        assert "suggested map (linear); to apply it, add to the rubric's next version:" in out.stdout
        assert '  3 x "deletes" (low-marked: 0)' in out.stdout
        assert 'answers say "delete" where criterion remove-top says "remove"' in out.stdout
