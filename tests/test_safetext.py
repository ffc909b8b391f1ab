"""Issue 20.5: :mod:`grader.safetext` makes text valid Unicode and shows its control characters.
Expected values by hand: U+DCFF (a byte 0xFF decoded with surrogateescape) -> U+FFFD; NUL -> the
four characters backslash, x, 0, 0; tab, newline and carriage return are kept."""
from __future__ import annotations

import json

from grader.safetext import REPLACEMENT, UNSAFE, clean_text, clean_tree


def test_surrogates_become_the_replacement_character_and_controls_their_escapes():
    assert clean_text("bad \udcff byte") == "bad \ufffd byte"
    assert clean_text("\ud83d\ude00") == "\ufffd\ufffd"  # two halves written apart: both unpaired
    assert clean_text("a\x00b\x1b[31mc\x7fd\x85e") == "a\\x00b\\x1b[31mc\\x7fd\\x85e"
    assert clean_text("tab\tnewline\nreturn\r") == "tab\tnewline\nreturn\r"
    assert clean_text("é 😀 √ \ufffd") == "é 😀 √ \ufffd"  # valid text is left as it is
    assert REPLACEMENT == "\ufffd"


def test_text_with_nothing_to_replace_is_returned_itself():
    text = "ValueError: shapes (2,3) and (4,5) not aligned\n"
    assert clean_text(text) is text


def test_every_string_of_a_document_is_cleaned_keys_included():
    document = {"tests": [{"name": "t\x00", "output": "o\udcff", "score": 1.5, "tags": ["a"]}],
                "k\ud800": None, "n": [1, 2.5, True], "t": ("x\x1b",)}
    assert clean_tree(document) == {
        "tests": [{"name": "t\\x00", "output": "o\ufffd", "score": 1.5, "tags": ["a"]}],
        "k\ufffd": None, "n": [1, 2.5, True], "t": ("x\\x1b",)}
    cleaned = json.dumps(clean_tree(document), ensure_ascii=False)
    cleaned.encode("utf-8")  # valid UTF-8
    assert UNSAFE.search(cleaned.replace("\\\\", "")) is None


def test_a_clean_document_is_returned_itself_whatever_its_escapes():
    # a literal backslash before u0000, b or f looks like an escape in the JSON text: the
    # document is walked and found clean
    for document in ({"a": ["x", {"b": 1.0}]}, {"a": "\\u0000 \\b \\f"}, {"a": "é √"}):
        assert clean_tree(document) is document


def test_every_code_point_is_judged_alike_by_the_fast_path_and_the_walk():
    for point in [*range(0x00, 0x200), *range(0xD7F0, 0xE010), *range(0xFFF0, 0x10000)]:
        char = chr(point)
        unsafe = UNSAFE.search(char) is not None
        unsafe_by_hand = (point < 0x20 and char not in "\t\n\r") or 0x7F <= point <= 0x9F \
            or 0xD800 <= point <= 0xDFFF
        assert unsafe == unsafe_by_hand, hex(point)
        for document in ([char], {"k": f"a{char}b"}, {char: 1}):
            cleaned = clean_tree(document)
            assert (cleaned is document) == (not unsafe), hex(point)
            json.dumps(cleaned, ensure_ascii=False).encode("utf-8")


def test_encodable_replaces_surrogates_only():
    from grader.safetext import encodable

    assert encodable("a\udcffb\x0c\x00") == "a\ufffdb\x0c\x00"
    text = "form\x0cfeed\ttab"
    assert encodable(text) is text
