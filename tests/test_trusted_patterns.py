"""Every regular expression of the trusted side is linear in its input (issue 20, item 1).

The patterns are found, not listed (:mod:`grader.redos.discovery`): a new one in any ``grader``
module is measured here without editing this file, and one built at run time inside a function
fails :func:`test_patterns_built_at_run_time_are_registered_with_how_they_are_covered` until
``DYNAMIC_SITES`` says how it is covered. Each runs on adversarial strings
(:mod:`grader.redos.attack`: long digit runs, nested brackets, repeated separators, 64 KiB of one
character, the issue's reshape message, strings pumped from the pattern's own repeats), and its
cost on 64 KiB is compared with 64 times its cost on 1 KiB: a ratio, never milliseconds, so a
busy machine passes as a quiet one does. A linear pattern gives about 1, a quadratic one 64; an
exponential one hits a CPU-time alarm instead of hanging the suite.
"""
from __future__ import annotations

import re
import textwrap

import pytest

from grader.api.schemas import HTTP_URL
from grader.jsontext import _TOKENS
from grader.lti.registration import PlatformCreateSchema
from grader.problems import disclosure
from grader.redos import attack, discovery, growth
from grader.redos.discovery import DYNAMIC_SITES, Found
from grader.sandbox import wire

FOUND = discovery.trusted_patterns()


@pytest.mark.parametrize("found", FOUND, ids=[f.where for f in FOUND])
def test_every_trusted_pattern_is_linear_on_adversarial_strings(found):
    try:
        measured = growth.growth(found)
    except growth.TooSlow as exc:
        pytest.fail(f"{exc} (exponential?); the static check says: "
                    f"{growth.static_problem(found)}")
    assert measured.linear, (
        f"{found.where} {found.pattern.pattern!r}: on {measured.string}, 64 KiB cost "
        f"{measured.ratio:.1f} times what 64 x 1 KiB did (linear: about 1, at most "
        f"{growth.MAX_GROWTH:g}); the static check says: {growth.static_problem(found)}")


def test_every_kind_of_pattern_is_found():
    patterns = {found.pattern.pattern for found in FOUND}
    # a module global, every compiled template of a list, a bytes pattern, a marshmallow
    # validator inside a schema's field, and a literal written inline in a function's call
    assert disclosure._LINE.pattern in patterns
    assert {pattern.pattern for pattern, *_ in disclosure._COMPILED} <= patterns
    assert {pattern.pattern for pattern, _ in disclosure._REWORDED} <= patterns
    assert wire._NPY_HEADER.pattern in patterns
    regexp = next(v for v in PlatformCreateSchema._declared_fields["learner_prefix"].validators
                  if hasattr(v, "regex"))
    assert regexp.regex.pattern == r"^[A-Za-z0-9_.:-]*$" and regexp.regex.pattern in patterns
    assert HTTP_URL._regex(relative=False, absolute=True, require_tld=False).pattern in patterns
    assert r"U\+([0-9A-Fa-f]{4,6})" in patterns  # re.search(...) inline in sandbox.runner
    assert len(FOUND) >= 80


def test_patterns_built_at_run_time_are_registered_with_how_they_are_covered():
    _, sites = discovery.source_patterns()
    # every such call is registered, and every registered call still exists
    assert {site.key for site in sites} == set(DYNAMIC_SITES)


def test_the_source_scan_sorts_calls_into_static_patterns_and_run_time_sites(tmp_path):
    (tmp_path / "sample.py").write_text(textwrap.dedent('''
        import re
        HELD = re.compile(r"held+")           # a module global: found among the globals

        def static(text):
            return re.fullmatch(r"[ab]+c", text, re.IGNORECASE)

        def built(word, text):
            return re.search(rf"{word}+", text)
    '''))
    patterns, sites = discovery.source_patterns(tmp_path)
    assert [(f.pattern.pattern, f.pattern.flags & re.IGNORECASE, f.where) for f in patterns] == \
        [(r"[ab]+c", re.IGNORECASE, "sample.py:6")]
    assert sites == [discovery.Site("sample.py:built", 9)]


# The measurement itself must fail on the patterns this issue replaced (the example and two
# variants of each kind: exponential and quadratic), or the test above proves nothing.
EXPONENTIAL = {
    "the issue's reshape template": r"^cannot\ reshape\ array\ of\ size\ (-?\d+)\ into\ shape\ "
                                    r"(\((?:\s*-?\d+\s*,?)*\s*\))\s*$",
    "nested repeats": r"^(\d+)+$",
    "overlapping alternation in a repeat": r"^(?:a|aa)*$",
}
QUADRATIC = {
    # disclosure._HEADLINE before: .*? then \s*$ rescans the trailing spaces at every step
    "lazy text before trailing spaces": r"^\s*([A-Za-z_][A-Za-z0-9_]*)(?::\s?(.*?))?\s*$",
    # jsontext._TOKENS before: every quote of an unclosed run of escaped quotes rescans the rest
    "unclosed JSON strings": r'"(?:[^"\\]|\\.)*"|-?[0-9]+',
    # disclosure.numbers' split before: every "shape (" without ")" rescans the rest
    "shapes that never close": r"(shapes? \([^)]*\))",
}


@pytest.mark.parametrize("name", list(EXPONENTIAL))
def test_the_measurement_stops_an_exponential_pattern(name):
    with pytest.raises(growth.TooSlow, match="more than 1 CPU-s"):
        growth.growth(Found(re.compile(EXPONENTIAL[name]), name), hang_seconds=1.0)


@pytest.mark.parametrize("name", list(QUADRATIC))
def test_the_measurement_fails_a_quadratic_pattern(name):
    try:
        measured = growth.growth(Found(re.compile(QUADRATIC[name]), name), hang_seconds=2.0)
    except growth.TooSlow:
        return  # so slow on 64 KiB that the alarm stopped it: also a failure of the test above
    assert not measured.linear, measured


def test_the_issue_example_reaches_the_shape_and_the_old_shape_refused_statically():
    example = dict(attack.adversarial(re.compile("x"), 1024))["the issue's example"]
    assert example.startswith("cannot reshape array of size 1 into shape (1111")
    assert example.endswith("1x") and len(example) == 1024
    old = Found(re.compile(r"\((?:\s*-?\d+\s*,?)*\s*\)"), "old _SHAPE")
    assert "can take exponential time" in growth.static_problem(old)  # it does: 2^(n-1)
    assert growth.static_problem(Found(_TOKENS, "jsontext")) is not None  # conservative
    assert growth.growth(Found(_TOKENS, "jsontext")).linear  # the measurement decides
