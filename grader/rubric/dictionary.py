"""Is a word correctly spelled English? The guard that keeps misspelling tolerance from turning one
real word into another ("list" is not a misspelling of "last", "node" not of "none").

The word list is pyspellchecker's English dictionary (about 160,000 lower-case words with their
inflections: "list", "lists", "listed"; MIT licence), loaded once per process on first use. It is
pinned with the package's version in ``pyproject.toml``: a new list would change which answer
words may count as misspellings, and so the scores of stored rubrics.

Moodle pmatch returns unknown words to the student to correct; here a word the dictionary knows is
taken as written, and only a word it does not know ("quadradic", "recieve") may be read as a
misspelling of a rubric word (:class:`grader.rubric.matching.FuzzyVocabulary`).
"""
from __future__ import annotations

import threading

_LOCK = threading.Lock()
_WORDS: frozenset[str] | None = None


def english_words() -> frozenset[str]:
    """The lower-case English words (inflected forms included) of pyspellchecker's dictionary."""
    global _WORDS
    if _WORDS is None:
        with _LOCK:
            if _WORDS is None:
                from spellchecker import SpellChecker

                _WORDS = frozenset(SpellChecker(language="en", distance=1).word_frequency.keys())
    return _WORDS


def is_english_word(word: str) -> bool:
    """True when ``word`` (lower case, as :func:`grader.rubric.analysis.tokenize` gives it) is a
    correctly spelled English word: then it is never read as a misspelling of another word."""
    return word in english_words()
