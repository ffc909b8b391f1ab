"""Only NumPy and the standard library can be imported by learner code, whatever it does to
sys.path (issue 20, part 4): the sandbox binds no other package (every folder of installed
packages of the bound Python installations is covered by an empty one), and its import rule says
so in a sentence that names the module and the rule. An item may allow more (``limits.imports``);
what one item allows is covered again for every other item's jobs on the same warm server.
(payloads/import_host_packages.py tries the host's folders in the common attack suite.)"""
from __future__ import annotations

import pytest

from grader.sandbox import Call, Limits
from tests.hostile.payload_support import LIMITS

DEFAULT_RULE = "this item's code may import only NumPy and the Python standard library"

AT_IMPORT = "import {name}\ndef f():\n    return 1.0\n"
IN_A_CALL = "def f():\n    import {name}\n    return 1.0\n"
# The rule removed and the host's folders appended: what is left is the mount namespace.
AROUND_THE_RULE = """
import glob, sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "ImportRule"]
sys.path += glob.glob(sys.base_prefix + "/lib*/python3*/*-packages") + glob.glob("/sandbox/extra/*")
sys.path += glob.glob("/usr/lib/python3*/*-packages") + glob.glob("/usr/local/lib/python3*/*-packages")
def f():
    import {name}
    return 1.0
"""
SCIPY = "import scipy.special\ndef f():\n    return float(scipy.special.expit(0.0))\n"


@pytest.mark.parametrize("name", ["scipy", "requests", "flask", "boto3"])
def test_an_import_at_import_time_is_refused_with_the_module_and_the_rule(hostile_sandbox, name):
    result = hostile_sandbox.run(AT_IMPORT.format(name=name), [Call("t", "f")], LIMITS)
    assert result.status == "import_error", (result.status, result.message)
    assert f"ModuleNotFoundError: import of '{name}' refused: {DEFAULT_RULE}" in result.message
    assert result.line == 1


def test_an_import_in_a_call_is_refused_the_same_way(hostile_sandbox):
    result = hostile_sandbox.run(IN_A_CALL.format(name="scipy.linalg"), [Call("t", "f")], LIMITS)
    assert result.status == "ok"
    assert result.calls[0].status == "exception"
    assert result.calls[0].error.startswith(
        f"ModuleNotFoundError: import of 'scipy' refused: {DEFAULT_RULE} (line 2 of your code)")


@pytest.mark.parametrize("name", ["scipy", "requests", "yaml"])
def test_without_the_rule_the_sandbox_has_no_package_to_import(hostile_sandbox, name):
    result = hostile_sandbox.run(AROUND_THE_RULE.format(name=name), [Call("t", "f")], LIMITS)
    assert result.status == "ok", result.message
    assert result.calls[0].error.startswith(f"ModuleNotFoundError: No module named '{name}'")


def test_an_item_may_allow_a_package_and_what_it_requires(hostile_sandbox):
    allowed = Limits.from_dict({"wall_seconds": 5.0, "imports": ["scipy"]})
    result = hostile_sandbox.run(SCIPY, [Call("t", "f")], allowed)
    assert result.status == "ok", result.message
    assert (result.calls[0].status, result.calls[0].value) == ("ok", 0.5)
    other = hostile_sandbox.run(AT_IMPORT.format(name="requests"), [Call("t", "f")], allowed)
    assert "import of 'requests' refused: this item's code may import only NumPy, the Python " \
           "standard library and scipy" in other.message
    requests = Limits.from_dict({"imports": ["requests"]})  # urllib3, idna ... come with it
    result = hostile_sandbox.run("import requests, urllib3, idna\ndef f():\n    return 1.0\n",
                                 [Call("t", "f")], requests)
    assert result.status == "ok", result.message


def test_what_one_item_allows_the_next_items_jobs_cannot_import(hostile_sandbox):
    allowed = Limits.from_dict({"wall_seconds": 5.0, "imports": ["scipy"]})
    assert hostile_sandbox.run(SCIPY, [Call("t", "f")], allowed).calls[0].value == 0.5
    restarts = hostile_sandbox.restarts
    refused = hostile_sandbox.run(SCIPY, [Call("t", "f")], LIMITS)
    assert f"import of 'scipy' refused: {DEFAULT_RULE}" in refused.message
    around = hostile_sandbox.run(AROUND_THE_RULE.format(name="scipy"), [Call("t", "f")], LIMITS)
    assert around.calls[0].error.startswith("ModuleNotFoundError: No module named 'scipy'")
    assert hostile_sandbox.restarts == restarts  # the same warm server, its binds covered
    # ... and the item that allows it still imports it on that server
    assert hostile_sandbox.run(SCIPY, [Call("t", "f")], allowed).calls[0].value == 0.5


@pytest.mark.parametrize("imports, reason", [
    (["scipyy"], "no package provides the module 'scipyy'"),
    (["json"], "'json' is always importable"),
    (["numpy"], "'numpy' is always importable"),
    (["grader"], "'grader' is part of the grader itself"),
    (["scipy.linalg"], "'scipy.linalg' is not a top-level module name"),
    ("scipy", "must be a list of top-level module names"),
])
def test_imports_an_item_cannot_have_are_refused_naming_the_field(imports, reason):
    with pytest.raises(ValueError, match=r"^limits\.imports: ") as error:
        Limits.from_dict({"imports": imports})
    assert reason in str(error.value)
