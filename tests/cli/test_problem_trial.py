"""``grader problem trial FILE``: the upload's trial without a server."""
import json

import yaml

from tests.cli.test_cli import run
from tests.conftest import EXAMPLES


def test_problem_trial_reports_mistakes_and_mutants():
    out = run("problem", "trial", str(EXAMPLES / "problems" / "padding_mask.yaml"), "--json",
              "--seeds", "2")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["refused"] is None and report["reference"]["full"] is True
    assert [(m["id"], m["named"]) for m in report["mistakes"]] == [
        ("off-by-one", True), ("inverted", True), ("longest-sequence", True)]
    assert [(m["id"], m["caught"]) for m in report["mutants"]] == [
        ("flip-comparison@5", True), ("comparison-boundary@5", True)]


def test_problem_trial_refuses_a_failing_reference(tmp_path):
    doc = yaml.safe_load((EXAMPLES / "problems" / "padding_mask.yaml").read_text())
    doc["reference"] = ("import numpy as np\n"
                        "def padding_mask(lengths, max_len):\n"
                        "    if max_len > 50:\n"
                        "        raise ValueError('too long')\n"
                        "    return np.arange(max_len)[None, :] < lengths[:, None]\n")
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = run("problem", "trial", str(path), "--no-mutants", "--seeds", "1")
    assert out.returncode == 1
    assert "REFUSED: problem padding-mask: the reference failed on test 'long: max_len in the " \
        "hundreds #1': ValueError: too long" in out.stdout


def test_problem_trial_names_the_invalid_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("id: x\ntitle: t\nfunction: f\ncontract: c\nreference: 'def f(): pass'\n"
                    "arguments: {a: {shape: [N]}}\ncategories: {v: {points: 1, cases: 1}}\n")
    out = run("problem", "trial", str(path))
    assert out.returncode == 2
    assert "arguments.a.shape[0]: unknown dimension 'N' (dims: none)" in out.stderr
