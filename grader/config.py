"""Configuration from the environment, in one place, with defaults that run on a laptop.

Embedded default (no variables set): a SQLite file in ``instance/``, grading in grading processes
on this machine, no Redis.
Production: set ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis); grading then runs on
Celery workers. Every setting can also be passed to :func:`grader.app.create_app` as an override.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Mapping

PROJECT_ROOT = Path(__file__).resolve().parent.parent

#: name -> (type, default). Types parse the environment's strings.
SETTINGS: dict[str, tuple[type, Any]] = {
    "INSTANCE_PATH": (str, str(PROJECT_ROOT / "instance")),
    "DATABASE_URL": (str, ""),  # "" -> sqlite file in INSTANCE_PATH
    "CELERY_BROKER_URL": (str, ""),  # "" -> grade in-process
    "CELERY_QUEUE": (str, "grading"),
    # production: deliveries (webhooks, LTI scores) go to their own queue, consumed by
    # `grader worker --deliveries`, so a slow receiver never holds a grading worker
    # ("" -> "<CELERY_QUEUE>-deliveries": "grading-deliveries")
    "CELERY_DELIVERY_QUEUE": (str, ""),
    "CONTENT_DIR": (str, str(PROJECT_ROOT / "rubrics")),
    "GRADER_SECRET_KEY": (str, ""),  # "" -> generated once and kept in INSTANCE_PATH/secret_key
    "SANDBOX_MODE": (str, "auto"),  # auto (real isolation, fail closed) | unsafe-dev
    "MAX_BODY_BYTES": (int, 2 * 1024 * 1024),
    # embedded default: grading in INLINE_WORKERS grading processes (processes), or on threads
    # of the API process (threads: development, tests that patch the grading code)
    "INLINE_GRADING": (str, "processes"),
    "INLINE_WORKERS": (int, 2),
    "GRADING_NICE": (int, 10),  # the grading processes' niceness (0: as the API process)
    # embedded default: threads sending deliveries (webhooks, LTI scores), and at most this many
    # attempts at once to one receiving host; DELIVERY_DEADLINE_SECONDS bounds one attempt whole
    "DELIVERY_WORKERS": (int, 4),
    "DELIVERY_PER_HOST": (int, 2),
    "DELIVERY_DEADLINE_SECONDS": (float, 10.0),
    "SWEEP_AFTER_SECONDS": (int, 300),  # a queued/running submission older than this is re-queued
    "SWEEP_INTERVAL_SECONDS": (float, 30.0),
    "MAX_GRADING_ATTEMPTS": (int, 3),  # infrastructure retries before a submission is marked failed
    # CPU seconds the trusted side may spend grading one submission (checks, diagnosis,
    # disclosure, pictures, rubric scoring; not the sandbox): past it, an infrastructure fault
    "GRADING_CPU_SECONDS": (float, 10.0),
    "WEBHOOK_BACKOFF_SECONDS": (float, 10.0),  # first retry delay; doubles per attempt, cap 1 h
    # callbacks to loopback/private addresses: "auto" allows them only on the embedded default
    "WEBHOOK_ALLOW_PRIVATE": (str, "auto"),
    "LONG_POLL_MAX_SECONDS": (float, 30.0),
    "RESULT_LINK_MAX_AGE_SECONDS": (int, 7 * 24 * 3600),
    "BATCH_MAX_SUBMISSIONS": (int, 100),
    "LOCAL_COURSE": (str, "local"),  # the course the embedded default creates on first start
    # LTI 1.3 tool (grader/lti): see the README's LTI section
    "LTI_KEY_OVERLAP_SECONDS": (int, 3600),  # a rotated-out key stays in /lti/jwks this long
    "LTI_JWKS_CACHE_SECONDS": (float, 300.0),  # platforms' JWKS cached this long
    "LTI_JWKS_REFETCH_COOLDOWN_SECONDS": (float, 5.0),  # unknown kid: refetch at most this often
    "LTI_CLOCK_SKEW_SECONDS": (int, 60),  # leeway on exp/iat of id_tokens
    # web pages (grader/web): practice pages auto (embedded default only) | 1 | 0; session cookie
    # SameSite auto (None+Secure+Partitioned over HTTPS, else Lax) | None | Lax | Strict; Secure
    # auto | 1 | 0; reverse proxies whose X-Forwarded-* headers are trusted; server-side wait of
    # a result page for its grade
    "WEB_PRACTICE": (str, "auto"),
    "WEB_COOKIE_SAMESITE": (str, "auto"),
    "WEB_COOKIE_SECURE": (str, "auto"),
    "TRUSTED_PROXY_HOPS": (int, 0),
    "WEB_WAIT_SECONDS": (float, 25.0),
    # limits of the pages' POSTs (grader/web/limits.py; README "Limits of the pages"): rates in
    # flask-limiter's notation ("off" disables), per signed-in learner and per client address;
    # submissions queued or running at once per learner, and per address for anonymous practice
    # learners (0 disables); the LTI endpoints' rate per client address (grader/lti/views.py)
    "WEB_SUBMIT_RATE_LIMIT": (str, "10 per minute;100 per hour"),
    "WEB_SUBMIT_ADDRESS_RATE_LIMIT": (str, "30 per minute;300 per hour"),
    "WEB_MAX_PENDING": (int, 2),
    "WEB_MAX_PENDING_PER_ADDRESS": (int, 2),
    "LTI_RATE_LIMIT": (str, "120 per minute;2000 per hour"),
    # prechecks (visible examples only, answered at once: grader/api/prechecks.py) per learner
    "PRECHECK_RATE_LIMIT": (str, "20 per minute;200 per hour"),
    # production mode: how long the API waits for a grading worker's answer to a precheck
    # (grader/queue/prechecks.py) before answering 503 precheck_timeout
    "PRECHECK_WAIT_SECONDS": (float, 20.0),
    # observability (grader/observability; README "Observability"): JSON log handler on the root
    # logger, one access-log line per request, the log format (json | text) and root level
    "LOG_JSON": (bool, True),
    "ACCESS_LOG": (bool, True),
    "LOG_FORMAT": (str, "json"),
    "LOG_LEVEL": (str, "INFO"),
    # /readyz: run the sandbox self-test (off on API hosts that never run learner code), cache its
    # result this many seconds, bound every check by this many seconds
    "READY_CHECK_SANDBOX": (bool, True),
    "READY_SANDBOX_TTL": (float, 60.0),
    "READY_TIMEOUT": (float, 3.0),
    # Retry-After (seconds) of the 503 answered while the store is unreachable, and of /readyz
    "STORE_RETRY_AFTER_SECONDS": (int, 5),
    # the CPU savings in force (grader/levers.py): all | none | a comma-separated list; the
    # benchmarks turn them off one at a time to measure each
    "CPU_LEVERS": (str, "all"),
}

#: Words a yes/no setting accepts (any case, surrounding spaces ignored).
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def truthy(value: Any) -> bool:
    """Whether a yes/no value says yes: ``True``, ``1``, or a string in :data:`TRUE_WORDS`.
    Anything else (``"0"``, ``"off"``, ``False``, ``None``, ...) says no."""
    return str(value).strip().lower() in TRUE_WORDS


def _parse(kind: type, raw: str) -> Any:
    """``raw`` (an environment string) as ``kind``. Raises ``ValueError`` when it does not
    parse; a yes/no setting takes a word of :data:`TRUE_WORDS` or :data:`FALSE_WORDS` (an empty
    one, as ``VAR=`` or a compose file's ``${VAR:-}`` gives, is read as unset: its default)."""
    if kind is bool:
        word = raw.strip().lower()
        if word not in TRUE_WORDS | FALSE_WORDS:
            raise ValueError(f"{raw!r} is not one of 1/0, true/false, yes/no, on/off")
        return word in TRUE_WORDS
    return kind(raw)


def delivery_queue(config: Mapping[str, Any]) -> str:
    """The Celery queue of deliveries: ``CELERY_DELIVERY_QUEUE``, by default
    ``<CELERY_QUEUE>-deliveries`` (two deployments on one broker keep theirs apart)."""
    name = str(config.get("CELERY_DELIVERY_QUEUE") or "").strip()
    return name or f"{config.get('CELERY_QUEUE') or SETTINGS['CELERY_QUEUE'][1]}-deliveries"


def setting(config: Mapping[str, Any], name: str) -> Any:
    """The value of setting ``name`` in ``config`` with the type :data:`SETTINGS` declares: its
    default when ``config`` lacks it (a hand-built configuration), and a string (an override such
    as ``{"READY_CHECK_SANDBOX": "0"}``) parsed as :func:`load_config` parses the environment.
    Raises ``KeyError`` for a name not in :data:`SETTINGS`, ``ValueError`` for a value that does
    not parse."""
    kind, default = SETTINGS[name]
    value = config.get(name, default)
    if isinstance(value, str) and kind is not str:
        return _parse(kind, value)
    return value


class SettingError(ValueError):
    """A setting's value does not parse (the message names the environment variable): the
    process stops at start, and the ``grader`` command says so in one line."""


#: The settings :func:`auto_flag` reads: ``auto`` or a yes/no word, checked at start.
AUTO_FLAGS = ("WEBHOOK_ALLOW_PRIVATE", "WEB_PRACTICE")


def auto_flag(config: Mapping[str, Any], name: str) -> bool:
    """A setting that is ``auto`` (the default), or yes/no (:func:`truthy`): ``auto`` means yes on
    the embedded default (:func:`grading_is_inline`), no in production."""
    value = str(config.get(name, "auto")).strip().lower()
    if value == "auto":
        return grading_is_inline(config)
    return truthy(value)


def load_config(environ: Mapping[str, str] | None = None, **overrides: Any) -> dict[str, Any]:
    """Read every setting from ``environ`` (default ``os.environ``), then apply ``overrides``.

    Raises :class:`SettingError` (a ``ValueError``) naming the variable when a value does not
    parse.
    """
    environ = os.environ if environ is None else environ
    config: dict[str, Any] = {}
    for name, (kind, default) in SETTINGS.items():
        if name in overrides:
            config[name] = overrides[name]
        elif name in environ and not (kind is bool and not environ[name].strip()):
            try:
                config[name] = _parse(kind, environ[name])
            except ValueError as exc:
                raise SettingError(f"environment variable {name}: {exc}") from exc
        else:
            config[name] = default
    for name, value in overrides.items():
        config.setdefault(name, value)
    for name in AUTO_FLAGS:
        value = str(config.get(name, "auto")).strip().lower()
        if value not in {"auto", ""} | TRUE_WORDS | FALSE_WORDS:
            raise SettingError(f"environment variable {name}: {config[name]!r} is not auto or a "
                             f"yes/no word ({', '.join(sorted(TRUE_WORDS | FALSE_WORDS))})")
    from grader.levers import parse as parse_levers

    try:
        parse_levers(config["CPU_LEVERS"])
    except ValueError as exc:
        raise SettingError(f"environment variable CPU_LEVERS: {exc}") from exc
    instance = Path(config["INSTANCE_PATH"])
    if not config["DATABASE_URL"]:
        instance.mkdir(parents=True, exist_ok=True)
        config["DATABASE_URL"] = f"sqlite:///{instance / 'grader.db'}"
    if not config["GRADER_SECRET_KEY"]:
        config["GRADER_SECRET_KEY"] = _instance_secret(instance)
    return config


def _instance_secret(instance: Path) -> str:
    """A random secret generated on first start and kept (mode 0600) in the instance folder."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def webhooks_may_reach_private(config: Mapping[str, Any]) -> bool:
    """Whether callbacks may target loopback or private addresses: ``WEBHOOK_ALLOW_PRIVATE`` 1/0,
    or ``auto`` (the default): yes on the embedded default (a laptop's own receivers), no in
    production, where an LMS key must not make the service call internal hosts."""
    return auto_flag(config, "WEBHOOK_ALLOW_PRIVATE")


def grading_is_inline(config: Mapping[str, Any]) -> bool:
    """True on the embedded default: no broker configured, so grading runs in the API process's
    own worker threads (the learner's code still runs in the sandbox, never in this process)."""
    return not config.get("CELERY_BROKER_URL")
