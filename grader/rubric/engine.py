"""Compiled rubrics and their scores.

``compile_rubric(doc)`` validates and compiles once; ``CompiledRubric.score(answer)`` is pure and
deterministic (same answer, same rubric -> same score and evidence).

Scoring: a criterion earns its points when at least ``require`` of its concepts match (``all`` by
default); with ``partial: true`` it otherwise earns ``points * matched / required``. A concept match
made only of words that also occur in the question does not count (words copied from the question
earn nothing by themselves) unless ``question_words: allow``. Each matched misconception subtracts
its penalty. The total is clamped to ``[0, max_points]`` and rounded to 4 decimals.
A rubric with a ``calibration`` then maps that total onto the instructor's marks
(:func:`calibration.apply_to_score`; ``raw_points`` keeps the rubric's own points).

Spot-the-error and true/false rubrics whose statement is false (``statement: false``): a verdict
that endorses the statement (:func:`guards.endorsing_verdict`: "the statement is correct", "there
is no error") voids every criterion and fires the ``trap`` misconception (default: the first one).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from grader.rubric.analysis import analyse
from grader.rubric.calibration import Calibration, apply_to_score
from grader.rubric.calibration import from_document as calibration_from_document
from grader.rubric.compiler import PhraseCompiler
from grader.rubric.guards import copies_question, endorsing_verdict, form_problem, refuted
from grader.rubric.matching import AnswerView, FuzzyVocabulary, Match
from marshmallow import ValidationError

from grader.rubric.schema import ConceptField, RubricError, validate_rubric

DEFAULT_OPTIONS = {"gap": 0, "order": "fixed", "fuzzy": 1, "polarity": "affirmed",
                   "question_words": "discount"}


@dataclass
class CriterionResult:
    """One criterion's outcome; ``evidence`` holds ``[start, end)`` character spans of the answer.

    ``negated_evidence`` (missed criteria only) points at mentions that would have earned the
    criterion but are negated ("it is *not quadratic*"); the feedback then says so.
    """

    id: str
    description: str
    points: float
    max_points: float
    met: bool
    evidence: list[list[int]]
    feedback: str
    concepts_matched: int = 0
    concepts_required: int = 0
    negated_evidence: list[list[int]] = field(default_factory=list)


@dataclass
class MisconceptionResult:
    """One misconception: ``penalty`` is the points subtracted (0 when not matched)."""

    id: str
    matched: bool
    penalty: float
    evidence: list[list[int]]
    message: str


@dataclass
class RubricScore:
    """The score of one answer under one rubric version. ``notes`` explain engine-wide limits
    (a copy of the question, a bag of keywords, an extremely long answer: :mod:`guards`)."""

    points: float
    max_points: float
    criteria: list[CriterionResult] = field(default_factory=list)
    misconceptions: list[MisconceptionResult] = field(default_factory=list)
    rubric_id: str | None = None
    rubric_version: int | None = None
    notes: list[str] = field(default_factory=list)  # why the whole answer's credit was limited
    #: the rubric's own points before calibration (equal to ``points`` when it has none) and the
    #: calibration method applied (``None``: not calibrated); see :mod:`grader.rubric.calibration`
    raw_points: float | None = None
    calibration: str | None = None

    @property
    def fraction(self) -> float:
        """``points / max_points`` in [0, 1]."""
        return self.points / self.max_points if self.max_points else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


@dataclass
class _Misconception:
    id: str
    patterns: tuple
    penalty: float
    message: str
    allow_question_words: bool
    voids: tuple[str, ...] = ()


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


class CompiledRubric:
    """A rubric ready to score answers. Build with :func:`compile_rubric`.

    ``doc`` is the validated document (defaults filled in); ``id``/``version`` identify it in results.
    ``calibration`` (from the document's ``calibration`` field) maps raw points to the score.
    """

    calibration: Calibration | None = None

    def __init__(self, doc: dict[str, Any], criteria: list[_Criterion],
                 misconceptions: list[_Misconception], vocab: FuzzyVocabulary, question_keys: frozenset,
                 trap: str | None = None):
        self.doc = doc
        self.id: str | None = doc.get("id")
        self.version: int | None = doc.get("version")
        self.question: str = doc["question"]
        self.max_points: float = float(doc["max_points"])
        self._criteria = criteria
        self._misconceptions = misconceptions
        self._vocab = vocab
        self._question_keys = question_keys
        self._trap = trap  # misconception fired by a verdict endorsing a false statement

    @property
    def criterion_ids(self) -> list[str]:
        return [c.id for c in self._criteria]

    @property
    def misconception_ids(self) -> list[str]:
        return [m.id for m in self._misconceptions]

    def _qualifying(self, view: AnswerView, matches: list[Match], allow_question_words: bool) -> list[Match]:
        if allow_question_words:
            return matches
        keys, qk, neg = view.a.key, self._question_keys, view.a.neg
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
                for m in self._qualifying(view, concept.find(view), c.allow_question_words):
                    if view.negated(m):
                        cues = [view.a.neg[p] for p in m if view.a.neg[p] >= 0]
                        positions.update(range(min(cues + list(m)), max(m) + 1))
                        break
        finally:
            view.ignore_negation = False
        return _spans(view, positions)

    def score(self, answer: str) -> RubricScore:
        """Score one answer. Pure and deterministic; cost linear in the answer's length times the
        rubric's size (no per-answer compilation)."""
        answer = answer or ""
        view = AnswerView(analyse(answer), self._vocab)
        has_negation = any(n >= 0 for n in view.a.neg)
        hits = self._misconception_hits(view)
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
        total = 0.0
        criteria: list[CriterionResult] = []
        for c in self._criteria:
            evidence: set[int] = set()
            matched = 0
            for concept in c.concepts:
                found = self._qualifying(view, concept.find(view), c.allow_question_words)
                if found:
                    matched += 1
                    evidence.update(found[0])
            met = matched >= c.required
            if met:
                pts = c.points
            elif c.partial:
                pts = round(c.points * matched / c.required, 4)
            else:
                pts = 0.0
            feedback = c.met_text if met else c.missed_text
            if c.id in voided and (met or pts):
                met, pts = False, 0.0
                feedback = (f"{c.missed_text} Not credited: your answer endorses the statement, which is false "
                            f"(misconception '{voided[c.id]}')." if endorsed else
                            f"{c.missed_text} Not credited: your answer also states the misconception "
                            f"'{voided[c.id]}', which contradicts this point.")
            total += pts
            negated: list[list[int]] = []
            if not met and has_negation and c.id not in voided:
                negated = self._negated_mentions(view, c)
                if negated:
                    quoted = "; ".join(f'"{answer[s:e]}"' for s, e in negated[:3])
                    feedback = f"{feedback} Your answer mentions this only in a negated form ({quoted})."
            criteria.append(CriterionResult(
                c.id, c.description, pts, c.points, met, _spans(view, evidence) if (met or pts) else [],
                feedback, matched, c.required, negated))
        misconceptions: list[MisconceptionResult] = []
        for m, hit in zip(self._misconceptions, hits):
            penalty = m.penalty if hit else 0.0
            total -= penalty
            misconceptions.append(MisconceptionResult(
                m.id, bool(hit), penalty, _spans(view, set(hit[0])) if hit else [], m.message))
        points = min(max(total, 0.0), self.max_points)
        notes: list[str] = []
        if copies_question(view.a, self._question_keys):
            points = 0.0
            notes.append("This answer repeats the question; it earns no credit. Answer it in your own words.")
        else:
            form = form_problem(view.a)
            if form is not None:
                points = min(points, form.cap * self.max_points)
                notes.append(form.reason)
        return apply_to_score(self.calibration, answer, RubricScore(
            round(points, 4), self.max_points, criteria, misconceptions, self.id, self.version, notes))

    def _misconception_hits(self, view: AnswerView) -> list[list[Match]]:
        """Per misconception, the matches of its first pattern that holds (empty when none)."""
        out: list[list[Match]] = []
        for m in self._misconceptions:
            hit: list[Match] = []
            for pattern in m.patterns:
                hit = self._misconception_matches(view, pattern.find(view))
                if hit:
                    break
            out.append(hit)
        return out


def compile_rubric(doc: dict[str, Any], rubric_id: str | None = None) -> CompiledRubric:
    """Validate (marshmallow) and compile a rubric document.

    ``rubric_id`` fills ``id`` when the document has none (e.g. the file stem). Raises
    :class:`RubricError` whose ``errors`` lists every problem with its path.
    """
    try:
        data = validate_rubric(doc)
    except RubricError as exc:
        raise RubricError(exc.errors + _semantic_errors(doc, exc.partial)) from exc
    if rubric_id and not data.get("id"):
        data["id"] = rubric_id
    data.setdefault("version", 1)
    defaults = {**DEFAULT_OPTIONS, **data.get("defaults", {})}
    vocab = FuzzyVocabulary()
    comp = PhraseCompiler(data.get("synonyms", {}), vocab)
    criteria: list[_Criterion] = []
    for i, c in enumerate(data["criteria"]):
        opts = {k: c.get(k, defaults[k]) for k in ("gap", "order", "fuzzy", "polarity")}
        nodes = [comp.concept(spec, opts, f"criteria[{i}].concepts[{j}]") for j, spec in enumerate(c["concepts"])]
        req = c["require"]
        required = len(nodes) if req == "all" else 1 if req == "any" else int(req)
        fb = c.get("feedback") or {}
        criteria.append(_Criterion(
            c["id"], c["description"], float(c["points"]), tuple(nodes), required, c["partial"],
            c.get("question_words", defaults["question_words"]) == "allow",
            fb.get("met", f"Credit: {c['description']}."),
            fb.get("missed", f"Missing: {c['description']}.")))
    misconceptions: list[_Misconception] = []
    for i, m in enumerate(data.get("misconceptions", [])):
        opts = {k: m.get(k, defaults[k]) for k in ("gap", "order", "fuzzy", "polarity")}
        nodes = [comp.concept(spec, opts, f"misconceptions[{i}].patterns[{j}]") for j, spec in enumerate(m["patterns"])]
        misconceptions.append(_Misconception(
            m["id"], tuple(nodes), float(m["penalty"]), m["message"],
            m.get("question_words", defaults["question_words"]) == "allow", tuple(m.get("voids", ()))))
    if comp.errors:
        raise RubricError(comp.errors)
    question_keys = frozenset(analyse(data["question"]).index)
    trap = None
    if data.get("statement") is False and misconceptions:
        trap = data.get("trap", misconceptions[0].id)
    rubric = CompiledRubric(data, criteria, misconceptions, vocab, question_keys, trap)
    if "calibration" in data:
        rubric.calibration = calibration_from_document(data["calibration"])
    return rubric


def _semantic_errors(doc: dict[str, Any], partial: dict[str, Any]) -> list[dict[str, str]]:
    """Compile every concept that passed the schema, so that one pass over an invalid rubric also
    reports unknown synonyms, short wildcards and the like (paths index the document as written)."""
    raw_synonyms = doc.get("synonyms") if isinstance(doc.get("synonyms"), dict) else {}
    comp = PhraseCompiler(partial.get("synonyms") or {}, FuzzyVocabulary())
    opts = {**DEFAULT_OPTIONS, **(partial.get("defaults") or {})}
    for section, key in (("criteria", "concepts"), ("misconceptions", "patterns")):
        entries = doc.get(section)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            concepts = entry.get(key) if isinstance(entry, dict) else None
            for j, raw in enumerate(concepts if isinstance(concepts, list) else []):
                try:
                    spec = ConceptField().deserialize(raw)
                except ValidationError:
                    continue  # already reported by the schema
                comp.concept(spec, opts, f"{section}[{i}].{key}[{j}]")
    # a synonym set the schema refused is reported there, not again as "unknown" at each use
    return [e for e in comp.errors
            if not any(f"unknown synonym @{name} " in e["message"] for name in raw_synonyms)]
