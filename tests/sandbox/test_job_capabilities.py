"""A job holds no capability in any set, though its child drops only the capabilities the
server's bounding set still had (read once at the server's start) instead of all 64."""
from __future__ import annotations

from grader.sandbox import Call, Limits


def test_every_capability_set_of_a_job_is_empty(sandbox):
    source = (
        "def caps():\n"
        "    fields = {}\n"
        "    for line in open('/proc/self/status'):\n"
        "        key, _, value = line.partition(':')\n"
        "        if key.startswith('Cap'):\n"
        "            fields[key] = int(value.strip(), 16)\n"
        "    return tuple(fields[k] for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'))\n"
    )
    result = sandbox.run(source, [Call(test="caps", function="caps")], Limits())
    assert result.status == "ok", result.message
    assert result.calls[0].value == (0, 0, 0, 0, 0)
