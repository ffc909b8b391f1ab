"""The ``grader`` command.

- ``grader serve [--host H] [--port P]``: the API on the embedded default (SQLite, in-process grading).
- ``grader worker [CELERY ARGS...]``: a Celery worker (production; needs ``CELERY_BROKER_URL``)
  grading from ``CELERY_QUEUE``; ``grader worker --deliveries`` consumes ``CELERY_DELIVERY_QUEUE``
  instead (webhooks and LTI scores: no learner code, no sandbox, no root needed).
- ``grader beat``: the Celery beat that runs the periodic sweep.
- ``grader grade ASSIGNMENT_ID ITEM_ID FILE``: grade one response locally, without a server.
- ``grader rubric trial RUBRIC MARKED_FILE [--explain]``: agreement of a rubric with human marks.
- ``grader rubric explain RUBRIC "answer"``: why a rubric scores an answer as it does.
- ``grader init --course ID [--name NAME] [--instructor]``: production bootstrap in one step:
  migrate the store, create the course, print an admin key and the course's lms key (and an
  instructor key) as shell assignments.
- ``grader create-admin-key``: create an admin API key (courses and keys) and print it once.
- ``grader db upgrade | current | revision -m MESSAGE [--autogenerate]``: schema migrations of
  ``DATABASE_URL`` (the API and the workers also upgrade at start).
- ``grader check-sandbox``: run the sandbox self-test and say whether grading code is possible.
- ``grader lti rotate-key``: make a new LTI signing key; the old one stays published for
  ``LTI_KEY_OVERLAP_SECONDS``.
- ``grader instructor-link --course ID [--assignment A] [--minutes 15] [--base-url URL]``: print
  a one-time link signing in to the course's instructor pages (no LMS needed).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from grader.config import SettingError, delivery_queue, load_config, setting

def cmd_serve(args) -> int:
    from grader.app import create_app
    from grader.runtime import check_sandbox
    from grader.sandbox import SandboxUnavailable

    config = load_config()
    try:
        check_sandbox(config)
    except SandboxUnavailable as exc:  # fail closed: code items will be marked failed, not zero
        print(f"\n*** SANDBOX UNAVAILABLE: code submissions will fail (not score 0) until this is "
              f"fixed: {exc}\n*** Run `make system-deps` (installs bubblewrap) as root.\n",
              file=sys.stderr)
    app = create_app()
    warm = getattr(app.extensions["grader"].dispatcher, "warm", None)
    if warm is not None:  # the grading processes start now, not on the first submission
        warm()
    print(f"Serving the attention grader on http://{args.host}:{args.port}/api/v1 "
          f"(docs: /api/v1/docs)", file=sys.stderr)
    print(serve_message(app, args.host, args.port), file=sys.stderr, flush=True)
    app.run(host=args.host, port=args.port, threaded=True, use_reloader=False)
    return 0


def serve_message(app, host: str, port: int) -> str:
    """The learner pages' links printed at start: on the embedded default, the practice page of
    the local course (anyone at the address may submit and see feedback)."""
    from grader.web.access import practice_enabled

    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    base = f"http://{shown}:{port}"
    with app.app_context():
        if not practice_enabled():
            return (f"Learner pages open from an LMS launch (LTI); practice pages are off "
                    f"(WEB_PRACTICE=0 or production mode). Instructor view: {base}/learn/"
                    "<assignment>/instructor after a launch.")
        first = "attention-basics"
        catalog = app.extensions["grader"].catalog
        if catalog.get(app.config["GRADER"]["LOCAL_COURSE"], first) is None:
            first = next(iter(a.id for a in catalog.visible(app.config["GRADER"]["LOCAL_COURSE"])),
                         "")
    return (f"Practice page (anyone at this address can submit and see feedback): "
            f"{base}/learn/{first}\nAll practice assignments: {base}/learn")


def cmd_worker(args) -> int:
    config = load_config()
    if not config["CELERY_BROKER_URL"]:
        print("grader worker: set CELERY_BROKER_URL (e.g. redis://127.0.0.1:6379/0); without it "
              "the API grades in-process and needs no worker.", file=sys.stderr)
        return 2
    from workers.celery_app import celery_app

    argv, deliveries = worker_argv(config, args.celery_args)
    if deliveries:  # the deliveries' own workers: no learner code, no sandbox self-test
        celery_app.conf.grader_deliveries_only = True
    else:
        explain_root(celery_app)
    celery_app.worker_main(argv)
    return 0


def worker_argv(config, celery_args: list[str]) -> tuple[list[str], bool]:
    """Arguments of ``celery worker`` for ``grader worker [--deliveries] CELERY_ARGS``, and
    whether it consumes the deliveries' queue (:func:`grader.config.delivery_queue`) instead of
    the grading one (``CELERY_QUEUE``)."""
    rest = [a for a in celery_args if a != "--deliveries"]
    deliveries = len(rest) != len(celery_args)
    queue = delivery_queue(config) if deliveries else config["CELERY_QUEUE"]
    return ["worker", "--loglevel", "INFO", "-Q", queue, *rest], deliveries


ROOT_NOTE = (
    "grader worker: running as root, as the sandbox needs (a cgroup per slot, namespaces with "
    "bubblewrap, then every learner job drops to an unprivileged uid with no network). "
    "Celery's generic 'superuser privileges' warning is replaced by this note: its danger is a "
    "broker message that runs code when unpickled, and this worker accepts only {accept} "
    "messages. Keep the broker private (a password, never reachable by learners). See README, "
    "'Why the worker runs as root'.")


def explain_root(celery_app) -> str | None:
    """As root, print :data:`ROOT_NOTE` and silence Celery's superuser warning (which only says
    "not recommended"); refuses to do so when the app accepts pickle, where Celery's warning is
    the right one. Returns the note printed, or ``None``."""
    import os
    import warnings

    accept = list(celery_app.conf.accept_content)
    if os.geteuid() != 0 or any("pickle" in a or "python-serialize" in a for a in accept):
        return None
    warnings.filterwarnings("ignore", message=r"(?s).*running the worker with superuser")
    note = ROOT_NOTE.format(accept=", ".join(accept).upper())
    print(note, file=sys.stderr)
    return note


def beat_argv(config, celery_args: list[str]) -> list[str]:
    """Arguments of ``celery beat``: its schedule file (``celerybeat-schedule``, the time each
    periodic task last ran) lives in the instance folder, never in the working directory, unless
    ``-s``/``--schedule`` is given."""
    argv = ["beat", "--loglevel", "INFO", *celery_args]
    if not any(a in ("-s", "--schedule") or a.startswith("--schedule=") for a in celery_args):
        instance = Path(config["INSTANCE_PATH"])
        instance.mkdir(parents=True, exist_ok=True)
        argv += ["--schedule", str(instance / "celerybeat-schedule")]
    return argv


def cmd_beat(args) -> int:
    from workers.celery_app import celery_app

    celery_app.start(beat_argv(load_config(), args.celery_args))
    return 0


def cmd_grade(args) -> int:
    from grader.grading.service import grade_responses, submission_budget
    from grader.items import GradingContext
    from grader.runtime import builtin_assignments, make_sandbox

    config = load_config()
    assignments = builtin_assignments(config)
    assignment = assignments.get(args.assignment_id)
    if assignment is None:
        print(f"grader grade: no assignment {args.assignment_id!r}; known: "
              f"{', '.join(assignments)}", file=sys.stderr)
        return 2
    item = assignment.items.get(args.item_id)
    if item is None:
        print(f"grader grade: assignment {assignment.id!r} has no item {args.item_id!r}; its "
              f"items: {', '.join(assignment.items)}", file=sys.stderr)
        return 2
    from grader.problems.source import SourceDecodeError, decode

    try:
        data = Path(args.file).read_bytes() if args.file != "-" else sys.stdin.buffer.read()
        content = decode(data) if item.kind == "code" else data.decode("utf-8")
    except (OSError, UnicodeDecodeError, SourceDecodeError) as exc:
        print(f"grader grade: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    value = content.strip() if item.kind == "choice" else content
    from grader.items import get_kind

    response = {get_kind(item.kind).response_field: value}
    problem = get_kind(item.kind).validate_response(item, response)
    if problem:
        print(f"grader grade: {problem}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else int.from_bytes(
        hashlib.sha256(content.encode()).digest()[:8], "big")
    sandbox = make_sandbox(config) if item.kind == "code" else None
    single = type(assignment)(id=assignment.id, title=assignment.title,
                              items={item.id: item})
    try:
        budget = submission_budget(setting(config, "GRADING_CPU_SECONDS"))
        [result] = grade_responses(single, {item.id: response},
                                   GradingContext(seed=seed, sandbox=sandbox, budget=budget,
                                                  seed_pool=False))
    finally:
        if sandbox is not None:
            sandbox.close()
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(render_result(result))
    return 0


def render_result(result) -> str:
    """A plain-text report of one item result for the terminal."""
    lines = [f"{result.item_id} ({result.kind}): {result.score:g} / {result.max_score:g}"]
    if result.output:
        lines.append(result.output)
    for test in result.tests:
        mark = "PASS" if test.status == "passed" else "FAIL"
        if test.max_score:
            amount = f": {test.score:g}/{test.max_score:g}"
        else:  # an adjustment (a deduction, a limit, base credit): its output leads with the amount
            output = test.output or ""
            amount = "" if output[:1] in ("+", "-") or output.startswith("Nothing deducted") else f": {test.score:+g}"
        lines.append(f"  [{mark}] {test.name}{amount}"
                     + (f" ({test.visibility})" if test.visibility != "visible" else ""))
        for line in (test.output or "").splitlines():
            lines.append(f"         {line}")
    return "\n".join(lines)


def cmd_check_sandbox(args) -> int:
    from grader.runtime import check_sandbox
    from grader.sandbox import SandboxUnavailable

    config = load_config()
    try:
        check_sandbox(config)
    except SandboxUnavailable as exc:
        print(f"sandbox unavailable: {exc}", file=sys.stderr)
        return 1
    print(f"sandbox ok (mode {config['SANDBOX_MODE']})")
    return 0


def cmd_rubric_trial(args) -> int:
    from grader.rubric import RubricError, TrialTooSlow, load_rubric_file, trial_report
    from grader.rubric.files import load_marked_responses

    path = _rubric_path(args.rubric, "trial")
    if path is None:
        return 2
    try:
        compiled = load_rubric_file(path)
        report = trial_report(compiled, load_marked_responses(args.marked_file),
                              max_mark=args.max_mark)
    except (RubricError, ValueError, KeyError, TrialTooSlow) as exc:
        print(f"grader rubric trial: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    agreement = report["agreement"]
    print(f"rubric {report['rubric_id']} v{report['rubric_version']}: "
          f"{agreement.get('n', '?')} responses")
    for key in ("pearson_r", "quadratic_weighted_kappa", "exact_agreement",
                "within_one_agreement", "rmse"):
        if key in agreement:
            value = agreement[key]
            print(f"  {key:26} {value:.3f}" if isinstance(value, float) else f"  {key:26} {value}")
    print(f"  over-marked: {report['over_marked_count']}, under-marked: "
          f"{report['under_marked_count']}")
    for name in ("criteria", "misconceptions"):
        for entry in report[name]:
            print(f"  {'criterion' if name == 'criteria' else 'misconception'} {entry['id']}: "
                  f"matched {entry['matched']}")
    for guard in report.get("guards", []):
        print(f"  guard {guard['id']}: fired on {guard['fired']} response(s): "
              + ", ".join(str(r) for r in guard["responses"][:20]))
    for warning in report.get("warnings", []):
        print(f"  warning {warning['path'] or '<root>'}: {warning['message']}")
    print("\n".join(_trial_calibration_lines(report)))
    if args.explain:
        from grader.rubric.explain import format_explanation

        for title, rows in (("over-marked", report["over_marked"]), ("under-marked", report["under_marked"])):
            for row in rows:
                print(f"\n{title} response {row['id']} (mark {row['mark']:g}, score {row['score']:g}): {row['text']!r}")
                explanation = row.get("explanation") or {}
                print(explanation["omitted"] if "omitted" in explanation else format_explanation(explanation))
    return 0


def _rubric_path(name: str, command: str):
    """A rubric file, or a built-in rubric's id; ``None`` after printing why not."""
    path = Path(name)
    if path.is_file():
        return path
    from grader.rubric.files import find_rubric_file

    try:
        return find_rubric_file(name, Path(load_config()["CONTENT_DIR"]))
    except ValueError as exc:
        print(f"grader rubric {command}: {exc}", file=sys.stderr)
        return None


def cmd_rubric_explain(args) -> int:
    from grader.rubric import RubricError, ScoringTimeout, load_rubric_file
    from grader.rubric.explain import explain, format_explanation

    path = _rubric_path(args.rubric, "explain")
    if path is None:
        return 2
    answer = sys.stdin.read() if args.answer == "-" else args.answer
    try:
        report = explain(load_rubric_file(path), answer)
    except (RubricError, ScoringTimeout) as exc:
        print(f"grader rubric explain: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else format_explanation(report))
    return 0


def cmd_problem_trial(args) -> int:
    """``grader problem trial FILE``: the upload's trial of a problem document, in the sandbox;
    exit 1 when the trial refuses the problem, 2 when the document is invalid."""
    from grader.problems.authored import DocumentError, compile_document, load_document, parse
    from grader.problems.authored.trial import SEEDS, trial
    from grader.runtime import make_sandbox

    try:
        text = Path(args.file).read_text(encoding="utf-8")
        raw = parse(text, "json" if args.file.endswith(".json") else "yaml")
        doc, problem = load_document(raw), compile_document(raw)
    except (OSError, UnicodeDecodeError, DocumentError) as exc:
        print(f"grader problem trial: {args.file}: {exc}", file=sys.stderr)
        return 2
    sandbox = make_sandbox(load_config())
    try:
        report = trial(problem, doc, sandbox, range(args.seeds or len(SEEDS)),
                       with_mutants=not args.no_mutants)
    finally:
        sandbox.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return 1 if report["refused"] else 0
    print(f"problem {report['id']}: trial on {report['seeds']} draws, {report['seconds']:g} s")
    if "reference" in report:
        print(f"  reference: {report['reference']['score']:g} / 10; grading "
              f"{report['seconds_per_grading'] * 1000:.0f} ms ({report['cpu_ms_per_grading']:g}"
              " CPU-ms in the grader)")
        for found in report["mistakes"]:
            print(f"  mistake {found['id']}: {found['score']:g} / 10, "
                  f"{'named' if found['named'] else 'NOT named'}, "
                  f"{'separable' if found['separable'] else 'NOT separable'}")
        for mutant in report.get("mutants", []):
            print(f"  mutant {mutant['id']}: {'caught' if mutant['caught'] else 'NOT caught'} "
                  f"({mutant['score']:g} / 10)")
        if "mutants_caught" in report:
            print(f"  mutants caught: {report['mutants_caught']['caught']} of "
                  f"{report['mutants_caught']['of']}")
    for finding in report["findings"]:
        print(f"  {finding['check']}: {finding['message']}")
    if report["refused"]:
        print(f"REFUSED: {report['refused']}")
        return 1
    return 0


def cmd_init(args) -> int:
    from grader.bootstrap import init_course
    from grader.store import Store
    from grader.store.migrate import MigrationError

    config = load_config()
    store = Store(config["DATABASE_URL"])
    roles = ("admin", "instructor", "lms") if args.instructor else ("admin", "lms")
    try:
        store.upgrade()
        made = init_course(store, args.course, args.name, roles)
    except (ValueError, MigrationError) as exc:
        print(f"grader init: {exc}", file=sys.stderr)
        return 2
    finally:
        store.dispose()
    print(f"# course {made.course_id} " + ("created" if made.created else
                                           "existed already; new keys were made") +
          f" in {_safe_url(config['DATABASE_URL'])}. Each key is shown once; keep them "
          "secret (only their hashes are stored).")
    for role, key in made.keys.items():
        print(f"GRADER_{role.upper()}_KEY={key}")
    if made.webhook_secret:
        print(f"# webhooks of {made.course_id} are signed with this secret (also: GET "
              "/api/v1/webhooks/secret)")
        print(f"GRADER_WEBHOOK_SECRET={made.webhook_secret}")
    return 0


def _safe_url(url: str) -> str:
    """A database URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _trial_calibration_lines(report: dict) -> list[str]:
    """The trial report's calibration, unmatched phrases and WordNet suggestions as text lines."""
    import yaml

    cal = report.get("calibration") or {}
    lines = ["calibration (raw rubric points -> marks):"]
    if cal.get("before"):
        lines.append(f"  {cal['protocol']}")
        for key in ("before", "linear", "isotonic"):
            st = cal[key]
            r = "-" if st["pearson_r"] is None else f"{st['pearson_r']:.3f}"
            lines.append(f"  {key:9} RMSE {st['rmse']:.3f}  r {r}  mean score {st['mean_score']:.2f}")
    if cal.get("map"):
        lines.append(f"  suggested map ({cal['method']}); to apply it, add to the rubric's next version:")
        lines.extend("    " + line for line in
                     yaml.safe_dump({"calibration": cal["map"]}, default_flow_style=None).splitlines())
    else:
        lines.append(f"  no map: {cal.get('reason')}")
    lines.extend(f"  warning: {w}" for w in cal.get("warnings", []))
    phrases = report.get("unmatched_phrases") or {}
    lines.append(f"phrases no criterion matched, in {phrases.get('under_marked', 0)} under-marked responses "
                 f"(mark >= half, score below it by more than the tolerance):")
    for p in phrases.get("phrases", []):
        flag = "  (words already in the rubric)" if p["in_rubric"] else ""
        lines.append(f"  {p['count']:3d} x \"{p['phrase']}\" (low-marked: {p['low_marked_count']}){flag}")
    sug = report.get("suggestions") or {}
    if not sug.get("available"):
        lines.append(f"suggestions unavailable: {sug.get('reason')}")
        return lines
    lines.append(f"WordNet suggestions ({sug['source']}); nothing is added to the rubric by itself:")
    for u in sug["used"]:
        lines.append(f"  {u['count']:3d} x answers say \"{u['answer_phrase']}\" where criterion {u['criterion']} "
                     f"says \"{u['rubric_word']}\" ({u['relation']}; {u['sense']})")
    for a in sug["alternatives"]:
        lines.append(f"  criterion {a['criterion']}, \"{a['word']}\": also {', '.join(a['alternatives'])}")
    return lines


def cmd_create_admin_key(args) -> int:
    from grader.bootstrap import create_admin_key
    from grader.store import Store

    store = Store(load_config()["DATABASE_URL"])
    store.upgrade()
    print(create_admin_key(store, args.label))
    return 0


def cmd_db(args) -> int:
    from grader.store import migrate
    from grader.store.db import make_engine

    engine = make_engine(load_config()["DATABASE_URL"])
    try:
        if args.db_command == "upgrade":
            before, after = migrate.upgrade(engine, args.revision)
            print(f"schema at {after}" + (f" (was {before or 'empty'})" if before != after
                                           else " (nothing to do)"))
        elif args.db_command == "current":
            current = migrate.current_revision(engine)
            head = migrate.head_revision()
            print(f"{current or 'none'} (head: {head})")
            return 0 if current == head else 1
        else:  # revision: a draft for a developer to review
            from alembic import command

            rev_id = args.rev_id or f"{int(migrate.head_revision()) + 1:04d}"
            with engine.begin() as conn:
                command.revision(migrate.alembic_config(conn), message=args.message,
                                 autogenerate=args.autogenerate, rev_id=rev_id)
    except migrate.MigrationError as exc:
        print(f"grader db {args.db_command}: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    return 0


def cmd_lti_rotate_key(args) -> int:
    from grader.lti.keys import ToolKeys
    from grader.store import Store

    config = load_config()
    store = Store(config["DATABASE_URL"])
    store.upgrade()
    keys = ToolKeys(store, config["GRADER_SECRET_KEY"], config["LTI_KEY_OVERLAP_SECONDS"])
    kid = keys.rotate()
    published = [k["kid"] for k in keys.jwks()["keys"]]
    print(f"new LTI signing key {kid}; published: {', '.join(published)} (retired keys stay "
          f"{config['LTI_KEY_OVERLAP_SECONDS']} s)")
    return 0


def cmd_instructor_link(args) -> int:
    """Print a one-time sign-in link to the instructor pages of a course (no LMS needed)."""
    from datetime import timedelta

    from grader.store import Store

    config = load_config()
    store = Store(config["DATABASE_URL"])
    store.upgrade()
    try:
        if store.courses.get_course(args.course) is None:
            print(f"grader instructor-link: no course {args.course!r}", file=sys.stderr)
            return 2
        if not 1 <= args.minutes <= 24 * 60:
            print("grader instructor-link: --minutes is 1 to 1440", file=sys.stderr)
            return 2
        secret = store.sign_ins.create(args.course, args.assignment,
                                       timedelta(minutes=args.minutes), args.label)
    finally:
        store.dispose()
    url = f"{args.base_url.rstrip('/')}/instructor/sign-in/{secret}"
    print(url)
    print(f"# signs in once, as an instructor of {args.course}, within {args.minutes} minutes; "
          "keep it private", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the API on the embedded default")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=cmd_serve)

    worker = sub.add_parser("worker", help="run a Celery worker (production mode); other "
                                           "options go to `celery worker`, e.g. --concurrency 4")
    worker.set_defaults(func=cmd_worker, passthrough=True)

    beat = sub.add_parser("beat", help="run Celery beat (periodic sweep of stale submissions)")
    beat.set_defaults(func=cmd_beat, passthrough=True)

    grade = sub.add_parser("grade", help="grade one response locally and print the result")
    grade.add_argument("assignment_id")
    grade.add_argument("item_id")
    grade.add_argument("file", help="the response: a .py file, a text file, or a choice letter "
                                    "('-' reads standard input)")
    grade.add_argument("--json", action="store_true", help="print the result as JSON")
    grade.add_argument("--seed", type=int, default=None,
                       help="seed of the hidden inputs (default: derived from the file)")
    grade.set_defaults(func=cmd_grade)

    rubric = sub.add_parser("rubric", help="rubric tools")
    rubric_sub = rubric.add_subparsers(dest="rubric_command", required=True)
    trial = rubric_sub.add_parser("trial", help="agreement of a rubric with human marks")
    trial.add_argument("rubric", help="a rubric file, or the id of a built-in rubric")
    trial.add_argument("marked_file", help="JSON, JSON Lines, CSV or TSV with text and mark")
    trial.add_argument("--max-mark", type=float, default=None,
                       help="scale of the human marks (default: the rubric's max_points)")
    trial.add_argument("--json", action="store_true")
    trial.add_argument("--explain", action="store_true",
                       help="also print why the rubric scored each over- and under-marked response so")
    trial.set_defaults(func=cmd_rubric_trial)
    explain = rubric_sub.add_parser("explain", help="why a rubric scores an answer as it does: matches, "
                                                    "variants, negation scopes, near misses, guards")
    explain.add_argument("rubric", help="a rubric file, or the id of a built-in rubric")
    explain.add_argument("answer", help="the answer text ('-' reads standard input)")
    explain.add_argument("--json", action="store_true")
    explain.set_defaults(func=cmd_rubric_explain)

    problem = sub.add_parser("problem", help="authored code problem tools")
    problem_sub = problem.add_subparsers(dest="problem_command", required=True)
    ptrial = problem_sub.add_parser("trial", help="try a problem document in the sandbox: the "
                                    "reference, each mistake, the automatic mutants")
    ptrial.add_argument("file", help="a problem document (YAML or JSON)")
    ptrial.add_argument("--seeds", type=int, default=None, help="draws to try (default 4)")
    ptrial.add_argument("--no-mutants", action="store_true", help="skip the mutants")
    ptrial.add_argument("--json", action="store_true")
    ptrial.set_defaults(func=cmd_problem_trial)

    init = sub.add_parser("init", help="production bootstrap: migrate, create a course, print an "
                                       "admin key and the course's lms key")
    init.add_argument("--course", required=True, help="course id, e.g. cs401")
    init.add_argument("--name", default=None, help="course name (default: the id)")
    init.add_argument("--instructor", action="store_true",
                      help="also print an instructor key for the course")
    init.set_defaults(func=cmd_init)

    admin = sub.add_parser("create-admin-key", help="create an admin API key (printed once)")
    admin.add_argument("--label", default="created by grader create-admin-key")
    admin.set_defaults(func=cmd_create_admin_key)

    db = sub.add_parser("db", help="schema migrations of DATABASE_URL (Alembic)")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_sub.add_parser("upgrade", help="migrate to the newest schema (or REVISION)")
    db_upgrade.add_argument("revision", nargs="?", default="head")
    db_sub.add_parser("current", help="print the schema revision; exit 1 when not the newest")
    db_revision = db_sub.add_parser("revision", help="write a new revision file (developers)")
    db_revision.add_argument("-m", "--message", required=True)
    db_revision.add_argument("--autogenerate", action="store_true",
                             help="draft the operations from the models' difference with the "
                                  "database (review it)")
    db_revision.add_argument("--rev-id", default=None, help="default: the next number")
    db.set_defaults(func=cmd_db)

    link = sub.add_parser("instructor-link", help="print a one-time sign-in link to a course's "
                                                  "instructor pages (no LMS needed)")
    link.add_argument("--course", required=True, help="course id, e.g. cs401")
    link.add_argument("--assignment", default=None,
                      help="open this assignment's instructor view (default: the course's list)")
    link.add_argument("--minutes", type=int, default=15, help="valid for (1-1440, default 15)")
    link.add_argument("--base-url", default="http://127.0.0.1:8000",
                      help="where the service is reached (default http://127.0.0.1:8000)")
    link.add_argument("--label", default="Instructor", help="the name the pages show")
    link.set_defaults(func=cmd_instructor_link)

    check = sub.add_parser("check-sandbox", help="run the sandbox self-test")
    check.set_defaults(func=cmd_check_sandbox)

    lti = sub.add_parser("lti", help="LTI 1.3 tool administration")
    lti_sub = lti.add_subparsers(dest="lti_command", required=True)
    rotate = lti_sub.add_parser("rotate-key", help="make a new signing key (the old one stays "
                                                   "published for LTI_KEY_OVERLAP_SECONDS)")
    rotate.set_defaults(func=cmd_lti_rotate_key)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "passthrough", False):
        args.celery_args = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args) or 0
    except SettingError as exc:  # a setting that does not parse stops the command, in one line
        print(f"grader: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
