"""Every asset the pages use is ours: vendored from npm with versions, licences and hashes
recorded (scripts/vendor_assets.py), matching package-lock.json, and no page names another host."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "grader" / "web" / "static" / "vendor"
TEMPLATES = ROOT / "grader" / "web" / "templates" / "web"


def manifest() -> dict:
    return json.loads((VENDOR / "VENDORED.json").read_text(encoding="utf-8"))


def test_every_vendored_file_matches_its_recorded_hash():
    files = manifest()["files"]
    on_disk = {str(p.relative_to(VENDOR)) for p in VENDOR.rglob("*")
               if p.is_file() and p.name != "VENDORED.json"}
    assert set(files) == on_disk
    for name, digest in files.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_versions_are_those_of_the_lockfile_and_licences_are_kept():
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    packages = manifest()["packages"]
    for wanted in ("@codemirror/view", "@codemirror/lang-python", "swagger-ui-dist", "axe-core"):
        assert wanted in packages
    for name, info in packages.items():
        assert lock[f"node_modules/{name}"]["version"] == info["version"], name
        assert (VENDOR / info["licence_file"]).read_text(encoding="utf-8").strip(), name
        assert info["license"] in ("MIT", "Apache-2.0", "MPL-2.0"), (name, info["license"])
        for file in info["files"]:
            assert (VENDOR / file).is_file()


def test_package_json_pins_exact_versions():
    declared = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    for group in ("dependencies", "devDependencies"):
        for name, version in declared[group].items():
            assert re.fullmatch(r"\d+\.\d+\.\d+", version), (name, version)


def test_templates_and_scripts_name_no_other_host():
    sources = list(TEMPLATES.glob("*.html")) + [ROOT / "grader/web/static/js/learn.js",
                                                ROOT / "grader/web/static/css/site.css"]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        hosts = re.findall(r"""(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?//""", text)
        assert not hosts, path
