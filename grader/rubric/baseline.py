"""The plain keyword-overlap baseline for short-answer grading (Mohler et al. 2011, "lexical overlap").

score(answer) = share of the reference answer's distinct content words that occur in the answer,
after lower-casing, dropping English stop words and crude stemming (a few common suffixes cut).
It knows nothing of synonyms, negation or order; it is the floor a rubric has to beat.
"""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")
# A standard short English stop list (articles, pronouns, auxiliaries, prepositions, conjunctions).
_STOP = frozenset(
    """a an the of to in on at for by with as from into onto about over under and or but nor so if
    then than that this these those there here it its is are was were be been being am do does did
    have has had having can could will would shall should may might must i we you he she they them
    us our your his her their me my which who whom whose what when where why how not no yes also
    just only very such each every any all both either neither some more most other another same
    own too i.e e.g""".split()
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")


def crude_stem(word: str) -> str:
    """Cut the first matching common suffix when at least three letters remain."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_stems(text: str) -> set[str]:
    """Distinct crude stems of the non-stop words of ``text``."""
    return {crude_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def keyword_overlap(answer: str, reference: str) -> float:
    """Share (0-1) of the reference's content stems present in the answer; 0 for an empty reference."""
    ref = content_stems(reference)
    if not ref:
        return 0.0
    return len(ref & content_stems(answer)) / len(ref)
