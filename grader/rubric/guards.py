"""Engine-wide guards that apply to every rubric: answer form, copies of the question, refutations.

These checks are deliberately conservative: real short answers are often terse lists ("push, pop,
top") or chains of terms ("input -> hidden layer -> hidden layer -> output"), so only unmistakable
gaming is refused. Each guard can be switched off or tuned per rubric (``guards:`` in the rubric,
:data:`DEFAULT_GUARDS`), and every result names the guard that fired (trial reports count them).

- :func:`form_problem` - a bag of keywords (no function words, keywords repeated side by side), a
  long word salad without sentence structure, long filler with very low lexical diversity, or
  text repeated within the answer limits its credit. Length alone never does: a long answer that
  does not repeat itself is scored like a short one.
- :func:`copies_question` - an answer made only of the question's words earns nothing, unless it
  picks one of the options the question offers ("rows or columns?" - "over the rows").
- :func:`refuted` - a misconception mentioned in order to refute it ("it is wrong that attention
  knows the order", "the statement claims ...") is not held against the learner.
- :func:`endorsing_verdict` - on spot-the-error / true-false items whose statement is false, a
  verdict that endorses the statement ("the statement is correct", "there is no error", "nothing
  is wrong", an answer opening with "True.") voids the answer's credit.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from grader.rubric import lexicon
from grader.rubric.analysis import Analysis, tokenize

#: Every guard and its parameters; a rubric's ``guards:`` overrides them (``false`` switches one off).
#: keyword_list: at least ``min_words`` content words, under ``max_function_share`` function words,
#: at most ``max_distinct_share`` distinct, and ``min_adjacent_repeats`` keywords repeated side by
#: side ("quadratic quadratic"): a chain of terms that reuses a term elsewhere is not stuffing.
#: word_salad: a sentence of ``min_sentence_words`` words with under ``max_function_share`` function
#: words (real prose has 30-50 %). filler: ``min_words`` content words under ``max_distinct_share``
#: distinct. repetition: ``min_repeated_words`` content words, at least ``max_repeated_share`` of
#: them, repeat a four-word sequence said earlier in the answer; the credit is capped at the share
#: that is not repeated. copies_question: the answer covers ``coverage`` of the question's distinct
#: content words and adds at most ``new_words`` of their number (rounded down) new ones.
DEFAULT_GUARDS: dict[str, dict[str, Any]] = {
    "copies_question": {"enabled": True, "coverage": 0.6, "new_words": 0.1},
    "keyword_list": {"enabled": True, "min_words": 6, "max_function_share": 0.1, "max_distinct_share": 0.6,
                     "min_adjacent_repeats": 2},
    "word_salad": {"enabled": True, "min_sentence_words": 100, "max_function_share": 0.25},
    "filler": {"enabled": True, "min_words": 100, "max_distinct_share": 0.3},
    "repetition": {"enabled": True, "min_repeated_words": 20, "max_repeated_share": 0.3},
}
#: Content words in a repeated sequence (repetition guard; :func:`repeated_share` zips four lists).
REPEAT_NGRAM = 4

#: Words that show a statement is being refuted or only reported (surface forms, lower case).
REFUTATION_WORDS = frozenset(
    """wrong false incorrect untrue error erroneous mistake mistaken misconception myth misleading
    flaw flawed fallacy nonsense bogus""".split())
REPORTING_WORDS = frozenset("says said claim claims claimed claiming asserts asserted".split())
#: Endorsement words: negated ("not correct", "isn't true") they refute.
ENDORSEMENT_WORDS = frozenset("correct true right accurate valid".split())
#: A refutation at the start of the next sentence also covers this one ("X. That is wrong.").
NEXT_SENTENCE_REACH = 4


def guard_settings(overrides: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """:data:`DEFAULT_GUARDS` with a rubric's ``guards:`` applied (``false`` disables a guard,
    ``true`` keeps its defaults, a mapping overrides parameters)."""
    settings = {name: dict(values) for name, values in DEFAULT_GUARDS.items()}
    for name, value in (overrides or {}).items():
        if value is False:
            settings[name]["enabled"] = False
        elif isinstance(value, dict):
            settings[name].update(value)
    return settings


@dataclass(frozen=True)
class FormVerdict:
    """``cap`` is the share of ``max_points`` the answer may earn at most (0 = no credit);
    ``guard`` names the guard (a key of :data:`DEFAULT_GUARDS`)."""

    cap: float
    reason: str
    guard: str = ""


def repeated_share(a: Analysis) -> tuple[int, float]:
    """Content words that repeat a sequence of :data:`REPEAT_NGRAM` content words said earlier in
    the answer (the later copies only), and their share of the content words."""
    keys = a.key
    n = len(keys)
    if n < 2 * REPEAT_NGRAM:
        return 0, 0.0
    first_seen: dict[tuple[str, ...], int] = {}
    repeated: set[int] = set()
    for i, gram in enumerate(zip(keys, keys[1:], keys[2:], keys[3:])):
        start = first_seen.setdefault(gram, i)
        if start <= i - REPEAT_NGRAM:  # an earlier, non-overlapping occurrence
            repeated.update(range(i, i + REPEAT_NGRAM))
    return len(repeated), len(repeated) / n


def form_problem(a: Analysis, settings: dict[str, dict[str, Any]] | None = None) -> FormVerdict | None:
    """Return why the answer's form limits its credit, or ``None`` for ordinary answers.

    Uses the word counts of :class:`Analysis` (``words``, ``function_words``,
    ``longest_sentence``) and the content keys; cost linear in the answer's length. ``settings``
    come from :func:`guard_settings` (default: :data:`DEFAULT_GUARDS`).
    """
    settings = settings or DEFAULT_GUARDS
    content = len(a.key)
    if not content:
        return None
    function_share = a.function_words / a.words if a.words else 0.0
    distinct_share = len(set(a.key)) / content
    bag = settings["keyword_list"]
    if (bag["enabled"] and content >= bag["min_words"] and function_share < bag["max_function_share"]
            and distinct_share <= bag["max_distinct_share"]):
        adjacent = sum(1 for p in range(1, content) if a.key[p] == a.key[p - 1] and a.clause[p] == a.clause[p - 1])
        if adjacent >= bag["min_adjacent_repeats"]:
            top, count = Counter(a.key).most_common(1)[0]
            return FormVerdict(0.0, f"This answer is a list of repeated keywords (\"{a.surface[a.key.index(top)]}\" "
                                    f"{count} times) rather than an explanation, so it earns no credit. "
                                    "Explain in sentences.", "keyword_list")
    salad = settings["word_salad"]
    if (salad["enabled"] and a.longest_sentence >= salad["min_sentence_words"]
            and function_share < salad["max_function_share"]):
        return FormVerdict(0.0, f"This answer has no sentence structure ({a.longest_sentence} words without a "
                                "full stop and few connecting words), so it earns no credit. Explain in sentences.",
                           "word_salad")
    filler = settings["filler"]
    if filler["enabled"] and content >= filler["min_words"] and distinct_share < filler["max_distinct_share"]:
        return FormVerdict(0.0, "This answer repeats the same few words over and over, so it earns no credit.",
                           "filler")
    rep = settings["repetition"]
    # repeated words copy earlier ones, so a repeated share of s leaves at most 1 - s distinct
    if (rep["enabled"] and content >= rep["min_repeated_words"] + REPEAT_NGRAM
            and distinct_share <= 1.0 - rep["max_repeated_share"]):
        count, share = repeated_share(a)
        if count >= rep["min_repeated_words"] and share >= rep["max_repeated_share"]:
            cap = round(1.0 - share, 4)
            return FormVerdict(cap, f"{share:.0%} of this answer repeats what it already said; repeated text "
                                    f"earns nothing, so it can earn at most {cap:.0%} of the marks.", "repetition")
    return None


def question_options(question: str) -> list[tuple[str, str]]:
    """The alternatives a question offers, as pairs of content-word keys around "or", "versus",
    "vs": "Is softmax taken over the rows or the columns?" -> [("row", "column")]."""
    words = [t.text for t in tokenize(question) if t.is_word]
    pairs = []
    for i, w in enumerate(words):
        if w not in ("or", "versus", "vs"):
            continue
        before, after = words[:i], words[i + 1:]
        # the words that differ: "over the rows or over the columns" -> rows / columns
        left = next((x for x in reversed(before) if x not in lexicon.STOPWORDS and x not in after), None)
        right = next((x for x in after if x not in lexicon.STOPWORDS and x not in before), None)
        if left and right and left != right:
            pairs.append((lexicon.stem(left), lexicon.stem(right)))
    return pairs


def copies_question(a: Analysis, question_keys: frozenset, options: list[tuple[str, str]] = (),
                    settings: dict[str, Any] | None = None) -> bool:
    """True when the answer is (nearly) a copy of the question: it covers at least 60 % of the
    question's distinct content words and adds hardly any new content word (one per ten question
    words), none a negation cue or a refutation word ("... does not change ..." is an answer).
    An answer that picks one of the options the question offers ("... rows or columns?" -
    "softmax is taken over the rows") is an answer, not a copy; ``options`` are the question's
    (:func:`question_options`, computed once per rubric)."""
    settings = settings or DEFAULT_GUARDS["copies_question"]
    if not settings.get("enabled", True) or not a.key or not question_keys:
        return False
    new = [p for p, k in enumerate(a.key) if k not in question_keys]
    if len(new) > int(settings["new_words"] * len(question_keys)):
        return False
    if any(a.surface[p] in lexicon.NEGATION_CUES or a.surface[p] in REFUTATION_WORDS for p in new):
        return False
    present = set(a.key)
    for left, right in options:
        if (left in present) != (right in present):
            return False  # it chooses one of the options
    covered = len(question_keys.intersection(present))
    return covered >= settings["coverage"] * len(question_keys)


def _refutes(a: Analysis, positions, match: tuple[int, ...], same_sentence: bool) -> bool:
    for p in positions:
        if p in match:
            continue
        w = a.surface[p]
        if w in REFUTATION_WORDS or w in REPORTING_WORDS:
            if a.neg[p] >= 0:
                continue  # "nothing is wrong" endorses
            alone = ((p == 0 or a.clause[p - 1] != a.clause[p])
                     and (p + 1 == len(a.key) or a.clause[p + 1] != a.clause[p]))
            if same_sentence and alone and (p == 0 or a.sent[p - 1] != a.sent[p]):
                continue  # a bare verdict opening the sentence ("False, ...") judges the question's statement
            return True
        if w in ENDORSEMENT_WORDS and p > 0 and a.neg[p] == p - 1:  # "not correct", "isn't true", not "no left-to-right"
            return True
    return False


def refuted(a: Analysis, match: tuple[int, ...]) -> bool:
    """True when the sentence holding ``match`` refutes or only reports it: it contains a
    refutation word (wrong, false, error, myth ...), a reporting verb (says, claims) or an
    endorsement right after its negation cue ("not correct", "isn't true"), or the next sentence
    opens with one ("... That is wrong."). Not counted: the match's own words, a negated refutation
    ("nothing is wrong" endorses) and a bare verdict opening the sentence ("False, attention knows
    the order" judges the question's statement, then makes the learner's own claim)."""
    if not match:
        return False
    sent = a.sent[match[0]]
    lo = match[0]
    while lo > 0 and a.sent[lo - 1] == sent:
        lo -= 1
    hi = match[0]
    while hi + 1 < len(a.key) and a.sent[hi + 1] == sent:
        hi += 1
    if _refutes(a, range(lo, hi + 1), match, True):
        return True
    nxt = hi + 1
    following = [p for p in range(nxt, min(nxt + NEXT_SENTENCE_REACH, len(a.key))) if a.sent[p] == a.sent[nxt]]
    return _refutes(a, following, match, False)


_APOS = "['\u2019]"
_SUBJECT = r"(?:the\s+(?:statement|claim|sentence|assertion|original(?:\s+statement)?)|this\s+statement|it|this|that)"
_JUDGED_CORRECT = (r"(?:entirely\s+|completely\s+|totally\s+|fully\s+|perfectly\s+|actually\s+|indeed\s+|"
                   r"absolutely\s+|quite\s+)?(?:correct|right|true|accurate|valid)")
#: Verdicts that endorse the question's statement. A concession ("it is true that ...", "this is
#: correct for the keys") is no verdict: the judged word must end its clause or be followed by a
#: reason ("because", "since", "as", "so"). "nothing is wrong" is a negated refutation.
_ENDORSING = re.compile(
    rf"\b({_SUBJECT})(?:\s+(?:is|was|seems|looks|sounds)|{_APOS}s)\s+{_JUDGED_CORRECT}"
    rf"(?=\s*(?:$|[.!:;,\n\u2014\u2013-]|because\b|since\b|as\b|so\b))"
    rf"|\bthere\s+(?:is|are|{_APOS}s|was)\s+no\s+(?:error|mistake|problem|flaw)s?\b"
    rf"|\b(?:the\s+)?statement\s+(?:has|contains)\s+no\s+(?:error|mistake|flaw)s?\b"
    rf"|\bno\s+(?:error|mistake)s?\s+(?:here|in\s+(?:it|this|the\s+statement))\b"
    rf"|\bnothing(?:\s+is|{_APOS}s)?\s+wrong\b"
    rf"|^\W*(?:true|correct|right)\s*(?:$|[.!:;,\n\u2014\u2013-])",
    re.IGNORECASE)
#: Before the verdict in its sentence, these deny or hedge it ("I don't think it is correct").
_HEDGES = re.compile(
    rf"\b(?:but|however|except|although|though|partly|partially|half|only|not|never|no\s+longer|"
    rf"\w+n{_APOS}t|isnt|dont|doesnt|wrong|false|incorrect)\b", re.IGNORECASE)
#: After the verdict in its sentence, these turn it into a concession ("it is true, but ...").
_CONTRAST = re.compile(r"\b(?:but|however|except|although|though|partly|partially|only\s+(?:partly|half))\b",
                       re.IGNORECASE)
#: A pronoun verdict ("it/this/that is correct") judges the statement only when it opens its sentence.
_PRONOUN = re.compile(r"(?:it|this|that)(?:\s+(?:is|was|seems|looks|sounds)\b|['\u2019]s)", re.IGNORECASE)
_OPENING = re.compile(r"\W*(?:(?:yes|well|so|overall)\W+)?(?:i\s+(?:think|believe)\s+)?", re.IGNORECASE)
_SENTENCE_BOUNDS = re.compile(r"[.!?\n]")
_REFUTATION_RE = re.compile(r"\b(?:wrong|false|incorrect|untrue|error|erroneous|mistaken?|flawed)\b", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(rf"(?:\bno|\bnot|\bnothing(?:\s+is)?|n{_APOS}t(?:\s+\w+)?)\s+(?:an?\s+)?$", re.IGNORECASE)


def _refuted_before(text: str, end: int) -> bool:
    """True when ``text[:end]`` holds a refutation word that is not negated ("Error: ...")."""
    return any(not _NEGATED_BEFORE.search(text, 0, m.start()) for m in _REFUTATION_RE.finditer(text, 0, end))



def endorsing_verdict(a: Analysis) -> tuple[int, int] | None:
    """The ``[start, end)`` character span of a verdict that endorses the question's statement,
    or ``None``. Only meaningful when that statement is false (rubric ``statement: false``).

    Endorsing: "the statement/claim is (entirely) correct|right|true|valid" (or "it/this/that is
    ..." opening its sentence) ending its clause or followed by a reason, "there is no
    error|mistake", "the statement has no error", "no error here", "nothing is wrong", or an
    answer opening with a bare "True"/"Correct"/"Right".
    Not endorsing: a verdict denied or hedged earlier in its sentence (not, n't, never, only,
    partly, wrong, false, incorrect: "I don't think it is correct"), a verdict followed in its
    sentence by a contrast (but, however, except, though), a question ("is it correct?"), a
    "this/the statement is correct" after an earlier refutation ("Error: ... values. This is
    correct because ..." judges the learner's fix) and a concession ("it is true that ...").
    Regular expressions over the original answer; cost linear in its length.
    """
    text = a.plain
    for m in _ENDORSING.finditer(text):
        start, end = m.span()
        lo = max((b.end() for b in _SENTENCE_BOUNDS.finditer(text, 0, start)), default=0)
        hi_m = _SENTENCE_BOUNDS.search(text, end)
        hi = hi_m.start() if hi_m else len(text)
        if hi_m and hi_m.group() == "?":
            continue
        if _HEDGES.search(text[lo:start]) or _CONTRAST.search(text[end:hi]):
            continue
        if _PRONOUN.match(m.group()) and not _OPENING.fullmatch(text[lo:start]):
            continue  # "... with values it is correct" judges the learner's own fix
        if m.group(1) and _refuted_before(text, start):
            continue  # "Error: ... values. This is correct because ..." judges the learner's fix
        return a.original_span(start, end)
    return None
