"""Result records become plain data exactly as dataclasses.asdict makes them (the stored JSON and
the API's key order depend on it), as independent copies."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from grader.results import ItemResult, TestResult


@dataclass
class Span:
    start: int
    end: int


def sample() -> ItemResult:
    tests = [TestResult(name="t1", score=0.5, max_score=0.5, status="passed", output="Passed.",
                        tags=["scaling", "visible"],
                        extra_data={"evidence": [[0, 4], [7, 9]], "pair": (1, 2.5),
                                    "span": Span(3, 5), "nested": {"a": {"b": [None, True]}}}),
             TestResult(name="t2", score=0.0, max_score=0.5, status="failed")]
    return ItemResult(item_id="sdpa", kind="code", score=0.5, max_score=1.0, tests=tests,
                      output="Passed 1 of 2 tests.",
                      extra_data={"problem": "sdpa", "diagnoses": ["scale_by_d_k"],
                                  "pictures": [{"expected": [[0.5, 0.5]], "learner": None}]})


def test_to_dict_equals_asdict_with_the_same_key_order():
    item = sample()
    expected = asdict(item)
    data = item.to_dict()
    assert data == expected
    assert list(data) == list(expected)  # field order, as asdict gives it
    assert list(data["tests"][0]) == list(expected["tests"][0])
    assert data["tests"][0]["extra_data"]["span"] == {"start": 3, "end": 5}  # a dataclass inside
    assert data["tests"][0]["extra_data"]["pair"] == (1, 2.5)  # tuples stay tuples, as in asdict


def test_to_dict_returns_copies_that_do_not_share_containers_with_the_record():
    item = sample()
    data = item.to_dict()
    data["tests"][0]["tags"].append("changed")
    data["tests"][0]["extra_data"]["evidence"][0][0] = 99
    data["extra_data"]["pictures"][0]["expected"][0][0] = 99
    assert item.tests[0].tags == ["scaling", "visible"]
    assert item.tests[0].extra_data["evidence"][0] == [0, 4]
    assert item.extra_data["pictures"][0]["expected"] == [[0.5, 0.5]]


def test_from_dict_round_trips():
    item = sample()
    again = ItemResult.from_dict(item.to_dict())
    assert again.to_dict() == item.to_dict()
