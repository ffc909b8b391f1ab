"""The README's request bodies are generated from the files beside them and must stay current."""
import json
import runpy

from tests.conftest import EXAMPLES


def test_example_bodies_match_their_sources():
    make = runpy.run_path(str(EXAMPLES / "make_examples.py"))
    for name, spec in make["BODIES"].items():
        assert json.loads((EXAMPLES / name).read_text()) == make["build"](spec), name
