"""Regular-expression denial of service (ReDoS): every pattern of the trusted side is linear.

The trusted processes (API, worker, web pages) apply regular expressions to text a learner
controls: exception messages, printed output, text answers, ids, form fields, LTI claims. One
that backtracks (``\\((?:\\s*-?\\d+\\s*,?)*\\s*\\)`` took 2^(n-1) steps on n digits that never
close: issue 20) lets one submission hold a worker, and the GIL, for hours. The test suite
(``tests/test_trusted_patterns.py``) and ``benchmarks/pattern_bench.py`` use this package to
find them all and check each one:

* :mod:`grader.redos.discovery` finds the patterns: compiled ones held by the modules, and
  those written inline in calls such as ``re.fullmatch(r"...", text)``;
* :mod:`grader.redos.attack` builds the strings that make backtracking show;
* :mod:`grader.redos.growth` measures how a pattern's cost grows from a short string to a long
  one, as a ratio (a busy machine slows both sides alike), with a CPU-time alarm that turns a
  hang into an error.

Patterns built from an instructor's rubric are not the service's own: the rubric's static check
(:mod:`grader.rubric.regex_safety`) refuses the dangerous shapes when the rubric is uploaded, and
each search runs under the answer's time budget.
"""
