"""The ``web`` blueprint: the learner page, the result page and the instructor view (server-rendered
Jinja2 templates in ``templates/web/``), and the assets they use under ``/assets/`` (our own CSS and
JavaScript, and the vendored browser libraries of ``static/vendor/``; no CDN)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/assets")
