"""Issue 14.7: built-in explanations never call self-attention permutation-invariant. Without
positions it is permutation-equivariant: shuffling the inputs shuffles the outputs the same way
(f(PX) = P f(X)); invariance (f(PX) = f(X)) holds only after pooling over positions."""
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

#: Fields a learner or instructor reads as explanation (rubric concept lists, which match what
#: learners write, are left out: a learner saying "invariant" may be matched and corrected).
READ_FIELDS = {"prompt", "question", "explanation", "options", "description", "feedback", "met",
               "missed", "message", "title", "model_answer", "accepted_explanation"}
SKIP_FIELDS = {"concepts", "any", "all", "phrase", "regex", "synonyms", "pattern", "patterns",
               "triggers", "keywords"}
CONTENT = sorted((ROOT / "rubrics" / "assignments").glob("*.yaml")) + sorted(
    (ROOT / "rubrics" / "text").glob("*.yaml"))


def read_texts(node, key=None):
    """Every string under a field someone reads."""
    if isinstance(node, dict):
        for k, value in node.items():
            if k in SKIP_FIELDS:
                continue
            yield from read_texts(value, k if k in READ_FIELDS else key)
    elif isinstance(node, list):
        for value in node:
            yield from read_texts(value, key)
    elif isinstance(node, str) and key in READ_FIELDS:
        yield node


def invariance_claims(text: str) -> list[str]:
    """Sentences that call attention (permutation-)invariant without saying it is not, or
    describe a shuffled input's output as 'the same output (just rearranged)'."""
    claims = []
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
        lower = sentence.lower()
        if re.search(r"same output\W*\(?just (rearranged|reordered|permuted)", lower):
            claims.append(sentence)
        for match in re.finditer(r"permutation[- ]invarian\w*", lower):
            before = lower[max(0, match.start() - 40):match.start()]
            if not re.search(r"\bnot\b|\bnever\b|\bisn't\b", before):
                claims.append(sentence)
    return claims


def test_the_checker_tells_the_two_apart():
    assert invariance_claims("Self-attention is permutation-invariant: shuffling gives the same "
                             "output (just rearranged).")
    assert invariance_claims("Because attention is permutation-invariant, add ___.")
    assert not invariance_claims("It is permutation-equivariant, not permutation-invariant.")
    assert not invariance_claims("Shuffling the inputs shuffles the outputs the same way.")


@pytest.mark.parametrize("path", CONTENT, ids=lambda p: p.name)
def test_no_built_in_text_calls_attention_permutation_invariant(path: Path):
    claims = [claim for text in read_texts(yaml.safe_load(path.read_text(encoding="utf-8")))
              for claim in invariance_claims(text)]
    assert claims == []


def test_the_choice_item_of_the_issue_explains_equivariance(client):
    """The item the issue quotes (attention-basics, no-positions): its feedback names
    equivariance and says what is invariant (the pooled sentence representation)."""
    sid = client.post("/api/v1/assignments/attention-basics/submissions", json={
        "learner_id": "amy", "responses": {"no-positions": {"choice": "B"}}}).get_json()["id"]
    result = client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()
    [item] = [i for i in result["items"] if i["item_id"] == "no-positions"]
    feedback = " ".join([item["output"]] + [t["output"] for t in item["tests"]])
    assert "permutation-equivariant, not permutation-invariant" in " ".join(feedback.split())
    assert "just rearranged" not in feedback
