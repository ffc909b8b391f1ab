"""Issue 14.3: the OpenAPI document describes an assignment item with one schema per kind and a
discriminator on ``kind`` (it was an empty object), and those schemas agree with what the kinds
accept."""
import pytest
import yaml

from grader.api.item_schemas import READ, SENT
from grader.items import kinds
from tests.conftest import ROOT


@pytest.fixture
def spec(client):
    return client.get("/api/v1/openapi.json").get_json()


@pytest.mark.parametrize("component,names", [
    ("AssignmentDocument", {"code": "CodeItem", "text": "TextItem", "choice": "ChoiceItem"}),
    ("AssignmentPatch", {"code": "CodeItem", "text": "TextItem", "choice": "ChoiceItem"}),
    ("Assignment", {"code": "CodeItemView", "text": "TextItemView",
                    "choice": "ChoiceItemView"})])
def test_items_are_one_schema_per_kind_with_a_discriminator(spec, component, names):
    items = spec["components"]["schemas"][component]["properties"]["items"]["items"]
    refs = {kind: f"#/components/schemas/{name}" for kind, name in names.items()}
    assert items["discriminator"] == {"propertyName": "kind", "mapping": refs}
    assert items["oneOf"] == [{"$ref": ref} for ref in refs.values()]
    for kind, name in names.items():
        schema = spec["components"]["schemas"][name]
        assert schema["properties"]["kind"]["enum"] == [kind]
        assert {"id", "kind", "points"} <= set(schema["properties"])
        if component != "Assignment":
            assert "kind" in schema["required"] and schema["additionalProperties"] is False


def test_every_registered_kind_has_a_sent_and_a_read_schema():
    assert set(SENT) == set(READ) == set(kinds())


@pytest.mark.parametrize("kind", list(kinds()))
def test_each_sent_schema_lists_exactly_the_fields_its_kind_accepts(kind):
    assert set(SENT[kind][1]._declared_fields) == kinds()[kind].allowed_fields


def test_the_built_in_items_fit_their_documented_schema():
    """Every item of every built-in assignment loads under its kind's schema (the documentation
    describes real content), and the view of each kind lists what the API returns."""
    count = 0
    for path in sorted((ROOT / "rubrics" / "assignments").glob("*.yaml")):
        for item in yaml.safe_load(path.read_text())["items"]:
            SENT[item["kind"]][1]().load(item)
            count += 1
    assert count >= 20


#: View fields shown only when they apply (a text item's max_words: when its rubric sets one).
OPTIONAL_VIEW_FIELDS = {"max_words", "contract_options"}  # shown only when an item has them


def test_the_documented_views_cover_what_the_api_shows(client):
    for assignment in ("attention-basics", "attention-code"):
        for item in client.get(f"/api/v1/assignments/{assignment}").get_json()["items"]:
            declared = set(READ[item["kind"]][1]._declared_fields)
            assert declared - OPTIONAL_VIEW_FIELDS <= set(item) <= declared, item["kind"]
