#!/usr/bin/env python3
"""Re-fetch the browser assets of the learner page from the npm registry and vendor them.

Every asset the pages use is served by the grader itself (no CDN: the service runs offline), and
the vendored files are committed, so neither ``pip install`` nor the server ever needs npm. Run
this script (``make vendor``) only to change a version: edit ``package.json``, then

    python scripts/vendor_assets.py

It runs ``npm ci --ignore-scripts`` (exact versions from ``package-lock.json``; no install
scripts, so swagger-ui-dist's telemetry dependency never runs), bundles the code editor
(CodeMirror 6, ``scripts/web_assets/editor-entry.js``) with esbuild into one file, copies the
Swagger UI and axe-core distribution files, copies every bundled package's licence, and writes
``grader/web/static/vendor/VENDORED.json``: each package's name, version, licence and the files
it went into, with their SHA-256 (``tests/web/test_assets.py`` checks the files against it).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "node_modules"
VENDOR = ROOT / "grader" / "web" / "static" / "vendor"
ENTRY = ROOT / "scripts" / "web_assets" / "editor-entry.js"
EDITOR_OUT = VENDOR / "codemirror" / "editor.min.js"

#: Files copied as they are: package -> [(file in the package, destination under VENDOR)].
COPIED = {
    "swagger-ui-dist": [("swagger-ui.css", "swagger-ui/swagger-ui.css"),
                        ("swagger-ui-bundle.js", "swagger-ui/swagger-ui-bundle.js"),
                        ("swagger-ui-standalone-preset.js",
                         "swagger-ui/swagger-ui-standalone-preset.js")],
    # the accessibility engine the browser tests (tests/web/) inject; no page loads it
    "axe-core": [("axe.min.js", "axe-core/axe.min.js")],
}
LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "license")


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def package_info(name: str) -> dict:
    return json.loads((MODULES / name / "package.json").read_text(encoding="utf-8"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bundled_packages(metafile: Path) -> list[str]:
    """The npm packages esbuild put into the editor bundle (from its metafile)."""
    meta = json.loads(metafile.read_text(encoding="utf-8"))
    names = set()
    for source in meta["inputs"]:
        if "node_modules/" not in source:
            continue
        parts = source.split("node_modules/", 1)[1].split("/")
        names.add("/".join(parts[:2]) if parts[0].startswith("@") else parts[0])
    return sorted(names)


def copy_licence(name: str) -> str:
    for candidate in LICENCE_NAMES:
        path = MODULES / name / candidate
        if path.is_file():
            target = VENDOR / "licenses" / (name.replace("/", "__") + ".txt")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            return str(target.relative_to(VENDOR))
    raise SystemExit(f"no licence file in {name}")


def main() -> int:
    run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    EDITOR_OUT.parent.mkdir(parents=True)
    metafile = ROOT / "node_modules" / ".editor-meta.json"
    run(str(MODULES / ".bin" / "esbuild"), str(ENTRY.relative_to(ROOT)), "--bundle", "--minify",
        "--format=iife", "--global-name=GraderEditor", "--target=es2020",
        "--legal-comments=eof", f"--metafile={metafile}",
        f"--outfile={EDITOR_OUT.relative_to(ROOT)}")
    packages: dict[str, dict] = {}
    for name in bundled_packages(metafile):
        packages[name] = {"files": [str(EDITOR_OUT.relative_to(VENDOR))]}
    for name, files in COPIED.items():
        for source, destination in files:
            target = VENDOR / destination
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(MODULES / name / source, target)
        packages[name] = {"files": [destination for _, destination in files]}
    manifest = {"generated_by": "scripts/vendor_assets.py", "packages": {}, "files": {}}
    for name in sorted(packages):
        info = package_info(name)
        manifest["packages"][name] = {
            "version": info["version"], "license": info.get("license", "see licence file"),
            "licence_file": copy_licence(name), "files": packages[name]["files"]}
    for path in sorted(VENDOR.rglob("*")):
        if path.is_file() and path.name != "VENDORED.json":
            manifest["files"][str(path.relative_to(VENDOR))] = sha256(path)
    (VENDOR / "VENDORED.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"vendored {len(manifest['packages'])} packages into {VENDOR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
