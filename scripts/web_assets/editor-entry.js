// Entry of the learner page's code editor bundle (built by scripts/vendor_assets.py with esbuild
// into grader/web/static/vendor/codemirror/editor.min.js, global `GraderEditor`).
// CodeMirror 6 with Python highlighting, tab indent (Escape then Tab leaves the editor, as
// CodeMirror documents for keyboard users), line numbers, undo history and bracket matching.
import {EditorState} from "@codemirror/state";
import {EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection,
        highlightActiveLineGutter} from "@codemirror/view";
import {defaultKeymap, history, historyKeymap, indentWithTab} from "@codemirror/commands";
import {syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching,
        indentUnit} from "@codemirror/language";
import {python} from "@codemirror/lang-python";

const views = new Map();

// The editor that replaced the textarea with id `textareaId` (or undefined).
export function viewFor(textareaId) {
  return views.get(textareaId);
}

// Replace `textarea` by an editor that writes its text back into the textarea on every change,
// so the surrounding form submits it unchanged. `labelId` names the element labelling it.
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
        python(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of(attributes),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) textarea.value = update.state.doc.toString();
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.parentNode.insertBefore(view.dom, textarea);
  views.set(textarea.id, view);
  return view;
}
