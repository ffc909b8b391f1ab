// LTI Dynamic Registration 1.0, 3.6: tell the LMS the registration is done (it closes the page).
(function () {
  var target = window.opener || (window.parent !== window ? window.parent : null);
  if (target) {
    target.postMessage({subject: "org.imsglobal.lti.close"}, "*");
  }
})();
