"""Why a rubric scored an answer as it did, for instructors (issue 22 item 4).

:func:`explain` scores the answer and walks every criterion's concepts and every misconception's
patterns, saying for each phrase which word sequences it compiled to (synonym sets and
alternatives expanded), which answer words matched which pattern word and how (as written, the
same stem, a misspelling at distance d, a prefix wildcard), whether a match was discounted (only
the question's words) or negated (which cue, and where its scope began and ended), and for a near
miss which pattern words were found and which were missing. It also lists the answer's negation
scopes, the guards that fired, base credit and each deduction. :func:`format_explanation` prints it
(``grader rubric explain RUBRIC "answer"``); ``POST /api/v1/rubrics/<id>/explain`` and the trial
report (each over- or under-marked response) return the same mapping.

It runs under a CPU budget of :data:`EXPLAIN_BUDGET_SECONDS` (the answer is learner text):
:class:`grader.rubric.budget.ScoringTimeout` past it.
"""
from __future__ import annotations

from typing import Any

from grader.rubric.budget import SCORE_BUDGET_SECONDS, Deadline
from grader.rubric.matching import AllOf, AnswerView, AnyOf, NoneOf, Phrase, Regex, Slot, Weighted

#: An explanation looks at every concept (scoring stops early), so it gets four answers' budget.
EXPLAIN_BUDGET_SECONDS = 4 * SCORE_BUDGET_SECONDS
#: Compiled word sequences listed per phrase (the count is always given).
MAX_VARIANTS_SHOWN = 12


def explain(compiled, answer: str, budget: float | None = EXPLAIN_BUDGET_SECONDS) -> dict[str, Any]:
    """The explanation of ``compiled.score(answer)`` as a JSON-ready mapping: ``points``,
    ``max_points``, ``words`` (content words: text, key, span, sentence, clause), ``negations``
    (cue, scope span, words covered), ``criteria`` and ``misconceptions`` (each with its result and
    ``concepts``/``patterns``: one tree per concept, see :func:`_node`), ``base_credit``,
    ``guards`` and ``notes``. Raises :class:`grader.rubric.budget.ScoringTimeout` past ``budget``
    CPU seconds."""
    deadline = Deadline(budget)
    result = compiled.score(answer, budget=budget)
    read, _, _ = compiled._read(answer or "")
    view = compiled.view(read, deadline)
    a = view.a
    words = [{"position": p, "text": read[s:e], "key": a.key[p], "span": [s, e], "sentence": a.sent[p],
              "clause": a.clause[p]} for p, (s, e) in enumerate(a.span)]
    criteria = []
    for i, (c, res) in enumerate(zip(compiled._criteria, result.criteria)):
        criteria.append({
            "id": c.id, "description": c.description, "points": res.points, "max_points": res.max_points,
            "met": res.met, "credit": res.credit or "none", "concepts_matched": res.concepts_matched,
            "concepts_required": res.concepts_required, "feedback": res.feedback,
            "question_words": "allow" if c.allow_question_words else "discount",
            "concepts": [_node(compiled, view, read, node, f"criteria[{i}].concepts[{j}]",
                               c.allow_question_words, misconception=False) for j, node in enumerate(c.concepts)]})
    misconceptions = []
    for i, (m, res) in enumerate(zip(compiled._misconceptions, result.misconceptions)):
        misconceptions.append({
            "id": m.id, "matched": res.matched, "penalty": m.penalty, "deducted": res.deducted,
            "evidence": [read[s:e] for s, e in res.evidence], "message": m.message,
            "patterns": [_node(compiled, view, read, node, f"misconceptions[{i}].patterns[{j}]", True,
                               misconception=True) for j, node in enumerate(m.patterns)]})
    return {"rubric_id": compiled.id, "rubric_version": compiled.version, "points": result.points,
            "max_points": result.max_points, "raw_points": result.raw_points, "words": words,
            "negations": _negations(view, read), "criteria": criteria, "misconceptions": misconceptions,
            "base_credit": {"points": result.base_credit, "on_topic": result.on_topic,
                            "share": compiled.base_share},
            "guards": result.guards, "notes": result.notes}


def _negations(view: AnswerView, text: str) -> list[dict[str, Any]]:
    """Each negation cue of the answer, the words its scope covers and where the scope began
    (the cue) and ended (its last covered word)."""
    a = view.a
    scopes: dict[int, list[int]] = {}
    for p, cue in enumerate(a.neg):
        if cue >= 0:
            scopes.setdefault(cue, []).append(p)
    out = []
    for cue, covered in sorted(scopes.items()):
        start, end = a.span[cue][0], a.span[covered[-1]][1]
        nxt = covered[-1] + 1
        out.append({"cue": text[slice(*a.span[cue])], "cue_span": list(a.span[cue]), "scope": [start, end],
                    "scope_text": text[start:end], "words": [text[slice(*a.span[p])] for p in covered],
                    "ends_before": text[slice(*a.span[nxt])] if nxt < len(a.key) else None})
    return out


def _slot_text(slot: Slot) -> str:
    alts = [k for k, _ in slot.keys] + [p + "*" for p, _ in slot.prefixes]
    word = "|".join(alts)
    if slot.before:
        word = "'" + "|".join(sorted(slot.before)) + "' " + word
    return word


def _variant_text(phrase: Phrase) -> str:
    return " ".join(_slot_text(s) for s in phrase.slots)


def _how(view: AnswerView, slot: Slot, p: int) -> str:
    """How answer word ``p`` filled ``slot``: as written, by stem, a misspelling, a prefix."""
    a, extra = view.a, view.extra
    for key, budget in slot.keys:
        if key in a.index and p in a.index[key]:
            return "as written" if a.surface[p] == key else f"same stem '{key}'"
    for key, budget in slot.keys:
        for q, d in extra.get(key, ()):
            if q == p and d <= budget:
                return f"misspelling of '{key}' (distance {d})"
    for prefix, budget in slot.prefixes:
        for q, d in extra.get("*" + prefix, ()):
            if q == p and d <= budget:
                return f"prefix {prefix}*" + (f" with a misspelling (distance {d})" if d else "")
    return "matched"


def _words(view: AnswerView, text: str, phrase: Phrase, match) -> list[dict[str, Any]]:
    a = view.a
    out = []
    for slot, p in zip(phrase.slots, match):
        out.append({"word": text[slice(*a.span[p])], "span": list(a.span[p]), "pattern": _slot_text(slot),
                    "how": _how(view, slot, p)})
    return out


def _phrase(compiled, view: AnswerView, text: str, variants: list[Phrase], path: str, allow: bool,
            misconception: bool) -> dict[str, Any]:
    first = variants[0]
    out: dict[str, Any] = {
        "path": path, "kind": "phrase", "phrase": first.text, "gap": first.gap, "order": first.order,
        "polarity": first.polarity, "variant_count": len(variants),
        "variants": [_variant_text(v) for v in variants[:MAX_VARIANTS_SHOWN]], "matched": False}
    if first.not_after:
        out["not_after"] = sorted(first.not_after)
    for v in variants:
        view.deadline.check()
        found = v.find(view)
        if not found:
            continue
        kept = compiled._misconception_matches(view, found) if misconception else \
            compiled._qualifying(view, found, allow)
        if kept:
            out.update(matched=True, variant=_variant_text(v), words=_words(view, text, v, kept[0]))
            return out
        why = ("refuted or only reported in its sentence (a refutation word, 'says', 'not correct')"
               if misconception else "made only of the question's words (question_words: discount)")
        out.setdefault("discounted", {"variant": _variant_text(v), "words": _words(view, text, v, found[0]),
                                      "why": why})
    view.ignore_negation = True
    try:
        for v in variants:
            found = v.find(view)
            if found:
                m = found[0]
                cues = sorted({view.a.neg[p] for p in m if view.a.neg[p] >= 0 and view.a.neg[p] not in m})
                if cues:
                    out["negated"] = {"variant": _variant_text(v), "words": _words(view, text, v, m),
                                      "cues": [text[slice(*view.a.span[c])] for c in cues],
                                      "why": "inside a negation scope whose cue is outside the phrase "
                                             f"(polarity {first.polarity})"}
                    break
    finally:
        view.ignore_negation = False
    near = _near(view, text, variants, compiled)
    if near:
        out["near_miss"] = near
    return out


def _near(view: AnswerView, text: str, variants: list[Phrase], compiled) -> dict[str, Any] | None:
    """The best near miss among the variants: the pattern words found, those missing."""
    best_share, best = 0.0, None
    for v in variants:
        share, where = v.near(view, view.question_words)
        if share > best_share and where:
            best_share, best = share, (v, where)
    if best is None:
        return None
    v, where = best
    found, missing = [], []
    for slot in v.slots:
        hits = [p for p in slot.positions(view) if p in where]
        (found if hits else missing).append((slot, hits))
    return {"share": round(best_share, 4), "variant": _variant_text(v),
            "found": [{"pattern": _slot_text(s), "word": text[slice(*view.a.span[h[0]])]} for s, h in found],
            "missing": [_slot_text(s) for s, _ in missing],
            "why": "some of the phrase's words in one sentence, but not all of them, or not in order or "
                   f"within gap {v.gap}"}


def _node(compiled, view: AnswerView, text: str, node, path: str, allow: bool, misconception: bool):
    """One concept as a tree: phrases (with their variants), regexes and any/all/not groups."""
    if isinstance(node, Phrase):
        return _phrase(compiled, view, text, [node], path, allow, misconception)
    if isinstance(node, AnyOf) and all(isinstance(c, Phrase) for c in node.children) \
            and len({c.text for c in node.children}) == 1:
        return _phrase(compiled, view, text, list(node.children), path, allow, misconception)
    if isinstance(node, Regex):
        found = node.find(view)
        return {"path": path, "kind": "regex", "pattern": node.pattern.pattern, "matched": bool(found),
                "words": [text[slice(*view.a.span[p])] for p in found[0]] if found else []}
    if isinstance(node, Weighted):
        child = _node(compiled, view, text, node.child, path, allow, misconception)
        return {**child, "weight": node.weight}
    if isinstance(node, NoneOf):
        child = _node(compiled, view, text, node.child, f"{path}.not", allow, misconception)
        return {"path": path, "kind": "not", "matched": not child["matched"], "child": child}
    kind = "any" if isinstance(node, AnyOf) else "all"
    children = [_node(compiled, view, text, c, f"{path}.{kind}[{i}]", allow, misconception)
                for i, c in enumerate(node.children)]
    out = {"path": path, "kind": kind, "children": children,
           "matched": any(c["matched"] for c in children) if kind == "any" else bool(node.find(view))}
    if isinstance(node, AllOf) and (node.within is not None or node.same_sentence):
        out.update(within=node.within, same_sentence=node.same_sentence)
    return out


def format_explanation(report: dict[str, Any]) -> str:
    """:func:`explain`'s mapping as the lines ``grader rubric explain`` prints."""
    lines = [f"rubric {report['rubric_id']} v{report['rubric_version']}: {report['points']:g} of "
             f"{report['max_points']:g} points"]
    for n in report["negations"]:
        lines.append(f"negation: '{n['cue']}' covers \"{n['scope_text']}\" (characters {n['scope'][0]}-"
                     f"{n['scope'][1]})" + (f", ends before '{n['ends_before']}'" if n["ends_before"] else ""))
    for c in report["criteria"]:
        lines.append(f"criterion {c['id']}: {c['points']:g} of {c['max_points']:g} ({c['credit']}; "
                     f"{c['concepts_matched']} of {c['concepts_required']} concepts needed)")
        for concept in c["concepts"]:
            lines.extend(_node_lines(concept, "  "))
    for m in report["misconceptions"]:
        lines.append(f"misconception {m['id']}: " + (f"fired, -{m['deducted']:g}" if m["matched"] else "not fired"))
        for pattern in m["patterns"]:
            lines.extend(_node_lines(pattern, "  "))
    base = report["base_credit"]
    lines.append(f"base credit: {base['points']:g}" + ("" if base["on_topic"] else " (not on topic, or wrong)"))
    for g in report["guards"]:
        lines.append(f"guard {g['id']} fired: -{g['deducted']:g} ({g['reason']})")
    if not report["guards"]:
        lines.append("guards: none fired")
    return "\n".join(lines)


def _node_lines(node: dict[str, Any], indent: str) -> list[str]:
    mark = "+" if node["matched"] else "-"
    if node["kind"] == "phrase":
        shown = ", ".join(node["variants"]) + (" ..." if node["variant_count"] > len(node["variants"]) else "")
        lines = [f"{indent}{mark} phrase \"{node['phrase']}\" (gap {node['gap']}, {node['order']} order, "
                 f"{node['polarity']}): {node['variant_count']} word sequence(s): {shown}"]
        if node["matched"]:
            lines.append(f"{indent}    matched {node['variant']}: " + "; ".join(
                f"\"{w['word']}\" = {w['pattern']} ({w['how']})" for w in node["words"]))
        for key in ("discounted", "negated"):
            if key in node:
                d = node[key]
                lines.append(f"{indent}    {key}: " + " ".join(f"\"{w['word']}\"" for w in d["words"])
                             + f" ({d['why']}" + (f"; cue {', '.join(d['cues'])}" if "cues" in d else "") + ")")
        if not node["matched"] and "near_miss" in node:
            nm = node["near_miss"]
            lines.append(f"{indent}    near miss {nm['share']:g}: found "
                         + ", ".join(f"{f['pattern']} (\"{f['word']}\")" for f in nm["found"])
                         + "; missing " + ", ".join(nm["missing"]))
        return lines
    if node["kind"] == "regex":
        return [f"{indent}{mark} regex {node['pattern']}" + (f": \"{' '.join(node['words'])}\"" if node["words"] else "")]
    if node["kind"] == "not":
        return [f"{indent}{mark} not:"] + _node_lines(node["child"], indent + "  ")
    head = f"{indent}{mark} {node['kind']}" + (f" (within {node['within']})" if node.get("within") is not None else "")
    return [head + ":"] + [line for child in node["children"] for line in _node_lines(child, indent + "  ")]
