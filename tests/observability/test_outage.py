"""A store outage is answered 503 with Retry-After in the one JSON error shape, not 500."""
import pytest
from flask import Flask
from sqlalchemy import exc as sa_exc

from grader.observability.outage import register_store_outage_handler


def app_raising(error):
    app = Flask(__name__)
    app.config["GRADER"] = {"STORE_RETRY_AFTER_SECONDS": 7}
    register_store_outage_handler(app)

    @app.get("/x")
    def view():
        raise error

    return app


@pytest.mark.parametrize("error", [
    sa_exc.OperationalError("SELECT 1", {}, Exception("connection refused")),
    sa_exc.InterfaceError("SELECT 1", {}, Exception("connection already closed")),
    sa_exc.TimeoutError("QueuePool limit reached"),
])
def test_store_outage_is_503_with_retry_after(error):
    resp = app_raising(error).test_client().get("/x")
    body = resp.get_json()
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == "7"
    assert (body["status"], body["code"]) == (503, "store_unavailable")


def test_integrity_errors_are_not_mistaken_for_an_outage():
    app = app_raising(sa_exc.IntegrityError("INSERT", {}, Exception("duplicate key")))
    assert app.test_client().get("/x").status_code == 500
