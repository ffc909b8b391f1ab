"""Paraphrases a rubric did not foresee: what well-marked answers say that no criterion matched.

Two sections of the trial report (:func:`grader.rubric.agreement.trial_report`), both for the
instructor to read; the engine never adds an alternative by itself:

``unmatched_phrases`` (:func:`unmatched_phrases`)
    The *under-marked* responses are those with a human mark of at least half the rubric's points
    whose raw rubric points fall more than the trial's tolerance below that mark. In each, the
    words that no criterion used as evidence are cut into n-grams (1 to 3 content words of one
    clause; stop words skipped, so "last in first out" is one 3-gram). A phrase is listed when at
    least 2 under-marked responses use it, it is not made only of the question's words or of
    negation words, and it is more frequent (as a share of responses) among the under-marked
    responses than among the low-marked ones (mark below half), which are the contrast: words
    every answer uses are not paraphrases of the missing point. A phrase inside a longer listed
    phrase with the same count is dropped. Each entry has ``count`` (under-marked responses
    using it), ``low_marked_count``, whether the rubric already uses its words (``in_rubric``:
    then the rubric has them but in another order, gap or sentence) and example response ids.

``suggestions`` (:func:`wordnet_suggestions`)
    For every criterion the under-marked responses missed, the WordNet relatives of its concept
    words (synonyms, similar adjectives, one level of narrower and broader terms, from the first
    :data:`SENSES` senses of each word) that those responses actually use, with counts and the
    WordNet sense that relates them, e.g. "answers say *delete* (5) where criterion pop-removes
    says *remove* (narrower term, delete.v.01: remove or make invisible)". Then, for the same
    criteria, a few WordNet synonyms of each concept word that no response used
    (``alternatives``), to consider.

WordNet comes from Debian's ``wordnet-base`` package (``/usr/share/wordnet``, WordNet 3.0;
``GRADER_WORDNET_DIR`` points elsewhere) read with nltk's ``WordNetCorpusReader``, offline: nothing
is ever downloaded. Debian's layout lacks two files nltk expects, which :class:`_DebianWordNet`
shims (see there). Without WordNet the trial still works and says suggestions are unavailable.
"""
from __future__ import annotations

import functools
import io
import os
import re
import threading
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Sequence

from grader.rubric import lexicon
from grader.rubric.analysis import Analysis, analyse

DEBIAN_WORDNET = "/usr/share/wordnet"
MAX_N = 3             # longest n-gram, in content words
MIN_COUNT = 2         # a phrase used by fewer under-marked responses is not listed
PHRASE_LIMIT = 15
SUGGESTION_LIMIT = 20
SENSES = 4            # WordNet senses of a rubric word looked at (most frequent first)
ALTERNATIVES = 6      # unused WordNet synonyms listed per rubric word
ALTERNATIVE_SENSES = 2  # ... taken from its first senses only
EXAMPLES = 5          # response ids listed per phrase
HIGH_MARK = 0.5       # share of max_points from which a mark counts as high
#: words too general to stand alone as a missing paraphrase (listed only inside longer phrases)
GENERAL_WORDS = frozenset(
    """when where while if so such than then because since how why all any some each every other
    same more most much many only etc e.g i.e one two first also like way thing things something
    use used using make makes made get gets give gives""".split())
_WORD_RE = re.compile(r"(@?)([A-Za-z][A-Za-z'_-]*)(\*?)")

#: WordNet 3.0 lexicographer file names in file-number order (the ``lexnames`` file of the
#: Princeton distribution; Debian documents them in lexnames(5WN) but does not ship the file).
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
    "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
    "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
    "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
    "adj.ppl").split()
_LEX_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}


# -- WordNet ------------------------------------------------------------------------------------
def wordnet_dir() -> Path:
    """Where WordNet's database files are: ``$GRADER_WORDNET_DIR`` or Debian's ``/usr/share/wordnet``."""
    return Path(os.environ.get("GRADER_WORDNET_DIR") or DEBIAN_WORDNET)


_load_lock = threading.Lock()


@functools.lru_cache(maxsize=4)
def _load(root: str):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _DebianWordNet(WordNetCorpusReader):
        """nltk's reader over Debian's ``wordnet-base`` layout. Two shims, nothing else changed:

        - ``lexnames`` (sense file number -> name) is not in Debian's package: it is served from
          :data:`LEXNAMES`, the fixed WordNet 3.0 list;
        - ``map_wn`` maps Open Multilingual Wordnet data onto another WordNet version by reading
          nltk's own ``wordnet`` corpus (``index.sense``), which is absent here; we read English
          WordNet 3.0 only (no OMW reader), so there is nothing to map and it returns ``None``.
        """

        def open(self, file):  # noqa: A003 - the reader's own method name
            if file == "lexnames":
                return io.StringIO("".join(f"{i:02d}\t{name}\t{_LEX_POS[name.split('.')[0]]}\n"
                                           for i, name in enumerate(LEXNAMES)))
            return super().open(file)

        def map_wn(self, version="wordnet"):
            return None

    import nltk

    # nltk (3.9+) opens corpus files only under its data roots: add this one, nothing is fetched
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": none needed
        return _DebianWordNet(root, None)


def load_wordnet(root: str | Path | None = None):
    """nltk's WordNet reader over ``root`` (default :func:`wordnet_dir`), loaded once (about 2 s
    and 70 MB), or ``None`` when nltk or the database files are missing or unreadable."""
    root = Path(root) if root is not None else wordnet_dir()
    if not (root / "data.noun").is_file() or not (root / "index.noun").is_file():
        return None
    try:
        with _load_lock:
            return _load(str(root.resolve()))
    except (ImportError, OSError, ValueError, LookupError, PermissionError):
        return None


# -- the rubric's own words ---------------------------------------------------------------------
def _phrases(concept: Any) -> list[str]:
    """The phrase strings of one validated concept (``not`` and ``regex`` excluded)."""
    if isinstance(concept, str):
        return [concept]
    if not isinstance(concept, dict):
        return []
    if "phrase" in concept:
        return [concept["phrase"]]
    out: list[str] = []
    for child in concept.get("any") or concept.get("all") or []:
        out.extend(_phrases(child))
    return out


def _words(phrase: str, synonyms: dict[str, list[str]], seen: frozenset = frozenset()) -> list[tuple[str, bool]]:
    """Words of a rubric phrase as ``(word, is_wildcard)``, synonym sets expanded (no cycles)."""
    out: list[tuple[str, bool]] = []
    for at, word, star in _WORD_RE.findall(phrase):
        if at:
            if word in synonyms and word not in seen:
                for entry in synonyms[word]:
                    out.extend(_words(entry, synonyms, seen | {word}))
            continue
        for part in word.replace("_", "-").split("-"):
            if part and part.lower() not in lexicon.STOPWORDS:
                out.append((part.lower(), bool(star)))
    return out


def rubric_words(doc: dict[str, Any]) -> dict[str, list[str]]:
    """Per criterion id, its concept words in order of appearance (lower case, no wildcards)."""
    synonyms = doc.get("synonyms") or {}
    out: dict[str, list[str]] = {}
    for c in doc.get("criteria", []):
        words: list[str] = []
        for concept in c.get("concepts", []):
            for phrase in _phrases(concept):
                words.extend(w for w, star in _words(phrase, synonyms) if not star)
        out[c["id"]] = list(dict.fromkeys(words))
    return out


def _rubric_keys(doc: dict[str, Any]) -> tuple[set[str], tuple[str, ...]]:
    """Stems of every word the rubric's phrases use, and its wildcard prefixes."""
    synonyms = doc.get("synonyms") or {}
    keys: set[str] = set()
    prefixes: list[str] = []
    for section, field in (("criteria", "concepts"), ("misconceptions", "patterns")):
        for entry in doc.get(section, []):
            for concept in entry.get(field, []):
                for phrase in _phrases(concept):
                    for word, star in _words(phrase, synonyms):
                        if star:
                            prefixes.append(word)
                        else:
                            keys.add(lexicon.stem(word))
    return keys, tuple(prefixes)


# -- unmatched phrases --------------------------------------------------------------------------
def _ngrams(a: Analysis, skip: set[int]) -> dict[tuple[str, ...], tuple[int, int]]:
    """Every n-gram (1..MAX_N consecutive content positions of one clause, none in ``skip``) of
    an analysis, mapped to the character span of its first occurrence."""
    out: dict[tuple[str, ...], tuple[int, int]] = {}
    n = len(a.key)
    for i in range(n):
        if i in skip:
            continue
        for j in range(i, min(n, i + MAX_N)):
            if j in skip or a.clause[j] != a.clause[i]:
                break
            out.setdefault(tuple(a.key[i:j + 1]), (a.span[i][0], a.span[j][1]))
    return out


def _covered(a: Analysis, spans: Sequence[Sequence[int]]) -> set[int]:
    return {p for p, (s, e) in enumerate(a.span) for (es, ee) in spans if s < ee and e > es}


def _groups(marks: Sequence[float], raw: Sequence[float], max_points: float, tolerance: float):
    high = [i for i, m in enumerate(marks) if m >= HIGH_MARK * max_points and m - raw[i] > tolerance]
    low = [i for i, m in enumerate(marks) if m < HIGH_MARK * max_points]
    return high, low


def unmatched_phrases(compiled, texts: Sequence[str], ids: Sequence[Any], results: Sequence[Any],
                      marks: Sequence[float], tolerance: float, limit: int = PHRASE_LIMIT) -> dict[str, Any]:
    """The ``unmatched_phrases`` section (module docstring). ``texts``, ``ids``, ``results``
    (:class:`RubricScore`, raw points in ``raw_points``) and ``marks`` (rubric points) are
    parallel; ``tolerance`` in rubric points. Returns ``{"under_marked", "low_marked",
    "phrases": [{"phrase", "count", "low_marked_count", "in_rubric", "responses"}]}``."""
    raw = [r.raw_points if r.raw_points is not None else r.points for r in results]
    under, low = _groups(marks, raw, compiled.max_points, tolerance)
    question = set(analyse(compiled.question).key)
    rubric_keys, prefixes = _rubric_keys(compiled.doc)
    counts: Counter = Counter()
    low_counts: Counter = Counter()
    surfaces: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    examples: dict[tuple[str, ...], list[Any]] = defaultdict(list)
    for i in under:
        a = analyse(texts[i])
        evidence = [span for c in results[i].criteria for span in c.evidence]
        for gram, (s, e) in _ngrams(a, _covered(a, evidence)).items():
            counts[gram] += 1
            surfaces[gram][texts[i][s:e].lower()] += 1
            if len(examples[gram]) < EXAMPLES:
                examples[gram].append(ids[i])
    for i in low:
        for gram in _ngrams(analyse(texts[i]), set()):
            if gram in counts:
                low_counts[gram] += 1
    negations = lexicon.NEGATION_CUES

    def keep(gram: tuple[str, ...], count: int) -> bool:
        if count < MIN_COUNT or all(k in question for k in gram):
            return False
        if all(k in negations or k in ("n't",) for k in gram):
            return False
        if len(gram) == 1 and (gram[0] in GENERAL_WORDS or lexicon.stem(gram[0]) != gram[0] and
                               any(lexicon.stem(w) == gram[0] for w in GENERAL_WORDS)):
            return False
        if low and low_counts[gram] / len(low) >= count / len(under):
            return False
        return True

    candidates = [g for g, c in counts.items() if keep(g, c)]
    candidates.sort(key=lambda g: (-counts[g], low_counts[g], -len(g), g))
    chosen: list[tuple[str, ...]] = []
    for gram in candidates:
        inside = any(len(other) > len(gram) and counts[other] == counts[gram]
                     and any(other[k:k + len(gram)] == gram for k in range(len(other) - len(gram) + 1))
                     for other in candidates)
        # a 3-gram sliding along a listed one ("access and modify the" after "ability to access
        # and modify") says nothing new
        k = len(gram) - 1
        overlaps = k >= 2 and any(len(c) == len(gram) and (c[-k:] == gram[:k] or gram[-k:] == c[:k])
                                  for c in chosen)
        if not inside and not overlaps:
            chosen.append(gram)
        if len(chosen) >= limit:
            break
    phrases = [{"phrase": surfaces[g].most_common(1)[0][0], "count": counts[g],
                "low_marked_count": low_counts[g],
                "in_rubric": all(k in rubric_keys or k.startswith(prefixes) for k in g),
                "responses": examples[g]} for g in chosen]
    return {"under_marked": len(under), "low_marked": len(low), "phrases": phrases}


# -- WordNet suggestions ------------------------------------------------------------------------
def _relatives(wn, word: str, senses_: int = SENSES) -> list[tuple[str, str, str]]:
    """WordNet relatives of ``word``: ``(lemma with spaces, relation, "synset: gloss")`` from its
    first ``senses_`` senses; synonyms first, then similar, narrower, broader terms."""
    out: list[tuple[str, str, str]] = []
    try:
        senses = wn.synsets(word)[:senses_]
    except Exception:  # a word nltk's morphology cannot handle: no relatives, never a failed trial
        return out
    order = (("synonym", lambda s: [s]), ("similar", lambda s: s.similar_tos()),
             ("narrower", lambda s: s.hyponyms()), ("broader", lambda s: s.hypernyms()))
    for relation, related in order:
        for sense in senses:
            for synset in related(sense):
                gloss = f"{synset.name()}: {synset.definition()}"
                for lemma in synset.lemma_names():
                    name = lemma.replace("_", " ").lower()
                    if name != word:
                        out.append((name, relation, gloss))
    return out


def _key_seq(text: str) -> tuple[str, ...]:
    return tuple(analyse(text).key)


def wordnet_suggestions(compiled, texts: Sequence[str], results: Sequence[Any], marks: Sequence[float],
                        tolerance: float, wordnet=None, limit: int = SUGGESTION_LIMIT) -> dict[str, Any]:
    """The ``suggestions`` section (module docstring). Arguments as :func:`unmatched_phrases`;
    ``wordnet`` is a reader (default :func:`load_wordnet`). Returns ``{"available": False,
    "reason"}`` without WordNet, else ``{"available": True, "source", "used": [{"criterion",
    "rubric_word", "answer_phrase", "relation", "sense", "count"}], "alternatives":
    [{"criterion", "word", "alternatives"}]}``."""
    wn = wordnet if wordnet is not None else load_wordnet()
    if wn is None:
        return {"available": False,
                "reason": f"WordNet is not installed (Debian package wordnet-base, {wordnet_dir()}): "
                          "suggestions are unavailable; the unmatched phrases are still listed"}
    raw = [r.raw_points if r.raw_points is not None else r.points for r in results]
    under, _ = _groups(marks, raw, compiled.max_points, tolerance)
    missed: Counter = Counter()
    grams: dict[int, set[tuple[str, ...]]] = {}
    for i in under:
        for c in results[i].criteria:
            if not c.met:
                missed[c.id] += 1
        grams[i] = set(_ngrams(analyse(texts[i]), set()))
    rubric_keys, _ = _rubric_keys(compiled.doc)
    question = set(analyse(compiled.question).key)
    general = {lexicon.stem(w) for w in GENERAL_WORDS} | GENERAL_WORDS
    words = rubric_words(compiled.doc)
    used: list[dict[str, Any]] = []
    alternatives: list[dict[str, Any]] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for cid, _n in missed.most_common():
        # n-grams of the under-marked responses that missed this criterion, each counted once per response
        missed_grams = Counter(g for i in under if not _met(results[i], cid) for g in grams[i])
        unused: dict[str, list[str]] = {}
        for word in words.get(cid, []):
            if not word.isalpha() or len(word) < 4:  # "try", "end": WordNet relatives are noise
                continue
            first = {name for name, rel, _ in _relatives(wn, word, ALTERNATIVE_SENSES) if rel == "synonym"}
            for name, relation, gloss in _relatives(wn, word):
                seq = _key_seq(name)
                if (not seq or all(k in rubric_keys or k in question or k in general for k in seq)
                        or (cid, seq) in seen):
                    continue
                seen.add((cid, seq))
                count = missed_grams[seq]
                if count >= (1 if relation in ("synonym", "similar") else MIN_COUNT):
                    used.append({"criterion": cid, "rubric_word": word, "answer_phrase": name,
                                 "relation": relation, "sense": gloss, "count": count})
                elif relation == "synonym" and not count and name in first:
                    unused.setdefault(word, [])
                    if len(unused[word]) < ALTERNATIVES:
                        unused[word].append(name)
        alternatives.extend({"criterion": cid, "word": w, "alternatives": alts}
                            for w, alts in unused.items() if alts)
    rank = {"synonym": 0, "similar": 1, "narrower": 2, "broader": 3}
    used.sort(key=lambda u: (-u["count"], rank[u["relation"]], u["criterion"], u["answer_phrase"]))
    return {"available": True, "source": f"WordNet 3.0 ({wordnet_dir()})", "used": used[:limit],
            "alternatives": alternatives[:limit]}


def _met(result, criterion_id: str) -> bool:
    return any(c.id == criterion_id and c.met for c in result.criteria)
