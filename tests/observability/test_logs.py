"""Structured JSON logs: one object per line, with the bound submission and request ids."""
import io
import json
import logging

from grader.observability.logs import (ContextFilter, JsonFormatter, configure_logging, current,
                                       log_context)


def capture():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("test.obs.logs")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    return logger, stream


def lines(stream):
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_line_carries_the_bound_submission_id():
    logger, stream = capture()
    with log_context(submission_id="sub-1", request_id="req-9"):
        logger.info("graded %s", "ok")
    [entry] = lines(stream)
    assert (entry["message"], entry["submission_id"], entry["request_id"]) == ("graded ok", "sub-1",
                                                                             "req-9")
    assert entry["level"] == "INFO" and entry["logger"] == "test.obs.logs"
    assert entry["ts"].endswith("Z")


def test_ids_are_unbound_after_the_block():
    logger, stream = capture()
    with log_context(submission_id="sub-2"):
        with log_context(submission_id="sub-3"):
            assert current("submission_id") == "sub-3"
        logger.info("outer")
    logger.info("after")
    assert [e["submission_id"] for e in lines(stream)] == ["sub-2", None]


def test_extra_fields_and_exceptions_are_fields_of_the_line():
    logger, stream = capture()
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("failed", extra={"duration_ms": 12.5})
    [entry] = lines(stream)
    assert entry["duration_ms"] == 12.5
    assert "ValueError: boom" in entry["exc"]


def test_configure_logging_replaces_only_its_own_handler():
    root = logging.getLogger()
    before = list(root.handlers)
    stream = io.StringIO()
    try:
        configure_logging(level="INFO", fmt="json", stream=io.StringIO())
        configure_logging(level="INFO", fmt="json", stream=stream)
        ours = [h for h in root.handlers if h not in before]
        assert len(ours) == 1
        with log_context(submission_id="sub-4"):
            logging.getLogger("grader.test").warning("hello")
        assert json.loads(stream.getvalue().splitlines()[-1])["submission_id"] == "sub-4"
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)


def test_werkzeugs_coloured_warning_is_plain_text_in_json(monkeypatch):
    """Issue 14.6: the development server's warning, styled bold red by Werkzeug for a
    terminal, lands in the JSON log without the raw ESC[31m... codes."""
    from werkzeug import serving

    monkeypatch.setattr(serving, "_log_add_style", True)
    styled = serving._ansi_style("WARNING: This is a development server.", "bold", "red")
    assert "\x1b[" in styled  # what Werkzeug hands to its logger
    logger, stream = capture()
    logger.warning(styled)
    logger.info("%s done", serving._ansi_style("Press CTRL+C to quit", "yellow"))
    first, second = lines(stream)
    assert first["message"] == "WARNING: This is a development server."
    assert second["message"] == "Press CTRL+C to quit done"
    assert "\x1b" not in stream.getvalue() and "\\u001b" not in stream.getvalue()
