"""Word lists and the stemmer shared by answer analysis and rubric compilation.

The stop-word list is deliberately small: words that carry meaning in explanations of attention
("each", "every", "all", "over", "same", "only", "not") are kept. Negation cues, pseudo-negations
and scope terminators follow NegEx (Chapman et al. 2001, J. Biomed. Inform. 34(5)) and negspacy's
English termset, trimmed to what occurs in short technical answers.
"""
from __future__ import annotations

import snowballstemmer

STOPWORDS = frozenset(
    """a an the of to in on at for by with as from into onto about
    is are was were be been being am 's
    it its it's this that these those there here
    and or but
    do does did doing done
    has have had having
    can could will would shall should may might must
    i we you they he she them us our your their his her me my
    which who whom whose what
    also just then thus very really simply basically actually
    """.split()
)

NEGATION_CUES = frozenset(
    """not no never without cannot can't neither nor none nothing nobody nowhere
    don't doesn't didn't isn't aren't wasn't weren't won't wouldn't shouldn't couldn't
    hasn't haven't hadn't mustn't needn't ain't
    dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt couldnt cant
    hardly scarcely barely""".split()
)

#: Contractions of "not": a rubric's ``not`` (or ``n't``) also matches them ("don't", "dont").
NOT_CONTRACTIONS = frozenset(w for w in NEGATION_CUES if w.endswith(("n't", "nt")) or w == "cannot")

#: Negations of several words (NegEx "pre-negation" phrases), by first word: the cue is the first
#: content word of the sequence, its other words are part of the cue (not of the negated scope).
#: "far from" + a determiner or pronoun is a distance, not a negation ("far from the query").
MULTIWORD_CUES: dict[str, tuple[tuple[str, ...], ...]] = {
    "far": (("far", "from"),),
    "anything": (("anything", "but"),),
    "no": (("no", "longer"),),
    "by": (("by", "no", "means"),),
    "in": (("in", "no", "way"),),
    "nowhere": (("nowhere", "near"),),
    "fail": (("fail", "to"),),
    "fails": (("fails", "to"),),
    "failed": (("failed", "to"),),
    "unable": (("unable", "to"),),
    "not": (("not", "at", "all"),),
}
FAR_FROM_LITERAL = frozenset(
    """the a an each every one its it them this that these those any other another here there
    where home our your their his her my""".split())

#: Two-word sequences that look like a negation but are not one ("not only X but also Y").
PSEUDO_NEGATIONS = frozenset(
    [("not", "only"), ("not", "just"), ("no", "matter"), ("not", "merely"), ("no", "doubt"),
     ("without", "doubt")]
)

#: Two-word cues whose second word starts the negated scope: "rather than X", "instead of X".
TWO_WORD_CUES = frozenset([("rather", "than"), ("instead", "of")])

#: Second words of the two-word cues and pseudo-negations (a cheap pre-check).
PAIR_SECOND_WORDS = frozenset(w for _, w in PSEUDO_NEGATIONS | TWO_WORD_CUES)

#: Words that end a negation scope (NegEx "conjunctions"/termination terms).
SCOPE_TERMINATORS = frozenset(
    """but however although though yet whereas while except because since so therefore hence
    thus which whereby unless until otherwise""".split()
)

#: Words that open a new clause: a phrase's ``gap`` never runs across one, and a negation scope
#: ends at one (the scope terminators, and "than": "the penny has more mass than the nickel ...").
#: A relative pronoun ("which", "whereby") ends a negation scope but stays in its noun's clause
#: ("the weights which are learned"). A phrase that writes the word itself ("more mass than")
#: still matches across it.
CLAUSE_OPENERS = (SCOPE_TERMINATORS - {"which", "whereby"}) | {"than"}
#: After "than" these make a quantity, not a clause: "more than one constructor", "less than 2".
#: (a number written in digits too).
QUANTITY_WORDS = frozenset("zero one two three four five six seven eight nine ten once twice half a few".split())

#: Finite auxiliaries, copulas and modals. After a negation scope has covered a word, one of them
#: starts the next clause ("instead of using recursive functions **is** by using iteration", "the
#: weights are not learned they **are** computed"), unless the cue negates a subject ("no
#: element is removed": the subject's own verb) or a clause (a refutation frame).
FINITE_VERBS = frozenset("""is are was were am has have had do does did can could will would shall
    should may might must""".split())
#: Subject pronouns: after a covered word they start a new clause in a run-on sentence ("... not
#: learned they are computed"). "it" and "you" are also objects, so they are not among them.
SUBJECT_PRONOUNS = frozenset("i we they he she".split())
#: Negation cues that negate a noun phrase (the subject, usually): the first finite verb after them
#: is that subject's verb and stays in the scope ("no element **is** removed", "nothing is learned").
NOMINAL_CUES = frozenset("no none nothing nobody neither nor nowhere".split())
#: "not"/"never" before a quantifier negate the noun phrase too ("not all tokens are masked").
NOMINAL_AFTER_NOT = frozenset("all every each many much any".split())

#: "and"/"or" followed by one of these starts a new clause or a new verb phrase and ends the
#: scope: "the weights are not learned and the softmax ...", "the mask is not fixed and can grow".
CLAUSE_STARTERS = frozenset(
    """the a an it its this that these those they we you there each every all some any
    he she one
    can could will would shall should may might must is are was were be been being am
    has have had do does did also then still instead thus therefore so hence rather
    gets get got becomes become became remains stays makes made""".split()
)

#: Punctuation that ends a negation scope; the first four also end a sentence.
SENTENCE_END = frozenset(".!?\n")
SCOPE_PUNCTUATION = frozenset(".!?\n,;:()[]—–\"")

#: Refutation frames: a refutation word right before one of the frame words ("it is wrong to say
#: X", "it is a myth that X", "false to claim X") negates X like a cue (the refutation word is the
#: cue). "that" is a stop word, so "false that X" is the refutation word then X's first word.
REFUTATION_CUES = frozenset("wrong false incorrect untrue mistake mistaken myth misleading".split())
REFUTATION_FRAME_WORDS = frozenset("say saying claim claiming think thinking believe assume state suggest that".split())

#: Cues with a shorter reach: "without" negates its object only ("without scaling the variance grows").
SHORT_CUES = {"without": 2}
#: A short cue right before one of these negates only that pronoun: "without it the scores grow"
#: says the scores grow (its object, "it", has no content words to cover).
PRONOUN_OBJECTS = frozenset("it them".split())

#: Content words a negation cue reaches at most (NegEx uses a five-word window; stop words are not counted).
NEGATION_WINDOW = 6

#: Stop words the negation scanner has to look at (terminators, second words of cue pairs, frame
#: words, "and"/"or", words inside multi-word cues); every other stop word is skipped at once.
NEGATION_RELEVANT_STOPWORDS = STOPWORDS & (
    SCOPE_TERMINATORS | PAIR_SECOND_WORDS | REFUTATION_FRAME_WORDS | NEGATION_CUES | {"and", "or"}
    | {w for seqs in MULTIWORD_CUES.values() for seq in seqs for w in seq}
    | CLAUSE_OPENERS | FINITE_VERBS | SUBJECT_PRONOUNS)

_STEMMER = snowballstemmer.stemmer("english")
_STEM_CACHE: dict[str, str] = {}
#: Stems already computed (read by the analysis loop before it calls :func:`stem`).
STEM_CACHE = _STEM_CACHE


#: Number words are compared as numbers (pmatch compares numbers numerically): "one" = "1".
NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def stem(word: str) -> str:
    """Snowball (Porter2) stem of a lower-case word; number words become digits; technical
    tokens (digits, ``_``, ``^``, brackets) are returned unchanged so ``d_k`` and ``n^2`` are
    never altered."""
    cached = _STEM_CACHE.get(word)
    if cached is not None:
        return cached
    if word in NUMBER_WORDS:
        result = NUMBER_WORDS[word]
    elif word.isalpha():
        result = _STEMMER.stemWord(word)
    elif "'" in word and word.replace("'", "").isalpha():
        result = _STEMMER.stemWord(word.split("'")[0])
    else:
        result = word
    if len(_STEM_CACHE) < 200_000:
        _STEM_CACHE[word] = result
    return result


#: Final letters of stems that alternate within one word family (erode/erosion, decide/decision,
#: divide/division, permit/permission): "erod" and "eros" are one family.
_ALTERNATING_FINALS = frozenset("dst")


def stem_family(key: str) -> str:
    """The word family of a stem (:func:`stem`): stems of 4+ letters that end in d, s or t and
    differ only in that letter are one family ("erod" of "eroded", "eros" of "erosion": ``"ero*"``);
    any other key is its own family. The question-word discount compares families, so a
    derivation of a question's word ("eroded" to "What is erosion?") is a word of the question."""
    if len(key) >= 4 and key[-1] in _ALTERNATING_FINALS and key.isalpha():
        return key[:-1] + "*"
    return key


def is_technical(word: str) -> bool:
    """True for tokens that must be matched exactly (never fuzzed): anything not purely
    alphabetic, such as ``d_k``, ``qk^t``, ``o(n^2)``, ``sqrt(d_k)``, numbers."""
    return not word.isalpha()
