"""Turn an answer (or a rubric phrase) into content tokens with keys, offsets, sentences and negation.

Pipeline, in this order (each step keeps a map back to the original characters, so evidence spans
always index the text the learner wrote):

0. Text typed into an LMS arrives as HTML: simple tags are removed (block tags such as ``<p>``,
   ``<br>``, ``<li>`` end a sentence, ``<sup>`` becomes ``^`` and ``<sub>`` ``_``, so
   ``n<sup>2</sup>`` is ``n^2`` and ``d<sub>k</sub>`` is ``d_k``) and character references are
   decoded (``&lt;=``, ``&amp;``, ``&#8730;``, ``&radic;``); each decoded character maps to the whole
   entity or tag it came from.
1. Superscripts become ``^`` + the plain character (``n²`` -> ``n^2``, ``Kᵀ`` -> ``K^T``) *before*
   Unicode NFKC, which would otherwise turn ``n²`` into ``n2``. Then NFKC per character (``dₖ`` ->
   ``dk``), symbol mapping (Unicode minus, ``×``, ``·``, ``√``, ``∞``, ``⊤``, curly quotes) and lower
   case.
2. Tokenisation on token boundaries: words (with ``_``/``^`` sub- and superscripts and LaTeX braces,
   so ``d_{k}`` is one token ``d_k``), decimal numbers, single punctuation marks.
3. Math rewrites over tokens: ``n * n``, ``n x n``, ``n by n`` (also ``n-by-n``), ``n ** 2``,
   ``n squared`` -> ``n^2``;
   ``sqrt(d_k)``, ``sqrt d_k``, ``square root of d_k`` -> ``sqrt(d_k)``; ``O ( ... )`` -> one token
   ``o(...)`` that also carries its argument as an alias key (``o(n^2)`` also answers to ``n^2``).
4. Keys: Snowball stems for words, the token itself for technical tokens. Stop words are dropped
   from the content sequence (phrases then match across them), negation words never are.
5. Sentences end at ``. ! ?`` and new lines (not at the ``.`` of ``q.k`` or ``e.g``); negation scopes follow NegEx (see :mod:`lexicon`):
   single cues (not, never, without, hardly, scarcely, barely, n't ...) and multi-word ones (far
   from, anything but, no longer, by no means, in no way, fail to ...); a scope ends where its
   clause does: at punctuation, at a clause opener (but, so, because, than ...), at "and"/"or"
   starting a new clause or verb phrase ("... is not fixed and can grow"), and, once it has
   covered a word, at a finite verb or a subject pronoun that starts the next clause of a run-on
   sentence ("instead of using recursion is by using iteration"; a cue that negates a subject keeps
   that subject's verb: "no element is removed"). A refutation frame ("it is wrong to say X", "it is false
   that X") negates X like a cue. Contractions of "not" ("don't", "dont") also carry the key
   ``not``.
"""
from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field

from grader.rubric import lexicon

_SUPERSCRIPTS = {
    "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
    "⁹": "9", "⁺": "+", "⁻": "-", "⁼": "=", "⁽": "(", "⁾": ")", "ⁿ": "n", "ⁱ": "i", "ᵀ": "t",
    "ᵗ": "t", "ᵏ": "k", "ᵈ": "d", "ᵐ": "m",
}
_SYMBOLS = {
    "−": "-", "‐": "-", "‑": "-", "–": "—", "×": "*", "·": "*", "⋅": "*", "∙": "*", "∗": "*",
    "√": " sqrt ", "∞": " inf ", "⊤": "t", "’": "'", "‘": "'", "“": '"', "”": '"', "→": " -> ",
    "≈": "~", "…": ".",
}
_LATEX = {"\\sqrt": "sqrt", "\\infty": "inf", "\\cdot": "*", "\\times": "*", "\\top": "t",
          "\\to": "->", "\\rightarrow": "->", "\\alpha": "alpha", "\\in": "in", "\\approx": "~"}
_ALIASES = {"dk": "d_k", "dmodel": "d_model", "dv": "d_v", "dq": "d_q", "d_{model}": "d_model",
            "infinity": "inf", "infty": "inf"}

_TOKEN_RE = re.compile(
    r"\d+\.\d+"
    r"|\\?[^\W_]+(?:'[^\W_]+)?(?:[_^](?:\{[^{}\s]{1,16}\}|-?\\?[^\W_]+))*"
    r"|\n|[^\s\w{}]|_"
)
_REWRITE_TRIGGERS = frozenset(["*", "x", "by", "times", "squared", "^", "sqrt", "square", "root", "("])


@dataclass(slots=True)
class Token:
    """One token: canonical ``text`` (lower case) and the ``[start, end)`` character span of the
    original text it came from."""

    text: str
    start: int
    end: int
    is_word: bool


@dataclass(slots=True)
class Analysis:
    """The content tokens of one text, as parallel lists indexed by content position.

    ``words``/``function_words``/``longest_sentence`` count word tokens (stop words included): the
    answer-form guard (:mod:`grader.rubric.guards`) uses them to tell prose from a bag of keywords.
    ``key[i]`` is the stem (or technical token), ``surface[i]`` the lower-case token, ``span[i]``
    its original ``(start, end)``, ``sent[i]`` its sentence number, ``clause[i]`` its clause number
    (clauses end at any scope punctuation: ``, ; : ( )`` and sentence ends, except the
    notation of a formula: a ``(`` touching the word or ``^`` before it, its ``)``, and a ``.`` between
    two touching words (``exp(-inf)=0``, ``var(q.k)``: :func:`_in_notation`); before a clause opener
    such as but, so, because, than (:data:`lexicon.CLAUSE_OPENERS`), and at "and"/"or" starting a
    new clause), ``opens[i]`` whether the word is itself the clause opener that begins its clause
    (a phrase that writes it, "more mass than", may cross into that clause), ``stops_before[i]``
    the stop words between it and the content word before it in its clause (a phrase that keeps a
    stop word, ``penny 'has' more mass``, reads them), ``neg[i]`` the content position
    of the negation cue whose scope covers it (``-1`` when none). ``index`` maps every key and alias
    to the sorted content positions holding it.
    """

    text: str
    key: list[str] = field(default_factory=list)
    surface: list[str] = field(default_factory=list)
    span: list[tuple[int, int]] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    clause: list[int] = field(default_factory=list)
    opens: list[bool] = field(default_factory=list)
    stops_before: list[tuple[str, ...]] = field(default_factory=list)
    neg: list[int] = field(default_factory=list)
    index: dict[str, list[int]] = field(default_factory=dict)
    compounds: list[tuple[int, str, str]] = field(default_factory=list)
    plain: str = ""           # the text with HTML decoded (step 0): what regexes and verdicts read
    plain_starts: list[int] | None = None  # plain index -> original [start, end) (None: identical)
    plain_ends: list[int] | None = None
    words: int = 0            # word tokens, stop words included
    function_words: int = 0   # of which stop words (lexicon.STOPWORDS)
    longest_sentence: int = 0  # word tokens in the longest sentence

    def __len__(self) -> int:
        return len(self.key)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a ``[start, end)`` span of :attr:`plain` to the text as typed."""
        if self.plain_starts is None or start >= end:
            return start, end
        return self.plain_starts[start], self.plain_ends[end - 1]


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _map_char(ch: str, prev_super: bool) -> str:
    if ch in _SUPERSCRIPTS:
        return ("" if prev_super else "^") + _SUPERSCRIPTS[ch]
    piece = _SYMBOLS.get(ch)
    if piece is None:
        piece = unicodedata.normalize("NFKC", ch)
        if not piece.isascii():
            piece = "".join(_SYMBOLS.get(c, c) for c in piece)
    return piece.lower()


#: HTML tags recognised in answers (others, such as ``i<n and j>0``, are left as typed): a known
#: tag name and only ``name=value`` attributes.
_HTML_TAG_NAMES = ("p|br|div|span|b|i|u|em|strong|code|pre|sup|sub|li|ul|ol|a|font|h[1-6]|blockquote|"
                   "table|tbody|thead|tr|td|th|hr|small|big|tt|s|strike|del|ins|mark|img|section|article")
_HTML_RE = re.compile(
    rf"<(/?)({_HTML_TAG_NAMES})((?:\s+[\w:-]+\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s<>'\"]+))*)\s*/?>"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?",
    re.IGNORECASE)
_BLOCK_TAGS = frozenset("p br div li ul ol h1 h2 h3 h4 h5 h6 blockquote table tbody thead tr hr pre section "
                        "article".split())


def decode_html(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    """Step 0: return ``(plain, starts, ends)``: ``text`` with simple HTML tags removed and
    character references decoded, and for each character of ``plain`` the ``[start, end)`` of
    ``text`` it came from (``None`` when nothing was decoded). Block tags become a new line
    (a sentence end), ``<sup>`` ``^``, ``<sub>`` ``_``, other (inline) tags nothing, as a
    browser renders them."""
    if "<" not in text and "&" not in text:
        return text, None, None
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _HTML_RE.finditer(text):
        a, b = m.span()
        if m.group(2) is not None:
            name = m.group(2).lower()
            if name in _BLOCK_TAGS:
                piece = "\n"
            elif name == "sup":
                piece = "" if m.group(1) else "^"
            elif name == "sub":
                piece = "" if m.group(1) else "_"
            else:  # inline tags render nothing: "<b>soft</b>max" reads "softmax"
                piece = ""
        else:
            piece = html.unescape(m.group())
            if piece == m.group():
                continue
        out.append(text[pos:a])
        starts.extend(range(pos, a))
        ends.extend(range(pos + 1, a + 1))
        out.append(piece)
        starts.extend([a] * len(piece))
        ends.extend([b] * len(piece))
        pos = b
    if not starts and pos == 0:
        return text, None, None
    out.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(out), starts, ends


def normalise(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    """Return ``(normalised, starts, ends)``: the canonical lower-case string and, for each of its
    characters, the original ``[start, end)`` it came from (``None`` when identical positions, i.e.
    the text was ASCII without HTML). HTML is decoded first (:func:`decode_html`); ASCII runs are
    copied whole; only non-ASCII characters are mapped."""
    plain, hstarts, hends = decode_html(text)
    norm, starts, ends = _normalise_chars(plain)
    if hstarts is None:
        return norm, starts, ends
    if starts is None:
        return norm, hstarts, hends
    return norm, [hstarts[i] for i in starts], [hends[i - 1] for i in ends]


def _normalise_chars(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    if text.isascii():
        return text.lower(), None, None
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _NON_ASCII.finditer(text):
        a, b = m.span()
        if a > pos:
            out.append(text[pos:a].lower())
            starts.extend(range(pos, a))
            ends.extend(range(pos + 1, a + 1))
        prev_super = False
        for i in range(a, b):
            ch = text[i]
            piece = _map_char(ch, prev_super)
            prev_super = ch in _SUPERSCRIPTS
            out.append(piece)
            starts.extend([i] * len(piece))
            ends.extend([i + 1] * len(piece))
        pos = b
    if pos < len(text):
        out.append(text[pos:].lower())
        starts.extend(range(pos, len(text)))
        ends.extend(range(pos + 1, len(text) + 1))
    return "".join(out), starts, ends


def _canonical(word: str) -> str:
    if "{" in word or "\\" in word:
        for cmd, repl in _LATEX.items():
            if cmd in word:
                word = word.replace(cmd, repl)
        word = word.replace("{", "").replace("}", "").replace("\\", "")
    return _ALIASES.get(word, word)


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into canonical tokens with original character spans (steps 1-3)."""
    norm, starts, ends = normalise(text)
    tokens: list[Token] = []
    append = tokens.append
    aliases = _ALIASES
    for m in _TOKEN_RE.finditer(norm):
        s, e = m.span()
        raw = norm[s:e]
        if starts is not None:
            s, e = starts[s], ends[e - 1]
        c = raw[0]
        if c.isalnum() or c == "\\":
            if "{" in raw or "\\" in raw:
                raw = _canonical(raw)
            append(Token(aliases.get(raw, raw), s, e, True))
        else:
            append(Token(raw, s, e, False))
    if _REWRITE_TRIGGERS.isdisjoint(t.text for t in tokens):
        return tokens
    return rewrite_math(tokens)


def _is_var(tok: Token) -> bool:
    return tok.is_word and len(tok.text) == 1 and tok.text.isalpha()


def _sqrt_arg(tok: Token) -> bool:
    return tok.is_word and (not tok.text.isalpha() or len(tok.text) == 1)


def rewrite_math(tokens: list[Token]) -> list[Token]:
    """Step 3: canonical forms of ``n^2``, ``sqrt(x)`` and ``O(...)`` written in any common way."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    triggers = _REWRITE_TRIGGERS
    while i < n:
        tok = tokens[i]
        w = tok.text
        if w not in triggers:  # every rewrite starts at one of them
            out.append(tok)
            i += 1
            continue
        nxt = tokens[i + 1] if i + 1 < n else None
        prev = out[-1] if out else None
        if (w in ("x", "by", "times") and prev is not None and prev.text == "-" and nxt is not None
                and nxt.text == "-" and len(out) >= 2 and i + 2 < n and _is_var(out[-2])
                and tokens[i + 2].text == out[-2].text
                and out[-2].end == prev.start and prev.end == tok.start and tok.end == nxt.start
                and nxt.end == tokens[i + 2].start):  # "n-by-n", written as one word
            out.pop()
            out[-1] = Token(out[-1].text + "^2", out[-1].start, tokens[i + 2].end, True)
            i += 3
            continue
        if prev is not None and nxt is not None and _is_var(prev):
            if w in ("*", "x", "by", "times") and nxt.text == prev.text:
                out[-1] = Token(prev.text + "^2", prev.start, nxt.end, True)
                i += 2
                continue
            if w == "*" and nxt.text == "*" and i + 2 < n and tokens[i + 2].text.isdigit():
                out[-1] = Token(prev.text + "^" + tokens[i + 2].text, prev.start, tokens[i + 2].end, True)
                i += 3
                continue
            if w == "^" and nxt.is_word:
                out[-1] = Token(prev.text + "^" + nxt.text, prev.start, nxt.end, True)
                i += 2
                continue
        if w == "squared" and prev is not None:
            base = prev
            if prev.text == "-" and len(out) >= 2:
                base = out[-2]
            if _is_var(base):
                if base is not prev:
                    out.pop()
                out[-1] = Token(base.text + "^2", base.start, tok.end, True)
                i += 1
                continue
        if w == "sqrt" and nxt is not None:
            if nxt.text == "(" and i + 3 < n and tokens[i + 3].text == ")" and _sqrt_arg(tokens[i + 2]):
                out.append(Token(f"sqrt({tokens[i + 2].text})", tok.start, tokens[i + 3].end, True))
                i += 4
                continue
            if _sqrt_arg(nxt):
                out.append(Token(f"sqrt({nxt.text})", tok.start, nxt.end, True))
                i += 2
                continue
        if w in ("square", "root"):
            j = i + 1 if w == "root" else i + 2
            if w == "square" and not (nxt is not None and nxt.text == "root"):
                j = -1
            if 0 < j + 1 < n and tokens[j].text == "of" and _sqrt_arg(tokens[j + 1]):
                out.append(Token(f"sqrt({tokens[j + 1].text})", tok.start, tokens[j + 1].end, True))
                i = j + 2
                continue
        if w == "(" and prev is not None and prev.text == "o":
            close = next((k for k in range(i + 1, min(n, i + 10)) if tokens[k].text in "()"), -1)
            if close > i + 1 and tokens[close].text == ")":
                inner = rewrite_math(tokens[i + 1:close])
                arg = "".join(t.text for t in inner)
                out[-1] = Token(f"o({arg})", prev.start, tokens[close].end, True)
                i = close + 1
                continue
        out.append(tok)
        i += 1
    return out


_NOTATION_MARKS = frozenset("().")


def _in_notation(tokens: list[Token], i: int, calls: int) -> bool:
    """True when the ``(``, ``)`` or ``.`` at ``tokens[i]`` is part of math notation, not a clause
    or sentence break: a ``(`` touching the word or ``^``/``_`` before it (``exp(-inf)``,
    ``var(q.k)``, ``e^(x)``), the ``)`` that closes such a ``(`` (``calls`` of them are open), and a
    ``.`` with a word touching it on both sides (``q.k``, ``e.g``). Constant time."""
    tok = tokens[i]
    w = tok.text
    if w == ")":
        return calls > 0
    if i == 0:
        return False
    prev = tokens[i - 1]
    if prev.end != tok.start:
        return False
    if w == "(":
        return prev.is_word or prev.text in ("^", "_")
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return prev.is_word and nxt is not None and nxt.is_word and nxt.start == tok.end


def analyse(text: str) -> Analysis:
    """Steps 1-5 for one text. Cost is linear in its length."""
    tokens = tokenize(text)
    a = Analysis(text)
    a.plain, a.plain_starts, a.plain_ends = decode_html(text)
    key, surface, span, sent, neg, index = a.key, a.surface, a.span, a.sent, a.neg, a.index
    clauses = a.clause
    sentence = 0
    clause = 0
    cue = -1
    remaining = 0
    prev_word = ""
    stop = lexicon.STOPWORDS
    scope_punct, sentence_end = lexicon.SCOPE_PUNCTUATION, lexicon.SENTENCE_END
    cues, terminators = lexicon.NEGATION_CUES, lexicon.SCOPE_TERMINATORS
    pseudo, two_word = lexicon.PSEUDO_NEGATIONS, lexicon.TWO_WORD_CUES
    second_words = lexicon.PAIR_SECOND_WORDS
    not_contractions = lexicon.NOT_CONTRACTIONS
    stem = lexicon.stem
    stem_cache = lexicon.STEM_CACHE
    opens_append, stops_append = a.opens.append, a.stops_before.append
    n = len(tokens)
    words = function_words = longest = in_sentence = 0
    cue_words_until = -1  # tokens up to this index belong to a multi-word cue ("far from")
    cue_started_for = -1
    stops: list[str] = []  # stop words since the last content word (in this clause)
    scope_words, verb_pending = 0, False  # content words the current scope covered; a subject's verb to come
    openers, finite_verbs = lexicon.CLAUSE_OPENERS, lexicon.FINITE_VERBS
    subject_pronouns, nominal_cues = lexicon.SUBJECT_PRONOUNS, lexicon.NOMINAL_CUES
    quantities = lexicon.QUANTITY_WORDS
    multiword = lexicon.MULTIWORD_CUES
    negation_relevant = lexicon.NEGATION_RELEVANT_STOPWORDS
    notation_marks = _NOTATION_MARKS
    short_cues, pronoun_objects = lexicon.SHORT_CUES, lexicon.PRONOUN_OBJECTS
    calls = 0  # open parentheses of notation ("exp(", "var(") whose ")" is notation too
    for ti, tok in enumerate(tokens):
        w = tok.text
        if not tok.is_word:
            if w in notation_marks and _in_notation(tokens, ti, calls):
                calls += 1 if w == "(" else -1 if w == ")" else 0
            elif w in scope_punct:
                remaining = 0
                clause += 1
                if w in sentence_end:
                    calls = 0
                    sentence += 1
                    longest = max(longest, in_sentence)
                    in_sentence = 0
            prev_word = ""
            if stops:
                stops.clear()
            continue
        if w in multiword and ti > cue_words_until:
            for seq in multiword[w]:
                end = ti + len(seq)
                if (end <= n and all(tokens[ti + j].is_word and tokens[ti + j].text == seq[j]
                                     for j in range(1, len(seq)))
                        and not (seq[0] == "far" and end < n and tokens[end].text in lexicon.FAR_FROM_LITERAL)):
                    cue_words_until = end - 1
                    cue, remaining = -1, 0  # set at the sequence's first content word
                    break
        content = w not in stop
        words += 1
        in_sentence += 1
        if not content:
            function_words += 1
            stops.append(w)
            if w not in negation_relevant:  # "the", "is", "of" ...: nothing to do
                prev_word = w
                continue
        covered = -1
        opened = False
        if ti <= cue_words_until:  # a word of a multi-word cue: its first content word is the cue
            if content and cue_started_for != cue_words_until:
                cue, remaining = len(key), lexicon.NEGATION_WINDOW
                cue_started_for = cue_words_until
                scope_words, verb_pending = 0, False
        elif w in second_words and (prev_word, w) in pseudo:
            remaining = 0
        elif w in cues:
            cue, remaining = len(key), lexicon.SHORT_CUES.get(w, lexicon.NEGATION_WINDOW)
            if w in short_cues and ti + 1 < n and tokens[ti + 1].text in pronoun_objects:
                remaining = 0  # "without it the scores grow": the cue's object is the pronoun
            scope_words = 0
            verb_pending = w in nominal_cues or (
                ti + 1 < n and tokens[ti + 1].text in lexicon.NOMINAL_AFTER_NOT)  # "no element is removed"
            if w in not_contractions:
                index.setdefault("not", []).append(len(key))  # "don't", "dont" answer to a rubric's "not"
        elif w in second_words and (prev_word, w) in two_word:
            cue, remaining = len(key) - 1, lexicon.NEGATION_WINDOW
            scope_words, verb_pending = 0, False
        elif (w in lexicon.REFUTATION_FRAME_WORDS and key and surface[-1] in lexicon.REFUTATION_CUES
              and clauses[-1] == clause and neg[-1] < 0):
            cue, remaining = len(key) - 1, lexicon.NEGATION_WINDOW  # "wrong to say X", "false that X"
            scope_words, verb_pending = 0, True  # it negates a clause: X's own verb is in the scope
        elif w in openers and not (w == "than" and ti + 1 < n and (tokens[ti + 1].text in quantities
                                                                   or tokens[ti + 1].text[:1].isdigit())):
            remaining = 0  # but, so, because, than ...: a new clause ("more than one" is a quantity)
            clause += 1
            opened = True
        elif w in terminators:  # which, whereby: the scope ends, the noun's clause goes on
            remaining = 0
        elif (w == "and" or w == "or") and ti + 1 < n and tokens[ti + 1].text in lexicon.CLAUSE_STARTERS:
            remaining = 0
            clause += 1
        elif remaining > 0 and w in finite_verbs:
            if verb_pending:
                verb_pending = False  # the negated subject's own verb ("no element is removed")
            elif scope_words:
                remaining = 0  # "instead of using recursion is by using iteration": the next clause
        elif remaining > 0 and scope_words and w in subject_pronouns:
            remaining = 0  # a run-on sentence: "... not learned they are computed"
        elif remaining > 0 and content:
            covered = cue
            remaining -= 1
            scope_words += 1
        prev_word = w
        if not content:
            continue
        pos = len(key)
        k = stem_cache.get(w) or stem(w)
        key.append(k)
        surface.append(w)
        span.append((tok.start, tok.end))
        sent.append(sentence)
        clauses.append(clause)
        opens_append(opened)
        if stops:
            stops_append(tuple(stops))
            stops.clear()
        else:
            stops_append(())
        neg.append(covered)
        held = index.get(k)
        if held is None:
            index[k] = [pos]
        else:
            held.append(pos)
        if w[0] == "o" and w[1:2] == "(" and w[-1] == ")" and len(w) > 3:
            index.setdefault(w[2:-1], []).append(pos)
        if (ti >= 2 and tokens[ti - 1].text == "-" and tokens[ti - 1].start == tokens[ti - 2].end
                and tok.start == tokens[ti - 1].end and tokens[ti - 2].is_word and w.isalpha()
                and tokens[ti - 2].text.isalpha()):
            joined = tokens[ti - 2].text + w
            jkey = lexicon.stem(joined)
            a.compounds.append((pos, joined, jkey))
            if jkey != k:
                index.setdefault(jkey, []).append(pos)
    a.words, a.function_words = words, function_words
    a.longest_sentence = max(longest, in_sentence)
    return a
