// Submits the deep-linking response form at once; without JavaScript its button does it.
document.getElementById("lti-autopost").submit();
