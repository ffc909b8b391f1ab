"""Compile validated concept mappings into matcher nodes (:mod:`grader.rubric.matching`).

Phrase syntax (inside a phrase string, after the same analysis as answers):

- words separated by spaces must appear in that order, stop words ignored on both sides;
- ``learn|train`` alternatives for one word position (``|`` binds tighter than a space);
  ``comput*`` a prefix wildcard (3+ letters); a hyphenated alternative (``sparse|low-rank``) stands
  for its words in order (``low rank``) or the joined word (``lowrank``), and with a wildcard
  (``soft-max*``) the last word and the joined word are prefixes (``soft max``, ``softmax``);
- ``@name`` inserts a synonym set (each entry may have several words; nesting allowed, no cycles);
  ``@not`` is built in: every negation word (not, no, never, without, don't, doesn't, isn't...);
- math is canonicalised like answers, so ``O(n^2)``, ``n*n``, ``sqrt(d_k)`` in a rubric match every
  spelling a learner may use.

Semantic errors (phrase without content words, unknown synonym, short wildcard) are collected with
their paths, like schema errors.
"""
from __future__ import annotations

import itertools
from typing import Any

import regex

from grader.rubric import lexicon
from grader.rubric.analysis import tokenize
from grader.rubric.regex_safety import regex_hazard
from grader.rubric.matching import (AllOf, AnyOf, FuzzyVocabulary, NoneOf, Phrase, Regex, Slot, Weighted,
                                    fuzz_budget)

#: Word sequences one phrase may stand for once its synonym sets and alternatives are expanded
#: (single-word alternatives share one word position, so ``@not`` next to a synonym set counts
#: once). Nothing is cut silently: past this an upload is refused naming the phrase, and a stored
#: rubric (accepted by a version that cut at 64) keeps its first variants with a warning that
#: names the phrase.
MAX_VARIANTS = 1_000
#: Word sequences (phrase variants after synonym expansion) a rubric may compile to: each is
#: looked up in every answer. The largest built-in rubric compiles to about 130.
MAX_COMPILED_PHRASES = 5_000
#: Words in one phrase variant once synonyms are expanded (synonyms of synonyms can double it).
MAX_PHRASE_WORDS = 32
#: Synonym sets every rubric can use without defining them (a rubric's own set of the same name wins).
BUILTIN_SYNONYMS = {"not": sorted(lexicon.NEGATION_CUES)}
#: Keys of negation words: a phrase position made only of them is never skipped by a near miss.
NEGATION_KEYS = frozenset({lexicon.stem(w) for w in lexicon.NEGATION_CUES} | {"not"})
#: Options a concept passes on to the concepts inside it.
INHERITED = ("gap", "order", "fuzzy", "polarity", "not_after")
#: Concept options a rubric's ``defaults:`` starts from.
DEFAULT_OPTIONS = {"gap": 0, "order": "fixed", "fuzzy": 1, "polarity": "affirmed",
                   "question_words": "discount", "not_after": ()}


def word_budget(word: str, fuzzy: int) -> int:
    """Misspellings a phrase word tolerates: its length guard (:func:`fuzz_budget`) capped by the
    phrase's ``fuzzy``; none for a negation word ("none" must not match "node", "neither" not
    "either"): negation words match exactly."""
    if word in lexicon.NEGATION_CUES or word == "not":
        return 0
    return min(fuzzy, fuzz_budget(word))


def not_after_words(value) -> frozenset:
    """``not_after`` as written ("non|un" or ["non", "un"]) -> lower-case words."""
    items = value.split("|") if isinstance(value, str) else list(value or ())
    return frozenset(w.strip().lower().rstrip("-") for w in items if w.strip())


QUOTES = ("'", '"')


def _quoted_stop_words(tokens, i: int) -> tuple[list[str], int]:
    """Stop words a phrase keeps on purpose: ``'has'`` or ``"has"`` (``'has|have'`` for either),
    the quotes touching the words. Returns the words and the index after the closing quote, or
    ``([], i)`` when ``tokens[i]`` opens no such quote (a quoted content word is an ordinary word)."""
    quote = tokens[i].text
    words, j, n = [], i + 1, len(tokens)
    while j < n and tokens[j].is_word and tokens[j].start == tokens[j - 1].end:
        words.append(tokens[j].text)
        if j + 1 < n and tokens[j + 1].text == "|" and tokens[j + 1].start == tokens[j].end:
            j += 2
            continue
        j += 1
        break
    if (words and j < n and tokens[j].text == quote and tokens[j].start == tokens[j - 1].end
            and all(w in lexicon.STOPWORDS for w in words)):
        return words, j + 1
    return [], i


def _distinct(sequences: list[list[Slot]]) -> list[list[Slot]]:
    """``sequences`` without repeats, in their order."""
    seen: set[tuple[Slot, ...]] = set()
    out = []
    for seq in sequences:
        if tuple(seq) not in seen:
            seen.add(tuple(seq))
            out.append(seq)
    return out


def _best_budgets(entries: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Alternatives of one word position, each key once with the largest misspelling budget it was
    given, in the order first written."""
    best: dict[str, int] = {}
    for key, budget in entries:
        best[key] = max(budget, best.get(key, 0))
    return tuple(best.items())


class PhraseCompiler:
    """Compiles concepts for one rubric, sharing its synonyms and misspelling vocabulary."""

    def __init__(self, synonyms: dict[str, list[str]], vocab: FuzzyVocabulary, upload: bool = False):
        self.synonyms = synonyms
        self.upload = upload  # a new document: what a stored one is only warned about is an error
        self.vocab = vocab
        self.errors: list[dict[str, str]] = []
        self.warnings: list[dict[str, str]] = []
        self.used_synonyms: set[str] = set()
        self.weighted = False  # some concept has a weight (scoring then reads concept values)
        self.compiled_phrases = 0
        # each synonym set is expanded once per misspelling budget: nested sets ("@a" = "@b @b",
        # "@b" = "@c @c" ...) would otherwise be re-expanded exponentially often
        self._syn_cache: dict[tuple[str, int], list[list[Slot]] | None] = {}

    def error(self, path: str, message: str) -> None:
        entry = {"path": path, "message": message}
        if entry not in self.errors:  # a synonym used twice reports its error once
            self.errors.append(entry)

    def warn(self, path: str, message: str) -> None:
        """Record something that is valid but probably not what the author meant."""
        entry = {"path": path, "message": message}
        if entry not in self.warnings:
            self.warnings.append(entry)

    # -- concepts -------------------------------------------------------------------------------
    def concept(self, spec: dict[str, Any], options: dict[str, Any], path: str):
        """Return a matcher node for one validated concept mapping, or ``None`` after an error."""
        node = self._concept(spec, options, path)
        if node is not None and spec.get("weight", 1.0) != 1.0:
            self.weighted = True
            return Weighted(node, float(spec["weight"]))
        return node

    def _concept(self, spec: dict[str, Any], options: dict[str, Any], path: str):
        opts = {**options, **{k: spec[k] for k in INHERITED if k in spec}}
        if "phrase" in spec:
            return self.phrase(spec["phrase"], opts, path)
        if "regex" in spec:
            return self.regex(spec["regex"], opts, f"{path}.regex")
        if "not_" in spec:
            child = self.concept(spec["not_"], opts, f"{path}.not")
            return NoneOf(child) if child is not None else None
        group = "any" if "any" in spec else "all"
        children = [self.concept(c, opts, f"{path}.{group}[{i}]") for i, c in enumerate(spec[group])]
        if any(c is None for c in children):
            return None
        if group == "any":
            return children[0] if len(children) == 1 else AnyOf(tuple(children))
        return AllOf(tuple(children), spec.get("within"), spec.get("same_sentence", False))

    def regex(self, pattern: str, opts: dict[str, Any], path: str):
        """A regular-expression concept. One that does not parse is an error; one that can take
        exponential time (or is over the length limit) is an error in an upload and a warning in
        a stored rubric; one that can take polynomial time is a warning (:func:`regex_hazard`).
        Every search runs under the answer's CPU budget."""
        hazard = regex_hazard(pattern)
        if hazard is not None:
            kind, message = hazard
            if kind == "invalid" or (self.upload and kind != "polynomial"):
                self.error(path, message)
                return None
            self.warn(path, f"{message}; accepted{' (stored before this check)' if kind != 'polynomial' else ''}: "
                            "each search stops at the answer's CPU budget, which then fails the answer "
                            "rather than scoring it")
        try:
            compiled = regex.compile(pattern, regex.IGNORECASE)
        except (regex.error, RecursionError, OverflowError) as exc:
            self.error(path, f"invalid regular expression: {exc}")
            return None
        return Regex(compiled, opts["polarity"], not_after_words(opts.get("not_after")))

    # -- phrases --------------------------------------------------------------------------------
    def phrase(self, text: str, opts: dict[str, Any], path: str):
        reading: list[list[str]] = []
        variants = self._variants(text, opts["fuzzy"], path, (), reading)
        self._warn_precedence(text, reading, path)
        if variants is None:
            return None
        if not variants:
            self.error(path, f"phrase {text!r} has no content words (only stop words)")
            return None
        not_after = not_after_words(opts.get("not_after"))
        nodes = tuple(Phrase(tuple(v), opts["gap"], opts["order"], opts["polarity"], text, not_after,
                             tuple(bool(slot.keys) and not slot.prefixes
                                   and all(k in NEGATION_KEYS for k, _ in slot.keys) for slot in v))
                      for v in variants)
        self.compiled_phrases += len(nodes)
        if self.compiled_phrases > MAX_COMPILED_PHRASES:
            self.error("", f"the rubric's phrases expand (synonyms and alternatives included) to more "
                           f"than {MAX_COMPILED_PHRASES:,} word sequences; use fewer or smaller synonym sets")
            return None
        return nodes[0] if len(nodes) == 1 else AnyOf(nodes)

    def _warn_precedence(self, text: str, reading: list[list[str]], path: str) -> None:
        """``|`` binds tighter than a space: warn when a phrase mixes them, showing how it reads
        ("dot product*|similarity|inner product|score" is three word positions, not four
        alternatives) and how to list alternatives of several words."""
        if len(reading) < 2 or not any(len(alts) > 1 for alts in reading):
            return
        parts = []
        for alts in reading:
            parts.append(alts[0] if len(alts) == 1 else "(" + " | ".join(alts) + ")")
        meant = ", ".join(f'"{alt.strip()}"' for alt in text.split("|"))
        self.warn(path, f"'|' binds tighter than a space: {text!r} reads as {' then '.join(parts)}. "
                        f"If you meant alternatives of several words, list them: any: [{meant}]")

    def _variants(self, text: str, fuzzy: int, path: str, stack: tuple[str, ...],
                  reading: list[list[str]] | None = None):
        """All slot sequences a phrase stands for (synonyms expanded), or None after an error.
        ``reading`` (optional) receives, per word position, how each alternative was written."""
        positions: list[list[list[Slot]]] = []  # per word position: alternative slot sequences
        tokens = tokenize(text)
        i, n = 0, len(tokens)
        kept: set[str] = set()  # quoted stop words ('has'), kept for the next word position
        while i < n:
            tok = tokens[i]
            if tok.text in QUOTES:
                quoted, after = _quoted_stop_words(tokens, i)
                if quoted:
                    kept.update(quoted)
                    i = after
                    continue
            if not tok.is_word and tok.text != "@":
                i += 1
                continue
            alts: list[tuple[str, str]] = []
            while True:
                if tok.text == "@":
                    if i + 1 >= n or not tokens[i + 1].is_word:
                        self.error(path, f"'@' must be followed by a synonym name in {text!r}")
                        return None
                    alts.append(("syn", tokens[i + 1].text))
                    i += 2
                else:
                    words = [tok.text]
                    end = tok.end
                    while (i + 2 < n and tokens[i + 1].text == "-" and tokens[i + 1].start == end
                           and tokens[i + 2].is_word and tokens[i + 2].start == tokens[i + 1].end):
                        words.append(tokens[i + 2].text)
                        end = tokens[i + 2].end
                        i += 2
                    wildcard = i + 1 < n and tokens[i + 1].text == "*" and tokens[i + 1].start == end
                    if len(words) > 1:  # "soft-max*": the words in order, the last one a prefix
                        alts.append(("seq*" if wildcard else "seq", " ".join(words)))
                    else:
                        alts.append(("prefix" if wildcard else "word", tok.text))
                    i += 2 if wildcard else 1
                if i + 1 < n and tokens[i].text == "|":
                    tok = tokens[i + 1]
                    i += 1
                    continue
                break
            choice = self._alternatives(alts, fuzzy, path, text, stack)
            if choice is None:
                return None
            if choice and kept:  # the word must come right after one of the kept stop words
                before = frozenset(kept)
                choice = [[Slot(seq[0].keys, seq[0].prefixes, before)] + seq[1:] for seq in choice]
                kept = set()
            if choice:
                positions.append(_distinct(choice))
                if reading is not None:
                    reading.append([("@" if kind == "syn" else "") + word.replace(" ", "-")
                                    + ("*" if kind in ("prefix", "seq*") else "") for kind, word in alts])
        if kept:
            self.error(path, f"the quoted stop word(s) {', '.join(sorted(kept))} in {text!r} need a word of the "
                             "phrase after them (a kept stop word must come right before a word)")
            return None
        total = 1
        for choice in positions:
            total *= len(choice)
        if total > MAX_VARIANTS:
            message = (f"phrase {text!r} stands for {total:,} word sequences once its synonym sets and "
                       f"alternatives are expanded (at most {MAX_VARIANTS:,}); split it into several "
                       f"concepts or use smaller synonym sets")
            if self.upload:
                self.error(path, message)
                return None
            self.warn(path, message + f": only its first {MAX_VARIANTS:,} are matched")
        variants = []
        for combo in itertools.islice(itertools.product(*positions), MAX_VARIANTS):
            variant = [slot for part in combo for slot in part]
            if len(variant) > MAX_PHRASE_WORDS:
                self.error(path, f"phrase {text!r} expands (synonyms included) to more than "
                                 f"{MAX_PHRASE_WORDS} words")
                return None
            variants.append(variant)
        return _distinct(variants) if positions else []  # the same words reached twice count once

    def _alternatives(self, alts, fuzzy, path, text, stack):
        keys: list[tuple[str, int]] = []
        prefixes: list[tuple[str, int]] = []
        sequences: list[list[Slot]] = []
        for kind, word in alts:
            if kind == "syn":
                expanded = self._synonym(word, fuzzy, path, stack)
                if expanded is None:
                    return None
                for seq in expanded:
                    if len(seq) == 1:  # a one-word entry is one more alternative of this word position
                        keys.extend(seq[0].keys)
                        prefixes.extend(seq[0].prefixes)
                    else:
                        sequences.append(seq)
            elif kind in ("seq", "seq*"):
                # a hyphenated word: "one-hot" is the words "one" "hot" in order, or the joined word
                # "onehot"; with a wildcard ("soft-max*") the last word (and the joined word) is a prefix
                parts = word.split()
                seq = []
                for j, part in enumerate(parts):
                    last_prefix = kind == "seq*" and j == len(parts) - 1 and len(part) >= 3
                    if part in lexicon.STOPWORDS and not last_prefix:
                        continue
                    if last_prefix:
                        self.vocab.add_prefix(part)
                        seq.append(Slot((), ((part, min(fuzzy, self.vocab.prefixes[part])),)))
                    else:
                        key = lexicon.stem(part)
                        budget = word_budget(part, fuzzy)
                        self.vocab.add(part, key, budget)
                        seq.append(Slot(((key, budget),)))
                if seq:
                    sequences.append(seq)
                joined = "".join(parts)
                if kind == "seq*":
                    self.vocab.add_prefix(joined)
                    prefixes.append((joined, min(fuzzy, self.vocab.prefixes[joined])))
                elif joined.isalpha():
                    key = lexicon.stem(joined)
                    budget = word_budget(joined, fuzzy)
                    self.vocab.add(joined, key, budget)
                    keys.append((key, budget))
            elif kind == "prefix":
                if len(word) < 3:
                    self.error(path, f"wildcard {word + '*'!r} needs at least 3 letters before '*'")
                    return None
                self.vocab.add_prefix(word)
                prefixes.append((word, min(fuzzy, self.vocab.prefixes[word])))
            elif word in lexicon.STOPWORDS:
                if len(alts) > 1:
                    self.error(path, f"alternative {word!r} in {text!r} is a stop word and never matches; "
                                     f"quote it ('{word}') to keep it")
                    return None
            else:
                if word == "n't":  # "n't" in a rubric is "not" (which also matches "don't", "dont")
                    word = "not"
                key = lexicon.stem(word)
                budget = word_budget(word, fuzzy)
                self.vocab.add(word, key, budget)
                keys.append((key, budget))
        if keys or prefixes:
            sequences.insert(0, [Slot(_best_budgets(keys), _best_budgets(prefixes))])
        return sequences

    def _synonym(self, name, fuzzy, path, stack):
        self.used_synonyms.add(name)
        if (name, fuzzy) in self._syn_cache:
            return self._syn_cache[(name, fuzzy)]
        out = self._expand_synonym(name, fuzzy, path, stack)
        known = name in self.synonyms or name in BUILTIN_SYNONYMS
        if known and (out is not None or name not in stack):
            self._syn_cache[(name, fuzzy)] = out
        return out

    def _expand_synonym(self, name, fuzzy, path, stack):
        if name in stack:
            self.error(path, f"synonym @{name} refers to itself")
            return None
        entries = self.synonyms.get(name, BUILTIN_SYNONYMS.get(name))
        if entries is None:
            known = ", ".join(sorted(self.synonyms)) or "none defined"
            self.error(path, f"unknown synonym @{name} (known: {known})")
            return None
        out: list[list[Slot]] = []
        for j, entry in enumerate(entries):
            reading: list[list[str]] = []
            variants = self._variants(entry, fuzzy, f"synonyms.{name}[{j}]", stack + (name,), reading)
            self._warn_precedence(entry, reading, f"synonyms.{name}[{j}]")
            if variants is None:
                return None
            if not variants:
                self.error(f"synonyms.{name}[{j}]", f"phrase {entry!r} has no content words")
                return None
            out.extend(variants)
        out = _distinct(out)
        if len(out) > MAX_VARIANTS:
            message = (f"synonym set @{name} stands for {len(out):,} word sequences once its own synonym sets "
                       f"are expanded (at most {MAX_VARIANTS:,}); use smaller synonym sets")
            if self.upload:
                self.error(f"synonyms.{name}", message)
                return None
            self.warn(f"synonyms.{name}", message + f": only its first {MAX_VARIANTS:,} are matched")
            out = out[:MAX_VARIANTS]
        return out
