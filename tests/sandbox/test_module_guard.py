"""The runner's module guard: what a learner's code rebinds, adds or deletes in the modules the
runner reports through is put back after every call, whether the guard sees changes through
CPython's dict version tags or by comparing every binding."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from grader.sandbox import Call, Limits

SANDBOX_DIR = Path(__file__).resolve().parents[2] / "grader" / "sandbox"
sys.path.insert(0, str(SANDBOX_DIR))
import runner  # noqa: E402  (the file the sandbox runs, imported as the server imports it)

sys.path.remove(str(SANDBOX_DIR))


@pytest.fixture(params=["version tags", "full comparison"])
def guard(request, monkeypatch):
    if request.param == "full comparison":
        monkeypatch.setattr(runner, "_VERSION_TAG", None)
    elif runner._VERSION_TAG is None:
        pytest.skip("this interpreter has no dict version tags (CPython 3.11 only)")
    guard = runner.ModuleGuard()
    guard.arm()
    return guard


def test_the_version_tag_reader_works_on_this_interpreter():
    if sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython":
        assert runner._VERSION_TAG is None
        return
    tag = runner._VERSION_TAG
    namespace = {"a": 1}
    before = tag(namespace).value
    namespace["a"] = 1.0  # rebinding to another object, even an equal one, is a change
    assert tag(namespace).value != before
    unchanged = tag(namespace).value
    _ = namespace["a"], list(namespace.items())  # reading is not
    assert tag(namespace).value == unchanged


def test_rebound_added_and_deleted_names_are_put_back(guard):
    dumps, pack = json.dumps, sys.modules["struct"].pack
    try:
        json.dumps = lambda *args, **kwargs: "forged"
        json.extra_name = 1
        del sys.modules["struct"].pack
        guard.restore()
        assert json.dumps is dumps and not hasattr(json, "extra_name")
        assert sys.modules["struct"].pack is pack
        # and again after a second change (the guard re-arms itself after a restore)
        json.dumps = None
        guard.restore()
        assert json.dumps is dumps
    finally:
        json.dumps = dumps
        sys.modules["struct"].pack = pack
        if hasattr(json, "extra_name"):
            del json.extra_name


def test_a_name_deleted_and_added_again_in_another_order_is_put_back(guard):
    names = list(vars(json))
    dumps = json.dumps
    try:
        del json.dumps
        json.dumps = dumps  # same object, but now the last key
        assert list(vars(json)) != names
        guard.restore()
        assert list(vars(json)) == names
    finally:
        json.dumps = dumps


def test_learner_monkeypatching_does_not_break_the_reporting_of_later_calls(sandbox):
    """Call 1 rebinds names the runner reports through (json.dumps, builtins.len, numpy's
    asarray); calls 2 and 3 are still reported with their exact values."""
    source = (
        "import builtins, json\n"
        "import numpy as np\n"
        "def f(x, sabotage):\n"
        "    if sabotage:\n"
        "        json.dumps = lambda *a, **k: 'garbage'\n"
        "        builtins.len = lambda obj: -1\n"
        "        np.asarray = None\n"
        "    return x * 2\n"
    )
    calls = [Call(test="t1", function="f", args=(np.arange(3.0), True)),
             Call(test="t2", function="f", args=(np.ones((2, 2)), False)),
             Call(test="t3", function="f", args=(np.array([0.5]), False))]
    result = sandbox.run(source, calls, Limits())
    assert result.status == "ok", result.message
    assert [c.status for c in result.calls] == ["ok", "ok", "ok"]
    assert np.array_equal(result.calls[0].value, [0.0, 2.0, 4.0])
    assert np.array_equal(result.calls[1].value, np.full((2, 2), 2.0))
    assert np.array_equal(result.calls[2].value, [1.0])
