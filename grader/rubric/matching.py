"""Compiled pattern nodes and how they find matches in an analysed answer.

A match is a tuple of content positions (see :class:`grader.rubric.analysis.Analysis`). Leaves
(:class:`Phrase`, :class:`Regex`) decide polarity: by default a match inside a negation scope whose
cue lies outside the match does not count ("it is not quadratic" does not match ``quadratic``, while
the phrase ``not quadratic`` matches it). Groups combine their children's matches.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import OSA

from grader.rubric.analysis import Analysis
from grader.rubric.budget import NO_DEADLINE, Deadline, ScoringTimeout
from grader.rubric.dictionary import is_english_word

Match = tuple[int, ...]
MAX_MATCHES = 12
MAX_COMBINATIONS = 2000  # bounds the work of any-order phrases and proximity groups on long answers
_EMPTY: list[Match] = []
_NO_NEAR: tuple[float, Match] = (0.0, ())


def fuzz_budget(word: str) -> int:
    """Misspellings tolerated in ``word`` (Moodle pmatch's length guards): none for technical or
    short tokens (under 4 letters: ``n``, ``d_k``, ``key``), one from 4 letters, two from 8."""
    if not word.isalpha() or len(word) < 4:
        return 0
    return 2 if len(word) >= 8 else 1


def prefix_budget(prefix: str) -> int:
    """Misspellings tolerated in the stem of a prefix wildcard (``simulat*`` also takes
    ``simmulates``, never the word ``stimulates``): one from 5 letters, none below."""
    return 1 if len(prefix) >= 5 and prefix.isalpha() else 0


class AnswerView:
    """An analysed answer plus its extra index for one compiled rubric.

    ``extra[key]`` lists ``(position, distance)`` for answer words (and hyphenated compounds) that
    are within the misspelling budget of a rubric word with that key (optimal string alignment
    distance, i.e. Damerau-Levenshtein with adjacent transpositions; rapidfuzz), and, under
    ``"*" + prefix``, the words a prefix wildcard covers (distance 0 for a true prefix).
    """

    __slots__ = ("a", "extra", "ignore_negation", "deadline", "slot_cache", "question_words")

    def __init__(self, analysis: Analysis, vocab: "FuzzyVocabulary | None", deadline: Deadline = NO_DEADLINE):
        self.a = analysis
        self.deadline = deadline
        self.slot_cache: dict[int, list[int]] = {}  # id(slot) -> positions, for slots of several keys
        self.ignore_negation = False  # set to find mentions that only negation kept from counting
        self.question_words: frozenset = frozenset()  # the answer's keys of the question's word families
        self.extra: dict[str, list[tuple[int, int]]] = {}
        if vocab is None or not (vocab.words or vocab.prefixes):
            return
        words = list(enumerate(zip(analysis.surface, analysis.key)))
        words.extend((pos, (surface, key)) for pos, surface, key in analysis.compounds)
        for n, (pos, (surface, key)) in enumerate(words):
            if not n & 63:
                deadline.check()
            for fkey, dist in vocab.lookup(surface, key):
                self.extra.setdefault(fkey, []).append((pos, dist))

    def negated(self, match: Match) -> bool:
        """True when a position of ``match`` lies in a negation scope whose cue is outside it."""
        neg = self.a.neg
        for p in match:
            cue = neg[p]
            if cue >= 0 and cue not in match:
                return True
        return False


@dataclass
class FuzzyVocabulary:
    """The rubric's pattern words and prefix wildcards, searched once per distinct answer word.

    Only a word that is not itself a word may be a misspelling of one: an answer word that is a
    correctly spelled English word (:func:`grader.rubric.dictionary.is_english_word`: "list" is not
    "last", "node" not "none", "stimulates" not "simulates") or a word of the rubric's own
    vocabulary (its phrases, question and reference answer: ``exact`` and ``own``) matches only as
    written. ``lookup`` results are cached per answer word (answers share most of their
    vocabulary), so the search cost is paid once per distinct word, not per answer.
    """

    exact: set[str] = field(default_factory=set)
    words: dict[str, tuple[str, int]] = field(default_factory=dict)  # word or stem -> (key, budget)
    prefixes: dict[str, int] = field(default_factory=dict)           # prefix -> misspelling budget
    own: set[str] = field(default_factory=set)  # words and keys of the question and reference answer
    _choices: list[str] = field(default_factory=list)
    _cache: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)

    def add(self, word: str, key: str, budget: int | None = None) -> None:
        """A rubric word and its key; ``budget`` is the misspelling budget its phrase slot allows
        (``None``: the word's own, :func:`fuzz_budget`). A word no slot fuzzes (budget 0: a
        negation word, a misconception's word) is only an exact word of the rubric."""
        self.exact.add(key)
        if budget == 0:
            return
        for w in (word, key):
            own = fuzz_budget(w)
            if own and w not in self.words:
                self.words[w] = (key, own)
        self._choices = list(self.words)

    def add_prefix(self, prefix: str) -> None:
        self.prefixes[prefix] = prefix_budget(prefix)

    def add_own(self, words) -> None:
        """Words (lower-case surfaces and keys) of the rubric's question and reference answer: its
        technical vocabulary, which an answer word is never a misspelling of another word for."""
        self.own.update(words)

    def takes_as_written(self, surface: str, key: str) -> bool:
        """True when the answer word ``surface`` (key ``key``) is a word in its own right, so it is
        never read as a misspelling of another: an English word or a word of the rubric's own."""
        return key in self.exact or surface in self.own or key in self.own or is_english_word(surface)

    def lookup(self, surface: str, key: str) -> tuple[tuple[str, int], ...]:
        cached = self._cache.get(surface)
        if cached is not None:
            return cached
        best: dict[str, int] = {}
        own = fuzz_budget(surface)
        if own and self.takes_as_written(surface, key):
            own = 0
        if own and self._choices:
            for probe in {surface, key}:
                for choice, dist, _ in process.extract(probe, self._choices, scorer=OSA.distance,
                                                       score_cutoff=2, limit=None):
                    fkey, budget = self.words[choice]
                    if 0 < dist <= min(budget, own) and dist < best.get(fkey, 99):
                        best[fkey] = int(dist)
        for prefix, budget in self.prefixes.items():
            if surface.startswith(prefix):
                best["*" + prefix] = 0
            elif budget and own and len(surface) >= len(prefix):
                n = len(prefix)
                dist = min(OSA.distance(surface[:m], prefix) for m in (n - 1, n, n + 1))
                if dist <= budget:
                    best["*" + prefix] = int(dist)
        result = tuple(sorted(best.items()))
        if len(self._cache) < 100_000:
            self._cache[surface] = result
        return result


@dataclass(frozen=True)
class Slot:
    """One word position of a phrase: alternative keys and prefix wildcards (``comput*``), each
    with its misspelling budget. ``before``: stop words the phrase keeps on purpose (``penny 'has'
    more mass``); one of them must come right before the word (only stop words between)."""

    keys: tuple[tuple[str, int], ...]
    prefixes: tuple[tuple[str, int], ...] = ()
    before: frozenset = frozenset()

    def positions(self, view: AnswerView) -> list[int]:
        index, extra = view.a.index, view.extra
        if len(self.keys) == 1 and not self.prefixes and not self.before:
            key, budget = self.keys[0]
            found = index.get(key, _EMPTY)
            if budget and key in extra:
                found = sorted(set(found).union(p for p, d in extra[key] if d <= budget))
            return found
        cached = view.slot_cache.get(id(self))
        if cached is not None:
            return cached
        hits: set[int] = set()
        for key, budget in self.keys:
            hits.update(index.get(key, _EMPTY))
            if budget and key in extra:
                hits.update(p for p, d in extra[key] if d <= budget)
        for prefix, budget in self.prefixes:
            hits.update(p for p, d in extra.get("*" + prefix, _EMPTY) if d <= budget)
        if self.before:  # a kept stop word must come right before the word
            stops, before = view.a.stops_before, self.before
            hits = {p for p in hits if not before.isdisjoint(stops[p])}
        found = sorted(hits)
        view.slot_cache[id(self)] = found
        return found


def one_clause(a: Analysis, positions: list[int]) -> bool:
    """True when the sorted content ``positions`` lie in one clause, a clause opener among them
    joining its clause to the one before ("more mass than the nickel": the phrase writes "than")."""
    clause, opens = a.clause, a.opens
    return all(clause[q] == clause[p] or (opens[q] and clause[q] == clause[p] + 1)
               for p, q in zip(positions, positions[1:]))


def _preceded_by(view: AnswerView, match: Match, words: frozenset) -> bool:
    """True when the word right before ``match`` (only spaces or a hyphen between, same
    sentence) is one of ``words``: "non-constant", "un-masked", "non constant"."""
    if not match:
        return False
    p = match[0]
    a = view.a
    if p == 0 or a.surface[p - 1] not in words or a.sent[p - 1] != a.sent[p]:
        return False
    between = a.text[a.span[p - 1][1]:a.span[p][0]]
    return not between.strip(" -\u2010\u2011")


def _polarity_ok(view: AnswerView, match: Match, polarity: str) -> bool:
    if polarity == "any" or view.ignore_negation:
        return True
    return view.negated(match) == (polarity == "negated")


@dataclass(frozen=True)
class Phrase:
    """Words in order (``order="fixed"``) with at most ``gap`` extra content words between
    consecutive words, or in any order within ``len + gap`` words (``order="any"``); always
    inside one clause (no sentence end, comma, semicolon, colon or bracket in between)."""

    slots: tuple[Slot, ...]
    gap: int = 0
    order: str = "fixed"
    polarity: str = "affirmed"
    text: str = ""
    not_after: frozenset = frozenset()  # words that must not come right before the match
    required: tuple[bool, ...] = ()     # per slot: a negation slot ("not|no") a near miss cannot skip

    negation_slots: tuple[int, ...] = field(init=False, default=(), compare=False)  # indexes of ``required``

    def __post_init__(self) -> None:
        object.__setattr__(self, "negation_slots", tuple(j for j, req in enumerate(self.required) if req))

    def find(self, view: AnswerView) -> list[Match]:
        cands = []
        for slot in self.slots:
            pos = slot.positions(view)
            if not pos:
                return _EMPTY
            cands.append(pos)
        not_after = self.not_after
        if len(cands) == 1:
            if self.polarity == "affirmed" and not view.ignore_negation and not not_after:
                neg = view.a.neg  # the common case, a single word: affirmed where no cue covers it
                return [(p,) for p in cands[0] if neg[p] < 0][:MAX_MATCHES]
            found = [(p,) for p in cands[0]]
        elif self.order == "fixed":
            found = self._ordered(view, cands)
        else:
            found = self._unordered(view, cands)
        return [m for m in found if _polarity_ok(view, m, self.polarity)
                and not (not_after and _preceded_by(view, m, not_after))][:MAX_MATCHES]

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        """A near miss: the share of this phrase's words found in one sentence, affirmed, but not
        in the order or as close together as the phrase asks: at least half of its words (one of
        two), one of them an alphabetic word of 4+ letters that is not a word of the question, and
        every negation word of the phrase among them (half of "no constructor" is not half of its
        meaning). ``(0.0, ())`` when there is none."""
        slots = self.slots
        n = len(slots)
        if n < 2 or self.polarity != "affirmed":
            return _NO_NEAR
        per_slot = [slot.positions(view) for slot in slots]
        if 2 * (n - per_slot.count(_EMPTY)) < n:
            return _NO_NEAR  # fewer than half of the words anywhere in the answer
        a = view.a
        neg, sent, keys = a.neg, a.sent, a.key
        required = self.required
        # a word counts when it is affirmed, or negated by a negation word of the phrase itself
        # ("not ... copy" for "not|never cop*")
        cues = {p for j in self.negation_slots for p in per_slot[j]} if self.negation_slots else ()
        not_after = self.not_after
        by_sentence: dict[int, dict[int, int]] = {}
        for j, positions in enumerate(per_slot):
            for p in positions:
                if (neg[p] < 0 or neg[p] in cues) and not (not_after and _preceded_by(view, (p,), not_after)):
                    found = by_sentence.get(sent[p])
                    if found is None:
                        by_sentence[sent[p]] = {j: p}
                    elif j not in found and p not in found.values():  # one word fills one slot
                        found[j] = p
        best, best_match = 0.0, ()
        for found in by_sentence.values():
            if 2 * len(found) < n:
                continue  # less than half of the phrase
            if required and any(j not in found for j in self.negation_slots):
                continue
            if not any(keys[p] not in question_keys and len(keys[p]) >= 4 and keys[p].isalpha()
                       for p in found.values()):
                continue  # "one" of "more than one" is no near miss of it; nor a question word
            share = len(found) / n
            if share > best:
                best, best_match = share, tuple(sorted(found.values()))
        return best, best_match  # all words but too far apart or out of order: a near miss too

    def _ordered(self, view: AnswerView, cands: list[list[int]]) -> list[Match]:
        sent, opens, gap, last_slot = view.a.clause, view.a.opens, self.gap, len(cands) - 1
        out: list[Match] = []
        dead: set[tuple[int, int]] = set()  # (slot, position) from which no completion exists

        def extend(k: int, path: list[int]) -> None:
            last = path[-1]
            if (k, last) in dead:
                return
            before = len(out)
            for p in cands[k]:
                if p <= last:
                    continue
                if p - last - 1 > gap or (sent[p] != sent[last] and not (opens[p] and sent[p] == sent[last] + 1)):
                    break  # past the gap, or in the next clause (unless p is the phrase's own "than", "so" ...)
                path.append(p)
                if k == last_slot:
                    out.append(tuple(path))
                else:
                    extend(k + 1, path)
                path.pop()
                if len(out) >= MAX_MATCHES:
                    return
            if len(out) == before:
                dead.add((k, last))

        deadline = view.deadline
        for n, start in enumerate(cands[0]):
            if not n & 255:
                deadline.check()
            extend(1, [start])
            if len(out) >= MAX_MATCHES:
                break
        return out

    def _unordered(self, view: AnswerView, cands: list[list[int]]) -> list[Match]:
        width = len(cands) - 1 + self.gap
        out: list[Match] = []
        for combo in itertools.islice(itertools.product(*(c[:MAX_MATCHES] for c in cands)), MAX_COMBINATIONS):
            if len(set(combo)) != len(combo) or max(combo) - min(combo) > width:
                continue
            if not one_clause(view.a, sorted(combo)):
                continue
            out.append(tuple(sorted(combo)))
            if len(out) >= MAX_MATCHES:
                break
        return out


@dataclass(frozen=True)
class Regex:
    """Escape hatch: a regular expression searched in the answer as typed, HTML decoded
    (case-insensitive);
    the match covers the content tokens its span overlaps. ``pattern`` is compiled with the
    ``regex`` module, whose searches take a timeout: a search gets what is left of the answer's
    time budget (:mod:`grader.rubric.budget`), and one that runs out raises
    :class:`~grader.rubric.budget.ScoringTimeout`, or the submission's
    :class:`~grader.budget.BudgetExceeded` when that one ran out first (the answer is not
    scored, rather than scored as if the pattern had not matched)."""

    pattern: Any
    polarity: str = "affirmed"
    not_after: frozenset = frozenset()

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        return 0.0, ()

    def find(self, view: AnswerView) -> list[Match]:
        out: list[Match] = []
        spans = view.a.span
        deadline = view.deadline
        try:
            for m in self.pattern.finditer(view.a.plain, timeout=min(deadline.remaining(), 3600.0)):
                s, e = view.a.original_span(*m.span())
                match = tuple(i for i, (ts, te) in enumerate(spans) if ts < e and te > s)
                if (match and _polarity_ok(view, match, self.polarity)
                        and not (self.not_after and _preceded_by(view, match, self.not_after))):
                    out.append(match)
                if len(out) >= MAX_MATCHES:
                    break
        except TimeoutError:
            raise deadline.exceeded("rubric scoring") from None  # the answer's or the submission's
        return out


@dataclass(frozen=True)
class AnyOf:
    """Matches when at least one child matches; returns the children's matches."""

    children: tuple

    def find(self, view: AnswerView) -> list[Match]:
        out: list[Match] = []
        for child in self.children:
            out.extend(child.find(view))
            if len(out) >= MAX_MATCHES:
                break
        return out[:MAX_MATCHES]

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        """The best near miss of any alternative (its weight applied)."""
        best: tuple[float, Match] = (0.0, ())
        for child in self.children:
            found = child.near(view, question_keys)
            if found[0] > best[0]:
                best = found
        return best

    def value(self, view: AnswerView) -> tuple[float, list[Match]]:
        """The largest weight among the alternatives that match, with their matches."""
        best, matches = 0.0, []
        for child in self.children:
            v, m = concept_value(child, view)
            if v > best:
                best, matches = v, m
            if best >= 1.0:
                break
        return best, matches


@dataclass(frozen=True)
class AllOf:
    """Matches when every child matches; optionally all within ``within`` content words of each
    other and/or in one sentence."""

    children: tuple
    within: int | None = None
    same_sentence: bool = False

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        """Some of the group's children match (or nearly): the mean of their values."""
        total, evidence = 0.0, set()
        for child in self.children:
            if child.find(view):
                total += 1.0
                continue
            v, m = child.near(view, question_keys)
            total += v
            evidence.update(m)
        share = total / len(self.children)
        return (share, tuple(sorted(evidence))) if evidence else (0.0, ())

    def find(self, view: AnswerView) -> list[Match]:
        per_child = []
        for child in self.children:
            found = child.find(view)
            if not found:
                return _EMPTY
            per_child.append(found)
        if self.within is None and not self.same_sentence:
            return [tuple(sorted(set().union(*(f[0] for f in per_child))))]
        sent = view.a.sent
        out: list[Match] = []
        for combo in itertools.islice(itertools.product(*(f[:6] for f in per_child)), MAX_COMBINATIONS):
            merged = sorted(set().union(*combo))
            if not merged:
                out.append(())
                continue
            if self.within is not None and merged[-1] - merged[0] > self.within:
                continue
            if self.same_sentence and len({sent[p] for p in merged}) != 1:
                continue
            out.append(tuple(merged))
            if len(out) >= MAX_MATCHES:
                break
        return out


@dataclass(frozen=True)
class NoneOf:
    """Matches (with no evidence) when its child does not match: pmatch's ``not(...)``."""

    child: object

    def find(self, view: AnswerView) -> list[Match]:
        return _EMPTY if self.child.find(view) else [()]

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        return 0.0, ()


@dataclass(frozen=True)
class Weighted:
    """A concept with a ``weight`` (0-1): when it is the alternative that matches, the criterion
    earns that share of its points ("many" earns half of "an unlimited number")."""

    child: object
    weight: float

    def find(self, view: AnswerView) -> list[Match]:
        return self.child.find(view)

    def near(self, view: AnswerView, question_keys: frozenset) -> tuple[float, Match]:
        v, m = self.child.near(view, question_keys)
        return v * self.weight, m

    def value(self, view: AnswerView) -> tuple[float, list[Match]]:
        v, m = concept_value(self.child, view)
        return v * self.weight, m


def concept_value(node, view: AnswerView) -> tuple[float, list[Match]]:
    """A concept's credit share (1.0 when it matches, its weight for a :class:`Weighted`
    alternative, 0.0 when it does not match) and its matches. An ``all`` group is worth its
    smallest child's value."""
    if isinstance(node, (Weighted, AnyOf)):
        return node.value(view)
    if isinstance(node, AllOf) and any(isinstance(c, (Weighted, AnyOf)) for c in node.children):
        found = node.find(view)
        if not found:
            return 0.0, []
        return min(concept_value(c, view)[0] for c in node.children), found
    found = node.find(view)
    return (1.0 if found else 0.0), found
