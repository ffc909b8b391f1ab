"""The one pattern for ids that instructors choose: assignments, items, rubrics, and a rubric's
criteria, misconceptions and traps.

1 to 100 characters, letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit (so
an id is safe in a URL path, a file name and a result tag). Rubric ids and their parts allowed 80
until the three copies of this pattern became one; the longer limit refuses nothing valid before.
"""
from __future__ import annotations

import re

#: The regular expression (for ``re`` and marshmallow's ``validate.Regexp``).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"
#: :data:`ID_PATTERN`, compiled.
ID = re.compile(ID_PATTERN)
#: The longest id, in characters.
MAX_ID_CHARS = 100
