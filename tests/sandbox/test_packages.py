"""The packages an item may allow (grader/sandbox/packages.py) and the folders of installed
packages the sandbox covers (launcher.package_folders): what is found, what comes with it, and
what is refused."""
from __future__ import annotations

import os

import pytest

from grader.sandbox import packages
from grader.sandbox.launcher import package_folders


def test_a_package_comes_with_the_packages_it_requires_and_their_modules():
    found = packages.resolve(("requests",))
    names = [package.name for package in found]
    assert names[0] == "requests"
    assert {"urllib3", "idna", "certifi", "charset-normalizer"} <= set(names)
    assert {"requests", "urllib3", "idna", "certifi", "charset_normalizer"} <= set(
        packages.allowed_modules(found))
    assert all(entry.exists() for package in found for entry in package.entries)


def test_numpy_is_never_bound_twice_and_wheel_libraries_come_with_their_package():
    (scipy,) = packages.resolve(("scipy",))  # scipy requires numpy, which every job has
    assert scipy.modules == ("scipy",)
    assert {entry.name for entry in scipy.entries} >= {"scipy"}
    assert not any(entry.name.startswith("numpy") for entry in scipy.entries)


@pytest.mark.parametrize("requirement, name", [
    ("urllib3<3,>=1.21.1", "urllib3"),
    ("PySocks!=1.5.7,>=1.5.6; extra == 'socks'", None),
    ("tomli>=1.1; python_version < '3.0'", None),
    ("typing-extensions>=4; python_version >= '3.0'", "typing-extensions"),
])
def test_a_requirement_applies_without_extras_when_its_marker_holds(requirement, name):
    assert packages._required_name(requirement) == name


def test_the_folders_of_installed_packages_are_found_under_every_root(tmp_path):
    for folder in ("lib/python3.11/site-packages", "lib/python3.11/ensurepip/_bundled",
                   "python3/dist-packages", "lib/python3.11/lib-dynload",
                   "python3.11/ensurepip/_bundled"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "lib" / "python3.12").mkdir()
    os.symlink(tmp_path / "lib/python3.11/site-packages", tmp_path / "lib/python3.12/site-packages")
    stdlib = tmp_path / "stdlib"
    (stdlib / "site-packages").mkdir(parents=True)
    found = package_folders([str(tmp_path), str(stdlib)])
    assert found == [str(tmp_path / "python3/dist-packages"),
                     str(tmp_path / "lib/python3.11/site-packages"),
                     str(tmp_path / "python3.11/ensurepip/_bundled"),
                     str(tmp_path / "lib/python3.11/ensurepip/_bundled"),
                     str(stdlib / "site-packages")]
