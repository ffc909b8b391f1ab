// The LMS's client-side storage (1EdTech LTI Client Side postMessages: lti.put_data and
// lti.get_data), used when the browser blocks the tool's cookies inside the LMS's frame.
// put: store this login's secret, then go on to the LMS's authorization page.
// get: read it back and post it with the launch; with no answer in 2 s, post without it (the
// tool then offers the new-window path).
(function () {
  var el = document.getElementById("lti-storage");
  if (!el) { return; }
  var mode = el.dataset.mode, key = el.dataset.key, origin = el.dataset.origin;
  var name = el.dataset.target;
  var target = null;
  try {
    target = name === "_parent" ? window.parent : window.parent.frames[name];
  } catch (e) { target = null; }
  if (target === window) { target = null; }
  var id = "grader-" + Math.random().toString(36).slice(2) + Date.now().toString(36);
  var done = false;
  function finish(value) {
    if (done) { return; }
    done = true;
    if (mode === "put") {
      window.location.replace(el.dataset.next);
    } else {
      var form = document.getElementById("lti-storage-form");
      form.elements["lti_storage_value"].value = value || "";
      form.submit();
    }
  }
  window.addEventListener("message", function (event) {
    var data = event.data || {};
    if (event.origin !== origin || data.message_id !== id) { return; }
    if (data.subject === "lti.put_data.response" || data.subject === "lti.get_data.response") {
      finish(data.error ? "" : data.value);
    }
  });
  if (!target) { finish(""); return; }
  var message = {subject: mode === "put" ? "lti.put_data" : "lti.get_data", message_id: id,
                 key: key};
  if (mode === "put") { message.value = el.dataset.value; }
  target.postMessage(message, origin);
  window.setTimeout(function () { finish(""); }, 2000);
})();
