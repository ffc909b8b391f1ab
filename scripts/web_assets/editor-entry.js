// Entry of the learner page's code editor bundle (built by scripts/vendor_assets.py with esbuild
// into grader/web/static/vendor/codemirror/editor.min.js, global `GraderEditor`).
// CodeMirror 6 with Python highlighting, tab indent (Escape then Tab leaves the editor, as
// CodeMirror documents for keyboard users), line numbers, undo history and bracket matching;
// the lines the feedback names (a syntax error's, the learner's line in a traceback: the
// textarea's data-error-lines, "6" or "6,13") are marked (class cm-error-line), and the marks
// move with the text as it is edited.
import {EditorState, StateEffect, StateField, RangeSetBuilder} from "@codemirror/state";
import {EditorView, Decoration, keymap, lineNumbers, highlightActiveLine, drawSelection,
        highlightActiveLineGutter} from "@codemirror/view";
import {defaultKeymap, history, historyKeymap, indentWithTab} from "@codemirror/commands";
import {syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching,
        indentUnit} from "@codemirror/language";
import {python} from "@codemirror/lang-python";

const views = new Map();

const setErrorLines = StateEffect.define();
const errorMark = Decoration.line({attributes: {class: "cm-error-line",
                                                "data-error-line": "true"}});

function decorations(doc, lines) {
  const builder = new RangeSetBuilder();
  for (const number of [...new Set(lines)].sort((a, b) => a - b)) {
    if (number >= 1 && number <= doc.lines) {
      const line = doc.line(number);
      builder.add(line.from, line.from, errorMark);
    }
  }
  return builder.finish();
}

const errorLines = StateField.define({
  create() { return Decoration.none; },
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setErrorLines)) marks = decorations(tr.state.doc, effect.value);
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

// Mark `lines` (numbers from 1) of the editor that replaced the textarea `textareaId`;
// an empty list clears the marks. Returns how many lines are marked.
export function markLines(textareaId, lines) {
  const view = views.get(textareaId);
  if (!view) return 0;
  view.dispatch({effects: setErrorLines.of(lines)});
  let count = 0;
  view.state.field(errorLines).between(0, view.state.doc.length, () => { count += 1; });
  return count;
}

// The editor that replaced the textarea with id `textareaId` (or undefined).
export function viewFor(textareaId) {
  return views.get(textareaId);
}

// Replace `textarea` by an editor that writes its text back into the textarea on every change
// (and fires the textarea's "input" event), so the surrounding form submits it unchanged. `labelId` names the element labelling it.
export function attach(textarea, labelId, describedById) {
  const attributes = {"aria-labelledby": labelId, "aria-multiline": "true"};
  if (describedById) attributes["aria-describedby"] = describedById;
  const view = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(),
        indentOnInput(), bracketMatching(), highlightActiveLine(),
        indentUnit.of("    "), EditorState.tabSize.of(4),
        syntaxHighlighting(defaultHighlightStyle, {fallback: true}),
        python(), errorLines,
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of(attributes),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) {
            textarea.value = update.state.doc.toString();
            // as typing in the box would: the page's live count listens
            textarea.dispatchEvent(new Event("input"));
          }
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.parentNode.insertBefore(view.dom, textarea);
  views.set(textarea.id, view);
  const marked = (textarea.dataset.errorLines || "").split(",").map(Number).filter(Boolean);
  if (marked.length) markLines(textarea.id, marked);
  return view;
}
