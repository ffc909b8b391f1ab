// The learner page's progressive enhancement. Without this script the page still works: the form
// posts, the server answers with the result page. With it:
//  - code boxes become CodeMirror editors (Python highlighting, Tab indents; Esc then Tab leaves);
//  - the form posts in the background, the page shows progress while the submission is graded
//    (long-polling the page's status endpoint) and inserts the feedback without a reload;
//  - each box shows a live count beside its limit (words as the rubric counts them: runs of
//    non-space characters; characters as code points, as the server counts both), and a chosen
//    notebook its size;
//  - a refusal (JSON {message}, or any other answer) is said above the form and the answers
//    stay as typed: the page never navigates away from unsent answers.
// window.graderTiming records when submit was pressed and when the feedback was shown (ms, from
// performance.now()); the browser tests read it.
(function () {
  "use strict";
  var form = document.getElementById("submission-form");
  var progress = document.getElementById("progress");
  var resultBody = document.getElementById("result-body");
  var attemptsBody = document.getElementById("attempts-body");
  var button = document.getElementById("submit-button");
  window.graderTiming = {};

  function attachEditors() {
    if (!window.GraderEditor) return;
    var boxes = document.querySelectorAll("textarea[data-editor='python']");
    Array.prototype.forEach.call(boxes, function (box) {
      var described = box.getAttribute("aria-describedby");
      // the editor writes its text into the box and fires its "input" event (the live count)
      window.GraderEditor.attach(box, box.id + "-label", described);
    });
    Array.prototype.forEach.call(document.querySelectorAll(".js-only"), function (el) {
      el.hidden = false;
    });
  }

  function say(html) { progress.innerHTML = html; }

  // Live counts beside the limits; without this script the limits are still written there.
  // They count as the server does: a word is a run of characters that are not Python's `\s`
  // (grader/rubric/engine.py `_WORD`, which max_words reads; JavaScript's `\s` differs: it
  // takes U+FEFF and leaves U+001C-U+001F and U+0085), and a character is a code point (Python's
  // len(), which the character limits read; an emoji is one, not two UTF-16 units).
  var NOT_SPACE = /[^\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;
  function countWords(text) { return (text.match(NOT_SPACE) || []).length; }
  function countCharacters(text) { return Array.from(text).length; }
  window.graderCounts = { words: countWords, characters: countCharacters };
  function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }
  function attachCounts() {
    var counters = document.querySelectorAll(".live-count[data-count-for]");
    Array.prototype.forEach.call(counters, function (counter) {
      var box = document.getElementById(counter.dataset.countFor);
      if (!box) return;
      var maxChars = Number(counter.dataset.maxCharacters || 0);
      var maxWords = Number(counter.dataset.maxWords || 0);
      function update() {
        var text = box.value;
        var words = countWords(text);
        var characters = countCharacters(text);
        var parts = [];
        var over = false;
        if (maxWords) {
          parts.push(plural(words, "word"));
          if (words > maxWords) {
            over = true;
            parts.push("only the first " + maxWords.toLocaleString("en") + " will be read");
          }
        }
        parts.push(plural(characters, "character"));
        if (maxChars && characters > maxChars) {
          over = true;
          parts.push("over the limit of " + maxChars.toLocaleString("en"));
        }
        counter.textContent = "Now: " + parts.join(", ") + ".";
        counter.classList.toggle("over", over);
      }
      counter.hidden = false;
      update();
      box.addEventListener("input", update);
      box.addEventListener("change", update);
    });
    var sizes = document.querySelectorAll(".live-count[data-size-for]");
    Array.prototype.forEach.call(sizes, function (counter) {
      var input = document.getElementById(counter.dataset.sizeFor);
      if (!input) return;
      input.addEventListener("change", function () {
        var file = input.files && input.files[0];
        counter.hidden = !file;
        if (!file) return;
        var maxBytes = Number(input.dataset.maxBytes || 0);
        var maxChars = Number(input.dataset.maxCharacters || 0);
        var tooLarge = (maxBytes && file.size > maxBytes) || (maxChars && file.size > 4 * maxChars);
        counter.textContent = file.name + ": " + plural(file.size, "byte") +
          (tooLarge ? ", too large to send: choose a smaller notebook." : ".");
        counter.classList.toggle("over", !!tooLarge);
      });
    });
  }

  function escapeHtml(text) {
    var div = document.createElement("div");
    div.textContent = text;
    return div.innerHTML;
  }

  var ticker = null;
  function startTicker(started) {
    stopTicker();
    ticker = window.setInterval(function () {
      var el = document.getElementById("elapsed");
      if (el) el.textContent = ((performance.now() - started) / 1000).toFixed(1) + " s";
    }, 100);
  }
  function stopTicker() { if (ticker) { window.clearInterval(ticker); ticker = null; } }

  function showWaiting(status) {
    var words = status === "running" ? "Grading your submission…" :
      "Submitted. Waiting for a grader…";
    say("<p><span id='progress-text'>" + words + "</span> " +
        "<progress aria-label='Grading progress'></progress> " +
        "<span id='elapsed' aria-hidden='true'></span></p>");
  }

  function finish(data, started) {
    stopTicker();
    resultBody.innerHTML = data.result_html;
    if (attemptsBody && data.attempts_html) attemptsBody.innerHTML = data.attempts_html;
    window.graderTiming.shown = performance.now();
    var seconds = ((window.graderTiming.shown - started) / 1000).toFixed(1);
    say("<p>" + (data.status === "graded" ? "Graded" : "Finished") + " after " + seconds +
        " s. Your feedback is below.</p>");
    var heading = resultBody.querySelector(".result-heading");
    if (heading) heading.focus();
    if (button) button.disabled = false;
  }

  function poll(url, started, failures) {
    fetch(url + (url.indexOf("?") < 0 ? "?" : "&") + "wait=10",
          {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (data) {
        if (data.final) { finish(data, started); return; }
        var text = document.getElementById("progress-text");
        if (text && data.status === "running") text.textContent = "Grading your submission…";
        poll(url, started, 0);
      })
      .catch(function () {
        if (failures < 5) {
          window.setTimeout(function () { poll(url, started, failures + 1); }, 1000);
        } else {
          stopTicker();
          say("<p>The connection was lost while your submission was being graded. " +
              "<a href='" + url.replace(/\/status$/, "") + "?wait=1'>See its feedback</a>.</p>");
          if (button) button.disabled = false;
        }
      });
  }

  // The "Check" button: the visible examples only, answered at once; the answer's HTML (built
  // and escaped by the server) goes above the feedback, the form stays as typed.
  var checkButton = document.getElementById("check-button");
  var precheck = document.getElementById("precheck");
  var precheckBody = document.getElementById("precheck-body");
  function check() {
    var started = performance.now();
    window.graderTiming = {checked: started};
    checkButton.disabled = true;
    var data = new FormData(form);
    precheck.hidden = false;
    precheckBody.innerHTML = "<p>Checking your code on the visible examples…</p>";
    fetch(checkButton.formAction, {method: "POST", body: data, credentials: "same-origin",
                                   headers: {"Accept": "application/json"}})
      .then(answerOf)
      .then(function (answer) {
        checkButton.disabled = false;
        if (!answer.ok) {
          precheckBody.innerHTML = "<p class='alert' role='alert'>" + escapeHtml(
            answer.data.message || "The check was refused.") + "</p>";
          return;
        }
        precheckBody.innerHTML = answer.data.html;
        window.graderTiming.checkShown = performance.now();
        var heading = precheckBody.querySelector(".precheck-heading");
        if (heading) heading.focus();
      })
      .catch(function () {
        checkButton.disabled = false;
        precheckBody.innerHTML = "<p class='alert' role='alert'>The check could not reach the " +
          "server; your answers are still in the form.</p>";
      });
  }

  // {ok, status, data}: the JSON of an answer, or for an answer that is not JSON (a proxy's
  // error page, a body too large) a message saying so; the answers in the form stay.
  function answerOf(response) {
    var type = response.headers.get("Content-Type") || "";
    if (type.indexOf("application/json") >= 0) {
      return response.json().then(function (data) {
        return {ok: response.ok, status: response.status, data: data};
      });
    }
    var why = response.status === 413 ? "The form is too large to send (a notebook or an " +
      "answer over its limit)." : "The server answered with an unexpected page (HTTP " +
      response.status + ").";
    return {ok: false, status: response.status, data: {message: why + " Nothing was " +
      "submitted; your answers are still in the form."}};
  }

  function submit(event) {
    if (!window.fetch || !window.FormData) return;  // the plain form post does the job
    if (event.submitter && event.submitter.id === "check-button") {
      event.preventDefault();
      check();
      return;
    }
    event.preventDefault();
    var started = performance.now();
    window.graderTiming = {submitted: started};
    if (button) button.disabled = true;
    showWaiting("queued");
    startTicker(started);
    fetch(form.action, {method: "POST", body: new FormData(form), credentials: "same-origin",
                        headers: {"Accept": "application/json"}})
      .then(answerOf)
      .then(function (answer) {
        if (!answer.ok) {
          stopTicker();
          say("<p class='alert' role='alert'>" + escapeHtml(answer.data.message ||
              "The submission was refused.") + "</p>");
          if (answer.data.result_url) {  // another submission is still being graded
            var link = document.createElement("a");
            link.href = answer.data.result_url;
            link.textContent = "See the submission being graded";
            var line = document.createElement("p");
            line.appendChild(link);
            progress.appendChild(line);
          }
          if (button) button.disabled = false;
          return;
        }
        window.graderTiming.accepted = performance.now();
        poll(answer.data.status_url, started, 0);
      })
      .catch(function () {
        // the server could not be reached: say so and keep the answers (a plain form post
        // would leave the page and could lose them)
        stopTicker();
        say("<p class='alert' role='alert'>Your submission could not reach the server, so " +
            "nothing was submitted. Your answers are still in the form: submit again.</p>");
        if (button) button.disabled = false;
      });
  }

  attachCounts();
  attachEditors();
  if (form) form.addEventListener("submit", submit);
  if (progress && progress.dataset.pendingStatusUrl) {
    var started = performance.now();
    showWaiting("queued");
    startTicker(started);
    poll(progress.dataset.pendingStatusUrl, started, 0);
  }
})();
