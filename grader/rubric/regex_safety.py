"""Find regular expressions that can backtrack for exponential or high-polynomial time (ReDoS).

A rubric's regex runs on every answer, so the escape hatch is checked for the catastrophic shapes
(OWASP "Regular expression Denial of Service"; Russ Cox, "Regular Expression Matching Can Be
Simple And Fast", 2007, for ``a?^n a^n``). :func:`regex_hazard` says which, with the reason; an
upload is refused for the exponential ones and warned about the polynomial ones (every search
also runs under the answer's CPU budget), and a rubric stored before a check existed still loads
(issue 22 item 3: the rubric language only grows). The shapes:

- back-references;
- a repeated group (``+``, ``*``, ``{m,n}`` with ``n > 1``) whose body holds a variable repeat
  (``(a+)+``, ``(?:x?){28}``, ``(?:ab?)+``) or an alternation (``(a|aa)*``);
- (polynomial) two variable repeats that can consume the same character, at least one of them able to take
  more than one character, with nothing between them that the first could not also have taken
  (``\\w*\\w*``, ``\\d+\\.?\\d+``, ``[a-z]+\\b\\w*``, ``x{0,28}x{0,28}``, ``a.*b.*c``): the characters
  they share can be split between them in as many ways as their product, and five of them
  (``\\w*\\w*\\w*\\w*\\w*\\d\\b``) made a 2 KB answer take 7.7 s. The look-ahead passes anything
  that can match nothing (``?``-items, ``\\b``, lookarounds) and looks into groups;
- a chain of more than :data:`MAX_OPTIONAL_CHAIN` adjacent optional items that can take the same
  character (``x?x?x?x?x?xxxxx``: ``2^n`` ways to choose which ones match).

The check walks the parse tree of CPython's own regex parser (``re._parser``, ``sre_parse``
before 3.11); the pattern is later compiled with the ``regex`` module (case-insensitive), which is
compatible with it, and every search also runs under the answer's time budget
(:mod:`grader.rubric.budget`), so whatever slips through is still bounded.
"""
from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MAX_REGEX_CHARS = 300
#: Adjacent optional items (``x?``) that share a character: more than this many are refused.
MAX_OPTIONAL_CHAIN = 4
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)}
_ZERO_WIDTH = {C.AT, C.ASSERT, C.ASSERT_NOT}
#: Characters used to decide whether two character sets overlap: ASCII plus representatives of
#: the Unicode letters, digits and spaces that \w, \d and \s also match (patterns run case-insensitively).
_SAMPLE = [chr(i) for i in range(128)] + list("éßΩж中٣²\u00a0\u2003\u2028")


class _Refused(Exception):
    """A hazardous shape; ``kind`` is ``"exponential"`` or ``"polynomial"`` (time in the answer's
    length)."""

    def __init__(self, message: str, kind: str = "exponential"):
        super().__init__(message)
        self.kind = kind


def _in_category(cat, ch: str) -> bool:
    name = str(cat)
    negated = "NOT_" in name
    if "DIGIT" in name:
        hit = ch.isdecimal()
    elif "SPACE" in name:
        hit = ch.isspace()
    elif "WORD" in name:
        hit = ch.isalnum() or ch == "_"
    elif "LINEBREAK" in name:
        hit = ch == "\n"
    else:  # unknown category: assume it matches
        hit = True
    return hit != negated


def _atom_matches(op, av, ch: str) -> bool:
    """Whether a one-character item matches ``ch`` (case-insensitively)."""
    variants = {ch, ch.lower(), ch.upper()}
    if op == C.ANY:
        return True
    if op == C.LITERAL:
        return chr(av) in variants or chr(av).lower() in variants
    if op == C.NOT_LITERAL:
        return not (chr(av) in variants or chr(av).lower() in variants)
    if op == C.CATEGORY:
        return _in_category(av, ch)
    if op == C.IN:
        negate = bool(av) and av[0][0] == C.NEGATE
        hit = False
        for sub_op, sub_av in av[1:] if negate else av:
            if sub_op == C.LITERAL:
                hit = chr(sub_av) in variants or chr(sub_av).lower() in variants
            elif sub_op == C.RANGE or str(sub_op).startswith("RANGE"):
                lo, hi = sub_av
                hit = any(lo <= ord(v) <= hi for v in variants if len(v) == 1)
            elif sub_op == C.CATEGORY:
                hit = _in_category(sub_av, ch)
            if hit:
                break
        return hit != negate
    return True  # unknown single item: assume the worst


def _chars(items) -> frozenset[str]:
    """Every sample character any consuming item of ``items`` can match (lookarounds excluded)."""
    out: set[str] = set()
    for op, av in items:
        if op in _REPEATS:
            out |= _chars(av[2])
        elif op == C.SUBPATTERN:
            out |= _chars(av[-1])
        elif op == C.BRANCH:
            for branch in av[1]:
                out |= _chars(branch)
        elif op in _ZERO_WIDTH or op in (C.GROUPREF, C.GROUPREF_EXISTS):
            continue
        else:
            out.update(ch for ch in _SAMPLE if _atom_matches(op, av, ch))
    return frozenset(out)


def _first_chars(items) -> frozenset[str]:
    """The sample characters a match of ``items`` can start with."""
    out: set[str] = set()
    for op, av in items:
        if op in _ZERO_WIDTH or op in (C.GROUPREF, C.GROUPREF_EXISTS):
            continue
        if op in _REPEATS:
            out |= _first_chars(av[2])
        elif op == C.SUBPATTERN:
            out |= _first_chars(av[-1])
        elif op == C.BRANCH:
            for branch in av[1]:
                out |= _first_chars(branch)
        else:
            out |= _chars([(op, av)])
        if not _nullable([(op, av)]):
            break
    return frozenset(out)


def _nullable(items) -> bool:
    """Whether ``items`` (a sequence) can match the empty string."""
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        if op in _REPEATS:
            if av[0] == 0 or _nullable(av[2]):
                continue
            return False
        if op == C.SUBPATTERN:
            if _nullable(av[-1]):
                continue
            return False
        if op == C.BRANCH:
            if any(_nullable(b) for b in av[1]):
                continue
            return False
        return False
    return True


def _variable(op, av) -> bool:
    return op in _REPEATS and av[0] < av[1]


def _edge_repeats(items, leading: bool) -> list:
    """Variable repeats that can take the first (``leading``) or last character of ``items``,
    looking through items that can match nothing and into groups and alternations."""
    out = []
    seq = list(items) if leading else list(reversed(items))
    for op, av in seq:
        if op in _ZERO_WIDTH:
            continue
        if _variable(op, av):
            out.append((op, av))
        elif op in _REPEATS:
            out.extend(_edge_repeats(av[2], leading))
        elif op == C.SUBPATTERN:
            out.extend(_edge_repeats(av[-1], leading))
        elif op == C.BRANCH:
            for branch in av[1]:
                out.extend(_edge_repeats(branch, leading))
        if not _nullable([(op, av)]):
            break
    return out


def _check_sequence(items, polynomial: bool) -> None:
    """Refuse overlapping repeats in one sequence and long chains of optional items.

    After a variable repeat R, the items it could also have consumed (a mandatory character it
    matches, anything that can match nothing) do not separate it from the next repeat: ``\\w*\\w*``,
    ``\\d+\\.?\\d+`` and ``a.*b.*c`` each leave the characters between two repeats to be split
    in polynomially many ways, and a search tries that from every start position. Those are
    looked for only when ``polynomial`` is true (the exponential shapes are looked for first)."""
    items = list(items)
    for i in range(len(items) - 1 if polynomial else 0):
        for t_op, t_av in _edge_repeats(items[i:i + 1], leading=False):
            t_chars = _chars(t_av[2])
            for nxt in items[i + 1:]:
                for h_op, h_av in _edge_repeats([nxt], leading=True):
                    if max(t_av[1], h_av[1]) > 1 and t_chars & _first_chars(h_av[2]):
                        raise _Refused(
                            "repeats that can match the same characters with nothing required between them "
                            "(\\w*\\w*, \\d+\\.?\\d+, a.*b.*c) can take polynomial time in the answer's "
                            "length; merge them (\\w*), make the part between them something the first "
                            "cannot match, or use an 'all' group with 'within' instead", "polynomial")
                if _nullable([nxt]):
                    continue
                nxt_chars = _chars([nxt])
                if t_av[1] > 1 and nxt_chars and nxt_chars <= t_chars:
                    continue  # the first repeat could have taken it too
                break
    chain: list[frozenset[str]] = []
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        if op in _REPEATS and av[0] == 0 and av[1] == 1:
            chars = _chars(av[2])
            chain = [c for c in chain if c & chars] + [chars]
            if len(chain) > MAX_OPTIONAL_CHAIN:
                raise _Refused(f"more than {MAX_OPTIONAL_CHAIN} adjacent optional items that can match the "
                               "same character (x?x?x?x?x?...) can take exponential time")
        elif not _nullable([(op, av)]):
            chain = []


def _check(parsed, in_repeat: bool, polynomial: bool = False) -> None:
    _check_sequence(parsed, polynomial)
    for op, av in parsed:
        if op in _REPEATS:
            lo, hi, sub = av
            if in_repeat and lo < hi:
                raise _Refused("nested repetition such as (a+)+ or (?:x?){28} can take exponential time")
            if hi > 1 and _nullable(sub):
                raise _Refused("a repeated group that can match nothing, such as (?:x?){28}, can take "
                               "exponential time")
            _check(sub, in_repeat or hi > 1, polynomial)
        elif op == C.SUBPATTERN:
            _check(av[-1], in_repeat, polynomial)
        elif op == C.BRANCH:
            if in_repeat:
                raise _Refused("an alternation inside a repeated group such as (a|aa)* can take "
                               "exponential time")
            for branch in av[1]:
                _check(branch, in_repeat, polynomial)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            _check(av[1], in_repeat, polynomial)
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            raise _Refused("back-references are not allowed")


def regex_hazard(pattern: str, max_chars: int | None = MAX_REGEX_CHARS) -> tuple[str, str] | None:
    """What is wrong with ``pattern``, as ``(kind, message)``, or ``None``. ``kind``:

    - ``"invalid"``: it does not parse (never usable);
    - ``"too_long"``: over ``max_chars`` (:data:`MAX_REGEX_CHARS`) characters (``None``: any
      length, the check alone, as :func:`grader.redos.growth.static_problem` reports it for the
      service's own patterns);
    - ``"exponential"``: it can backtrack for time exponential in the answer's length;
    - ``"polynomial"``: repeats that can take the same characters (time polynomial in it).

    A new upload is refused for the first three; the last, and every kind but ``"invalid"`` in a
    rubric stored before these checks, is a warning (:func:`grader.rubric.engine.compile_rubric`):
    each search runs under the answer's CPU budget (:mod:`grader.rubric.budget`) either way."""
    if max_chars is not None and len(pattern) > max_chars:
        return "too_long", f"a regular expression is at most {max_chars} characters"
    try:
        parsed = sre_parse.parse(pattern)
    except Exception as exc:  # re.error, or recursion on absurd nesting
        return "invalid", f"invalid regular expression: {exc}"
    try:
        _check(parsed, False)
        _check(parsed, False, polynomial=True)
    except _Refused as exc:
        return exc.kind, str(exc)
    except RecursionError:
        return "exponential", "regular expression nested too deeply"
    return None


def regex_problem(pattern: str, max_chars: int | None = MAX_REGEX_CHARS) -> str | None:
    """Why ``pattern`` is refused or warned about (:func:`regex_hazard`'s message), or ``None``."""
    hazard = regex_hazard(pattern, max_chars)
    return hazard[1] if hazard else None
