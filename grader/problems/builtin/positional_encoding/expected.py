"""What each sample submission of ``positional_encoding`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import Where, some, whole

PE_VALUES = ("values", "odd d_model", "long sequences")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_halves_concatenated": ("halves_concatenated", some(*PE_VALUES, "properties")),
    "bug_sin_cos_swapped": ("sin_cos_swapped", some(*PE_VALUES, "properties")),
    "bug_raw_column_exponent": ("raw_column_exponent", some(*PE_VALUES, "properties")),
    "bug_cos_next_pair_exponent": ("cos_next_pair_exponent", some(*PE_VALUES, "properties")),
    "bug_base_1000": ("base_1000", whole(*PE_VALUES, "properties")),
    "bug_integer_division": ("integer_division", whole(*PE_VALUES, "properties")),
    "bug_exponent_sign_inverted": ("exponent_sign_inverted",
                                   whole(*PE_VALUES, "properties")),
    "bug_positions_from_one": ("positions_from_one", some(*PE_VALUES, "properties")),
    "bug_all_sine": ("all_sine", some(*PE_VALUES, "properties")),
    "bug_transposed": ("transposed", some(*PE_VALUES, "properties", "shapes")),
    # sin even / cos odd columns with 10000 ** (j / d_model): the cosines are off (QA F13)
    "bug_column_index_exponent": ("column_index_exponent", some(*PE_VALUES, "properties")),
    # pe[None]: (1, seq_len, d_model) fails every test, shapes included (QA F14)
    "bug_leading_batch_axis": ("leading_batch_axis", whole("shapes", *PE_VALUES,
                                                           "properties")),
    "bug_odd_d_model_crash": ("odd_d_model_crash", Where(lambda t: "odd" in t)),
    "bug_middle_axis": ("middle_axis", whole("shapes", "values", "odd d_model",
                                             "long sequences", "properties")),
}
