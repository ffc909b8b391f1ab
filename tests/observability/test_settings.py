"""Issue 16.5/16.7: every setting observability reads is declared, with its type, in
``config.SETTINGS``, and yes/no values are parsed in one place."""
from __future__ import annotations

import pytest

from grader.config import SETTINGS, auto_flag, load_config, setting, truthy

OBSERVABILITY = {"LOG_JSON": True, "ACCESS_LOG": True, "LOG_FORMAT": "json", "LOG_LEVEL": "INFO",
                 "READY_CHECK_SANDBOX": True, "READY_SANDBOX_TTL": 60.0, "READY_TIMEOUT": 3.0,
                 "STORE_RETRY_AFTER_SECONDS": 5}


def test_observability_settings_are_declared_with_their_defaults(tmp_path):
    config = load_config({"INSTANCE_PATH": str(tmp_path)})
    assert {name: config[name] for name in OBSERVABILITY} == OBSERVABILITY
    assert {name: type(SETTINGS[name][1]) for name in OBSERVABILITY} == {
        name: type(value) for name, value in OBSERVABILITY.items()}


@pytest.mark.parametrize("raw, expected", [("1", True), (" Yes ", True), ("ON", True),
                                           ("true", True), ("0", False), ("off", False),
                                           ("No", False), ("false", False)])
def test_yes_no_words_from_the_environment(tmp_path, raw, expected):
    config = load_config({"INSTANCE_PATH": str(tmp_path), "READY_CHECK_SANDBOX": raw,
                          "ACCESS_LOG": raw})
    assert config["READY_CHECK_SANDBOX"] is expected and config["ACCESS_LOG"] is expected


def test_a_yes_no_setting_that_is_neither_stops_the_start(tmp_path):
    with pytest.raises(ValueError, match="environment variable LOG_JSON"):
        load_config({"INSTANCE_PATH": str(tmp_path), "LOG_JSON": "maybe"})


@pytest.mark.parametrize("raw", ["", "  "])
def test_an_empty_yes_no_variable_means_its_default(tmp_path, raw):
    # ``VAR=`` or a compose file's ``${VAR:-}``: read as unset (it turned a check on before too)
    config = load_config({"INSTANCE_PATH": str(tmp_path), "READY_CHECK_SANDBOX": raw, "LOG_JSON": raw})
    assert (config["READY_CHECK_SANDBOX"], config["LOG_JSON"]) == (True, True)


def test_setting_parses_string_overrides_and_fills_defaults():
    assert setting({"READY_CHECK_SANDBOX": "0"}, "READY_CHECK_SANDBOX") is False
    assert setting({"READY_TIMEOUT": "1.5"}, "READY_TIMEOUT") == 1.5
    assert setting({"STORE_RETRY_AFTER_SECONDS": 7}, "STORE_RETRY_AFTER_SECONDS") == 7
    assert setting({}, "STORE_RETRY_AFTER_SECONDS") == 5
    with pytest.raises(KeyError):
        setting({}, "NOT_A_SETTING")


def test_truthy_and_auto():
    assert [truthy(v) for v in (True, 1, "1", " on ", False, 0, "0", "off", None, "")] == [
        True] * 4 + [False] * 6
    inline, celery = {}, {"CELERY_BROKER_URL": "redis://x"}
    assert auto_flag(inline, "WEB_PRACTICE") and not auto_flag(celery, "WEB_PRACTICE")
    assert auto_flag({**celery, "WEB_PRACTICE": "yes"}, "WEB_PRACTICE")
    assert not auto_flag({**inline, "WEB_PRACTICE": "0"}, "WEB_PRACTICE")


@pytest.mark.parametrize("name", ["WEBHOOK_ALLOW_PRIVATE", "WEB_PRACTICE"])
@pytest.mark.parametrize("raw", ["maybe", "ture", "2"])
def test_an_auto_setting_that_is_neither_auto_nor_yes_no_stops_the_start(tmp_path, name, raw):
    with pytest.raises(ValueError, match=f"environment variable {name}: '{raw}' is not auto"):
        load_config({"INSTANCE_PATH": str(tmp_path), name: raw})
    for fine in ("auto", "AUTO", "yes", "0", ""):
        assert load_config({"INSTANCE_PATH": str(tmp_path), name: fine})[name] == fine


def test_a_command_with_a_setting_that_does_not_parse_says_so_in_one_line(monkeypatch, capsys,
                                                                        tmp_path):
    from grader.cli import main

    monkeypatch.setenv("INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("CPU_LEVERS", "fast")
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grader: environment variable CPU_LEVERS: unknown lever(s) fast")
    assert "Traceback" not in err and err.count("\n") == 1
