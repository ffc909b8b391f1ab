"""Compiled rubrics and their scores.

``compile_rubric(doc)`` validates and compiles once; ``CompiledRubric.score(answer)`` is pure and
deterministic (same answer, same rubric -> same score and evidence, or a
:class:`~grader.rubric.budget.ScoringTimeout`).

Scoring, in this order (every step is reported, so the parts add up to the points):

1. Criteria. A criterion earns its points when at least ``require`` of its concepts match (``all``
   by default), times the weight of the alternative that matched (``weight``, default 1). When it
   is not met it earns the larger of ``points * matched / required`` (``partial: true``) and a
   *near miss*: ``points * credit.near_miss * share``, where ``share`` counts a matched concept as
   1 and an unmatched one by the share of its best phrase's words the answer affirms in one
   sentence (a negation word of the phrase is never skipped). A concept match made only of words
   that also occur in the question does not count (words copied from the question earn nothing by
   themselves) unless ``question_words: allow``.
2. Base credit. An on-topic answer (one affirmed word of its own, outside the question, that the
   rubric's criteria or reference answer use) that states no misconception, and does not pick the
   option of the question the criteria do not credit ("columns" to "rows or columns?": then no near
   miss either), earns ``credit.base`` of the points the criteria did not award: human markers give an attempt on topic part of the
   marks (Mohler et al. 2011: answers that miss the reference get about 2 of 5).
3. Misconceptions. Each matched misconception subtracts its penalty (never below 0) and voids the
   criteria it lists (``voids``).
4. Guards (:mod:`grader.rubric.guards`, tunable with ``guards:``): a copy of the question earns
   nothing; a bag of keywords, a word salad or filler earns nothing; repeated text caps the
   credit at the share that is not repeated.

The result is rounded to 4 decimals. A rubric with a ``calibration`` then maps that total onto the
instructor's marks (:func:`calibration.apply_to_score`; ``raw_points`` keeps the rubric's own points). Spot-the-error and true/false rubrics whose statement is
false (``statement: false``): a verdict that endorses the statement (:func:`guards.endorsing_verdict`)
voids every criterion and fires the ``trap`` misconception (default: the first one).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from grader.budget import CpuBudget
from grader.rubric.analysis import analyse
from grader.rubric.lexicon import stem_family
from grader.rubric.budget import SCORE_BUDGET_SECONDS, Deadline
from grader.rubric.calibration import Calibration, apply_to_score
from grader.rubric.calibration import from_document as calibration_from_document
from grader.rubric.compiler import DEFAULT_OPTIONS, INHERITED, PhraseCompiler
from grader.rubric.dictionary import english_words
from grader.rubric import concepts
from grader.rubric.guards import (copies_question, endorsing_verdict, form_problem, guard_settings,
                                  question_options, refuted)
from grader.rubric.lint import rubric_warnings, semantic_errors
from grader.rubric.matching import AnswerView, FuzzyVocabulary, Match, Phrase, concept_value
from grader.rubric.schema import RubricError, validate_rubric
from grader.rubric.scores import CriterionResult, MisconceptionResult, RubricScore

#: ``credit:`` defaults: the share of the points its criteria missed that an on-topic answer
#: earns, and the share of an unmet criterion's points a near miss earns. Chosen from how human
#: markers treat short answers (an on-topic attempt that misses the point gets about 2 of 5,
#: Mohler et al. 2011), not fitted to any answer set; ``credit: {base: 0, near_miss: 0}`` gives
#: all-or-nothing criteria.
DEFAULT_CREDIT = {"base": 0.3, "near_miss": 0.5}
#: Misspellings a misconception's words tolerate unless it sets ``fuzzy`` itself: none, so a
#: correct word never fires a penalty by reading as a misspelling of the wrong one.
MISCONCEPTION_FUZZY = 0
#: An answer that uses a word of the question and this many distinct affirmed words of its own is
#: on topic even when none of them is a rubric word (a paraphrase the rubric did not foresee).
ON_TOPIC_OWN_WORDS = 3


@dataclass
class _Criterion:
    id: str
    description: str
    points: float
    concepts: tuple
    required: int
    partial: bool
    allow_question_words: bool
    met_text: str
    missed_text: str
    # every key and "*prefix" its phrases use: when none is in an answer, neither a near miss nor a
    # negated mention is possible, and both searches are skipped
    vocabulary: frozenset = frozenset()
    near_words: int = 0  # words a near miss needs at least (half of its shortest phrase; 0: none possible)
    # per concept: the keys one of which a match needs (None: it may match anyway, e.g. a 'not' group)
    needs: tuple = ()


@dataclass
class _Misconception:
    id: str
    patterns: tuple
    penalty: float
    message: str
    allow_question_words: bool
    voids: tuple[str, ...] = ()
    description: str = ""


class _NegatedWords:
    """The keys (exact, misspelt, prefix) of an answer's words inside a negation scope, computed
    when first needed: a criterion none of whose words is among them has no negated mention."""

    __slots__ = ("view", "_keys")

    def __init__(self, view: AnswerView):
        self.view = view
        self._keys: set[str] | None = None

    @property
    def keys(self) -> set[str]:
        if self._keys is None:
            a, extra = self.view.a, self.view.extra
            neg = a.neg
            self._keys = {k for p, k in enumerate(a.key) if neg[p] >= 0}
            self._keys.update(k for k, hits in extra.items() if any(neg[p] >= 0 for p, _ in hits))
        return self._keys


def _spans(view: AnswerView, positions: set[int]) -> list[list[int]]:
    """Merge consecutive content positions of one sentence into character spans."""
    spans: list[list[int]] = []
    last = -2
    a = view.a
    for p in sorted(positions):
        s, e = a.span[p]
        if spans and p == last + 1 and a.sent[p] == a.sent[last]:
            spans[-1][1] = e
        else:
            spans.append([s, e])
        last = p
    return spans


_WORD = re.compile(r"\S+")


def _first_words(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut after its first ``limit`` words (runs of non-space characters) and its word
    count; the cut keeps every character offset valid."""
    count = 0
    for m in _WORD.finditer(text):
        count += 1
        if count == limit:
            end = m.end()
            return text[:end], count + sum(1 for _ in _WORD.finditer(text, end))
    return text, count


class CompiledRubric:
    """A rubric ready to score answers. Build with :func:`compile_rubric`.

    ``doc`` is the validated document (defaults filled in); ``id``/``version`` identify it in
    results; ``warnings`` lists what is valid but probably not meant (``{"path", "message"}``).
    ``calibration`` (from the document's ``calibration`` field) maps raw points to the score.
    """

    calibration: Calibration | None = None

    def __init__(self, doc: dict[str, Any], criteria: list[_Criterion],
                 misconceptions: list[_Misconception], vocab: FuzzyVocabulary, question_keys: frozenset,
                 trap: str | None = None, topic_keys: frozenset = frozenset(),
                 topic_prefixes: tuple[str, ...] = (), weighted: bool = False,
                 criteria_words: tuple[frozenset, tuple[str, ...]] = (frozenset(), ())):
        self.doc = doc
        self.id: str | None = doc.get("id")
        self.version: int | None = doc.get("version")
        self.question: str = doc["question"]
        self.max_points: float = float(doc["max_points"])
        self.max_words: int | None = doc.get("max_words")
        credit = {**DEFAULT_CREDIT, **(doc.get("credit") or {})}
        self.base_share: float = float(credit["base"])
        self.near_miss_share: float = float(credit["near_miss"])
        self.guards = guard_settings(doc.get("guards"))
        self.warnings: list[dict[str, str]] = []
        self._criteria = criteria
        self._misconceptions = misconceptions
        self._vocab = vocab
        self._question_keys = question_keys
        self._question_families = frozenset(stem_family(k) for k in question_keys)
        self._trap = trap  # misconception fired by a verdict endorsing a false statement
        self._topic_keys = topic_keys
        self._topic_prefixes = tuple("*" + p for p in topic_prefixes)
        self._criteria_keys, self._criteria_prefixes = criteria_words
        self._weighted = weighted
        self._question_options = question_options(self.question)

    @property
    def criterion_ids(self) -> list[str]:
        return [c.id for c in self._criteria]

    @property
    def misconception_ids(self) -> list[str]:
        return [m.id for m in self._misconceptions]

    def _qualifying(self, view: AnswerView, matches: list[Match], allow_question_words: bool) -> list[Match]:
        if allow_question_words:
            return matches
        keys, qk, neg = view.a.key, view.question_words, view.a.neg
        # a negation cue outside the match is part of what the learner says ("it doesn't change
        # which token ..." answers a false claim in the question's own words)
        return [m for m in matches
                if not m or any(keys[p] not in qk or (neg[p] >= 0 and keys[neg[p]] not in qk) for p in m)]

    def _misconception_matches(self, view: AnswerView, matches: list[Match]) -> list[Match]:
        """Matches that hold the misconception against the learner: restating it, even in the
        question's own words, endorses it; mentioning it to refute it does not (:func:`refuted`)."""
        return [m for m in matches if not m or not refuted(view.a, m)]

    def _negated_mentions(self, view: AnswerView, c: _Criterion) -> list[list[int]]:
        """Spans of the whole negated phrases (cue included) that would have matched ``c``."""
        view.ignore_negation = True
        positions: set[int] = set()
        try:
            for concept in c.concepts:
                view.deadline.check()
                for m in self._qualifying(view, concept.find(view), c.allow_question_words):
                    if view.negated(m):
                        cues = [view.a.neg[p] for p in m if view.a.neg[p] >= 0]
                        positions.update(range(min(cues + list(m)), max(m) + 1))
                        break
        finally:
            view.ignore_negation = False
        return _spans(view, positions)

    @staticmethod
    def _mentions(present: set, c: _Criterion) -> int:
        """How many distinct words of ``c``'s phrases the answer holds (``present``: its keys,
        misspelt and prefix-wildcard keys included): a cheap test before the near-miss (which
        needs ``c.near_words``) and negated-mention (one) searches. A criterion with a regular
        expression counts as holding every word."""
        vocabulary = c.vocabulary
        return 1 << 30 if vocabulary is None else len(vocabulary & present)

    def _on_topic(self, view: AnswerView) -> bool:
        """True when the answer talks about the question's subject in at least
        :data:`ON_TOPIC_OWN_WORDS` affirmed words of its own, or affirms a word of 4+ letters of
        its own (not a question word, not a number) that the rubric's criteria or its reference
        answer use (misspellings and prefix wildcards included). "One" to "how many
        constructors?" is not on topic; "a class can have several" is."""
        a, qk, topic = view.a, view.question_words, self._topic_keys
        own = {k for p, k in enumerate(a.key) if a.neg[p] < 0 and k not in qk}
        if len(own) >= ON_TOPIC_OWN_WORDS and any(k in qk for k in a.key):
            return True  # it talks about the question's subject in words of its own
        def telling(p: int) -> bool:  # an affirmed word of 4+ letters, not a number, not the question's
            k = a.key[p]
            return a.neg[p] < 0 and k not in qk and len(k) >= 4 and k.isalpha()

        if any(k in topic and telling(p) for p, k in enumerate(a.key)):
            return True
        extra = view.extra
        for key in topic.intersection(extra):
            if any(telling(p) for p, _ in extra[key]):
                return True
        return any(telling(p) for prefix in self._topic_prefixes for p, _ in extra.get(prefix, ()))

    def _picks_uncredited_option(self, view: AnswerView) -> bool:
        """True when the question offers two options ("over the rows or the columns?"), the criteria
        credit exactly one of them, and the answer affirms only the other: a wrong answer in the
        question's own terms, which base credit must not reward."""
        a = view.a
        affirmed = None
        for pair in self._question_options:
            credited = [o for o in pair if o in self._criteria_keys
                        or any(o.startswith(p) for p in self._criteria_prefixes)]
            if len(credited) != 1:
                continue
            if affirmed is None:
                affirmed = {k for p, k in enumerate(a.key) if a.neg[p] < 0}
            other = pair[1] if credited[0] == pair[0] else pair[0]
            if other in affirmed and credited[0] not in affirmed:
                return True
        return False

    def _concept(self, view: AnswerView, concept, allow_question_words: bool) -> tuple[float, list[Match]]:
        """A concept's value (1, its weight, or 0) and its qualifying matches."""
        if self._weighted:
            value, found = concept_value(concept, view)
            found = self._qualifying(view, found, allow_question_words)
            return (value if found else 0.0), found
        found = self._qualifying(view, concept.find(view), allow_question_words)
        return (1.0 if found else 0.0), found

    def view(self, answer: str, deadline: Deadline) -> AnswerView:
        """``answer`` (already cut to ``max_words``) analysed for this rubric: its misspelling
        index and the answer's words of the question's word families."""
        view = AnswerView(analyse(answer), self._vocab, deadline)
        qk, families = self._question_keys, self._question_families
        view.question_words = frozenset(k for k in view.a.index if k in qk or stem_family(k) in families)
        return view

    def score(self, answer: str, budget: float | None = SCORE_BUDGET_SECONDS,
              within: CpuBudget | None = None) -> RubricScore:
        """Score one answer. Pure and deterministic; cost linear in the answer's length times the
        rubric's size (no per-answer compilation).

        ``budget`` is the CPU seconds the whole rubric may take on this answer (``None``:
        unbounded); past it, raises :class:`grader.rubric.budget.ScoringTimeout` (the same answer
        and rubric either score identically or time out: never a partial score). ``within`` is
        an enclosing budget (the submission's, :mod:`grader.budget`): once it is spent, its own
        :class:`~grader.budget.BudgetExceeded` is raised instead."""
        answer, words_read, notes = self._read(answer or "")
        view = self.view(answer, Deadline(budget, parent=within))
        hits = self._misconception_hits(view)
        voided, endorsed = self._voided(view, hits)
        present = view.a.index.keys() | view.extra.keys()
        negated_words = _NegatedWords(view) if max(view.a.neg, default=-1) >= 0 else None
        wrong_option = self._picks_uncredited_option(view)  # then no near miss and no base credit
        criteria = [self._criterion(view, c, voided, endorsed, negated_words, answer, present, not wrong_option)
                    for c in self._criteria]
        earned = round(sum(c.points for c in criteria), 4)
        on_topic = bool(self.base_share and view.a.key and not any(hits) and not wrong_option
                        and self._on_topic(view))
        copy = copies_question(view.a, self._question_keys, self._question_options, self.guards["copies_question"])
        form = None if copy else form_problem(view.a, self.guards)
        base = 0.0
        if on_topic and self.base_share and not copy and not (form and form.cap == 0.0):
            base = round(self.base_share * max(self.max_points - earned, 0.0), 4)
        misconceptions, running = self._deduct(view, hits, round(earned + base, 4))
        guards, running = self._guard(copy, form, running, notes)
        points = round(min(max(running, 0.0), self.max_points), 4)
        return apply_to_score(self.calibration, answer, RubricScore(
            points, self.max_points, criteria, misconceptions, self.id, self.version, notes,
            base, on_topic, guards, words_read))

    def _read(self, answer: str) -> tuple[str, int | None, list[str]]:
        """The part of ``answer`` that is scored (its first ``max_words`` words), the number of
        words read when it was cut (else ``None``), and the note that says so."""
        if self.max_words is not None:
            read, total_words = _first_words(answer, self.max_words)
            if total_words > self.max_words:
                return read, self.max_words, [
                    f"Only the first {self.max_words} words were read (the limit for this question is "
                    f"{self.max_words} words; this answer has {total_words})."]
        return answer, None, []

    def _voided(self, view: AnswerView, hits: list[list]) -> tuple[dict[str, str], bool]:
        """Criteria voided (criterion id -> the misconception that voids it) and whether the
        answer endorses a false statement (then the trap fires and every criterion is void).
        Fills ``hits`` for the trap in place."""
        voided: dict[str, str] = {}
        endorsed = False
        if self._trap is not None:
            verdict = endorsing_verdict(view.a)
            if verdict is not None:
                endorsed = True
                s, e = verdict
                at = tuple(i for i, (ts, te) in enumerate(view.a.span) if ts < e and te > s)
                for i, m in enumerate(self._misconceptions):
                    if m.id == self._trap and not hits[i]:
                        hits[i] = [at]
                for c in self._criteria:
                    voided[c.id] = self._trap
        for m, hit in zip(self._misconceptions, hits):
            for cid in m.voids if hit else ():
                voided.setdefault(cid, m.id)
        return voided, endorsed

    def _deduct(self, view: AnswerView, hits: list[list], running: float
                ) -> tuple[list[MisconceptionResult], float]:
        """Each misconception's result, its penalty taken from ``running`` (never below 0), in
        the rubric's order; returns the results and what is left."""
        misconceptions: list[MisconceptionResult] = []
        for m, hit in zip(self._misconceptions, hits):
            penalty = m.penalty if hit else 0.0
            deducted = round(min(penalty, running), 4)
            running = round(running - deducted, 4)
            misconceptions.append(MisconceptionResult(
                m.id, bool(hit), penalty, _spans(view, set(hit[0])) if hit else [], m.message, deducted,
                m.description))
        return misconceptions, running

    def _guard(self, copy, form, running: float, notes: list[str]) -> tuple[list[dict[str, Any]], float]:
        """Apply the guard that fired (a copy of the question earns nothing; a form problem caps
        the credit); append its note to ``notes``; return the guards and the points left."""
        if copy:
            notes.append("This answer repeats the question; it earns no credit. Answer it in your own words.")
            return [{"id": "copies_question", "cap": 0.0, "deducted": running, "reason": notes[-1]}], 0.0
        if form is not None:
            limit = round(form.cap * self.max_points, 4)
            deducted = round(max(running - limit, 0.0), 4)
            notes.append(form.reason)
            return ([{"id": form.guard, "cap": form.cap, "deducted": deducted, "reason": form.reason}],
                    round(running - deducted, 4))
        return [], running

    def _criterion(self, view: AnswerView, c: _Criterion, voided: dict[str, str], endorsed: bool,
                   negated_words: "_NegatedWords | None", answer: str, present: set,
                   near_ok: bool = True) -> CriterionResult:
        values, evidence = self._concept_values(view, c, present)
        matched = len(values) - values.count(0.0)
        met = matched >= c.required
        if met and c.id not in voided and not self._weighted:  # the common case: met, nothing more to look for
            return CriterionResult(c.id, c.description, c.points, c.points, True, _spans(view, evidence),
                                   c.met_text, matched, c.required, [], "met")
        mentioned = 0 if met else self._mentions(present, c)
        if not matched and not mentioned:  # none of its words: missed, nothing negated, no near miss
            return CriterionResult(c.id, c.description, 0.0, c.points, False, [], c.missed_text, 0, c.required,
                                   [], "")
        credit = ""
        near_spans: list[list[int]] = []
        if met:
            if self._weighted:
                pts = round(c.points * sum(sorted(values, reverse=True)[:c.required]) / c.required, 4)
            else:
                pts = c.points
            credit = "met"
        else:
            pts = round(c.points * matched / c.required, 4) if c.partial and matched else 0.0
            if pts:
                credit = "partial"
            if (self.near_miss_share and near_ok and c.near_words and c.id not in voided
                    and mentioned >= c.near_words):
                near, near_positions = self._near_miss(view, c, values)
                if near > pts and near_positions:
                    pts, credit = near, "near_miss"
                    near_spans = _spans(view, near_positions | evidence)
        feedback = c.met_text if met else c.missed_text
        if credit == "near_miss":
            quoted = "; ".join(f'"{answer[s:e]}"' for s, e in near_spans[:3])
            feedback = f"Partly there: your answer touches on this ({quoted}) but does not make the point. {c.missed_text}"
        if c.id in voided and pts:
            met, pts, credit = False, 0.0, ""
            feedback = (f"{c.missed_text} Not credited: your answer endorses the statement, which is false "
                        f"(misconception '{voided[c.id]}')." if endorsed else
                        f"{c.missed_text} Not credited: your answer also states the misconception "
                        f"'{voided[c.id]}', which contradicts this point.")
        negated: list[list[int]] = []
        if not met and negated_words is not None and c.id not in voided and self._mentions(negated_words.keys, c):
            negated = self._negated_mentions(view, c)
            if negated:
                quoted = "; ".join(f'"{answer[s:e]}"' for s, e in negated[:3])
                feedback = f"{feedback} Your answer mentions this only in a negated form ({quoted})."
        spans = _spans(view, evidence) if met or credit == "partial" else near_spans
        return CriterionResult(c.id, c.description, pts, c.points, met, spans, feedback, matched, c.required,
                               negated, credit)

    def _concept_values(self, view: AnswerView, c: _Criterion, present: set) -> tuple[list[float], set[int]]:
        """Each concept's value (1 or 0; a weight in [0, 1] for weighted alternatives) and the
        word positions of the first match of every concept that has one."""
        evidence: set[int] = set()
        values: list[float] = []
        check = view.deadline.check
        weighted, allow = self._weighted, c.allow_question_words
        for concept, needs in zip(c.concepts, c.needs):
            if needs is not None and needs.isdisjoint(present):
                values.append(0.0)  # none of its words is in the answer
                continue
            check()
            if weighted:
                value, found = self._concept(view, concept, allow)
            else:
                found = concept.find(view)
                if found and not allow:
                    found = self._qualifying(view, found, False)
                value = 1.0 if found else 0.0
            values.append(value)
            if value:
                evidence.update(found[0])
        return values, evidence

    def _near_miss(self, view: AnswerView, c: _Criterion, values: list[float]) -> tuple[float, set[int]]:
        """The near-miss credit of an unmet criterion (``points * near_miss * share``, where a
        matched concept counts 1 and an unmatched one the share of its best phrase the answer
        affirms) and the word positions that earned it."""
        shares, near_positions = [], set()
        for concept, value in zip(c.concepts, values):
            if value > 0:
                shares.append(value)
                continue
            view.deadline.check()
            share, where = concept.near(view, view.question_words)
            shares.append(share)
            near_positions.update(where)
        shares.sort(reverse=True)
        return round(c.points * self.near_miss_share * sum(shares[:c.required]) / c.required, 4), near_positions

    def _misconception_hits(self, view: AnswerView) -> list[list[Match]]:
        """Per misconception, the matches of its first pattern that holds (empty when none)."""
        out: list[list[Match]] = []
        for m in self._misconceptions:
            hit: list[Match] = []
            for pattern in m.patterns:
                view.deadline.check()
                hit = self._misconception_matches(view, pattern.find(view))
                if hit:
                    break
            out.append(hit)
        return out


def compile_rubric(doc: dict[str, Any], rubric_id: str | None = None, *, upload: bool = False) -> CompiledRubric:
    """Validate (marshmallow) and compile a rubric document.

    ``rubric_id`` fills ``id`` when the document has none (e.g. the file stem). Raises
    :class:`RubricError` whose ``errors`` lists every problem with its path; the result's
    ``warnings`` list what is valid but probably not meant.

    ``upload=True`` checks a new document (``POST``/``PUT /rubrics``): a regular expression that
    can take exponential time, or one phrase that stands for more word sequences than
    :data:`grader.rubric.compiler.MAX_VARIANTS`, is an error. Without it (a stored rubric, a file,
    an assignment's pinned copy) every document an earlier version accepted still compiles and
    means the same: those are warnings, and the per-answer CPU budget bounds their cost. The
    rubric language only grows.
    """
    try:
        data = validate_rubric(doc)
    except RubricError as exc:
        if exc.oversized:
            raise
        raise RubricError(exc.errors + semantic_errors(doc, exc.partial, upload)) from exc
    if rubric_id and not data.get("id"):
        data["id"] = rubric_id
    data.setdefault("version", 1)
    defaults = {**DEFAULT_OPTIONS, **data.get("defaults", {})}
    english_words()  # loaded once per process, here: never inside an answer's CPU budget
    vocab = FuzzyVocabulary()
    comp = PhraseCompiler(data.get("synonyms", {}), vocab, upload=upload)
    criteria: list[_Criterion] = []
    for i, c in enumerate(data["criteria"]):
        opts = {k: c.get(k, defaults[k]) for k in INHERITED}
        nodes = [comp.concept(spec, opts, f"criteria[{i}].concepts[{j}]") for j, spec in enumerate(c["concepts"])]
        req = c["require"]
        required = len(nodes) if req == "all" else 1 if req == "any" else int(req)
        fb = c.get("feedback") or {}
        criteria.append(_Criterion(
            c["id"], c["description"], float(c["points"]), tuple(nodes), required, c["partial"],
            c.get("question_words", defaults["question_words"]) == "allow",
            fb.get("met", f"Credit: {c['description']}."),
            fb.get("missed", f"Missing: {c['description']}."),
            concepts.vocabulary(nodes), concepts.near_words(nodes), tuple(concepts.needs(node) for node in nodes)))
    misconceptions: list[_Misconception] = []
    for i, m in enumerate(data.get("misconceptions", [])):
        opts = {k: m.get(k, defaults[k]) for k in INHERITED}
        # a misconception costs points: it matches as written unless it asks for misspellings
        # itself (``fuzzy`` on the misconception or one of its patterns); ``defaults`` do not
        opts["fuzzy"] = m.get("fuzzy", MISCONCEPTION_FUZZY)
        nodes = [comp.concept(spec, opts, f"misconceptions[{i}].patterns[{j}]") for j, spec in enumerate(m["patterns"])]
        misconceptions.append(_Misconception(
            m["id"], tuple(nodes), float(m["penalty"]), m["message"],
            m.get("question_words", defaults["question_words"]) == "allow", tuple(m.get("voids", ())),
            m.get("description", "")))
    if comp.errors:
        raise RubricError(comp.errors)
    question = analyse(data["question"])
    question_keys = frozenset(question.index)
    vocab.add_own(question.surface + question.key)
    trap = None
    if data.get("statement") is False and misconceptions:
        trap = data.get("trap", misconceptions[0].id)
    # on-topic vocabulary: the criteria's words (not the misconceptions') and the reference answer's
    topic_keys, topic_prefixes = set(), []
    for c in criteria:
        for concept in c.concepts:
            for leaf in concepts.walk(concept):
                if isinstance(leaf, Phrase):
                    for slot in leaf.slots:
                        topic_keys.update(k for k, _ in slot.keys)
                        topic_prefixes.extend(p for p, _ in slot.prefixes)
    criteria_words = (frozenset(topic_keys), tuple(dict.fromkeys(topic_prefixes)))  # question words included
    if data.get("reference_answer"):
        reference = analyse(data["reference_answer"])
        topic_keys.update(reference.index)
        vocab.add_own(reference.surface + reference.key)
    topic_keys -= question_keys
    compiled = CompiledRubric(data, criteria, misconceptions, vocab, question_keys, trap,
                              frozenset(topic_keys), tuple(dict.fromkeys(topic_prefixes)), comp.weighted,
                              criteria_words)
    compiled.warnings = rubric_warnings(data, compiled, comp)
    if "calibration" in data:
        compiled.calibration = calibration_from_document(data["calibration"])
    return compiled
