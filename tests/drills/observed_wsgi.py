"""The product's WSGI app with the observability and rate-limit hooks attached, for drills run
before those hooks are wired into :func:`grader.app.create_app` (attaching is skipped once they
are)."""
from grader.api import ratelimit
from grader.observability import init_app
from grader.wsgi import app

if "observability" not in app.extensions:
    init_app(app)
if "grader_ratelimit" not in app.extensions:
    ratelimit.init_app(app)
