"""How the API reads JSON request bodies: one parser (:func:`grader.jsontext.loads`) for the
marshmallow-validated bodies (webargs, through flask-smorest's ``@blp.arguments``) and for
``request.get_json()`` (Flask's JSON provider), so a body Python cannot turn into numbers (an
integer of more than 4,300 digits) is a 400 ``invalid_json`` naming the reason and the position,
like any other malformed JSON, never a 500.

Every API blueprint is a :class:`Blueprint` of this module (flask-smorest's, with this parser).
"""
from __future__ import annotations

import json
from typing import Any

import flask_smorest
from flask.json.provider import DefaultJSONProvider
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from grader import jsontext
from grader.api.errors import ApiError


def invalid_json(error: json.JSONDecodeError) -> ApiError:
    """The API's 400 for a body that is not JSON it can read, with the parser's reason."""
    return ApiError(400, "invalid_json", f"The request body is not valid JSON: {error}.", None)


def read_body(req) -> bytes:
    """The request's body (cached), refused with 413 ``payload_too_large`` when it is longer than
    ``MAX_BODY_BYTES``.

    Werkzeug refuses a longer body that declares its ``Content-Length``, but it cuts a chunked
    one (no ``Content-Length``) at the limit without an error (``LimitedStream(is_max=True)``
    stops there), and the cut body would then read as invalid JSON. One more byte from the
    server's de-chunked input tells the two apart. Raises :class:`ApiError` (413)."""
    data = req.get_data(cache=True)
    limit = req.max_content_length
    if limit is not None and req.content_length is None and len(data) >= limit:
        if req.environ["wsgi.input"].read(1):
            raise too_large(limit)
    return data


def too_large(limit: int) -> ApiError:
    """413 naming the limit (the MAX_BODY_BYTES setting)."""
    return ApiError(413, "payload_too_large", f"The request body is larger than {limit} bytes "
                    "(MAX_BODY_BYTES); send a smaller body.", None)


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser reading JSON with :func:`grader.jsontext.loads`."""

    def _raw_load_json(self, req) -> Any:
        if not is_json_request(req):
            return core.missing
        data = read_body(req)
        if not data:
            return core.missing
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"Bytes decoding error : {exc.reason}",
                                       doc=str(exc.object), pos=exc.start) from exc
        try:
            return jsontext.loads(text)
        except jsontext.NumberTooLong as exc:
            raise invalid_json(exc) from None


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's blueprint whose ``@arguments`` read JSON with :class:`JsonBodyParser`."""

    ARGUMENTS_PARSER = JsonBodyParser()


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider whose ``loads`` (``request.get_json()``) is
    :func:`grader.jsontext.loads`; werkzeug turns its errors into a 400 naming the reason."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if kwargs:
            return super().loads(s, **kwargs)
        return jsontext.loads(s)
