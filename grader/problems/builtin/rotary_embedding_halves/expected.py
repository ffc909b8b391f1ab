"""What each sample submission of ``rotary_embedding`` with pairs as two halves must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

#: Every category with a values test but "values" itself (position 0 alone passes any mistake
#: that leaves angle 0 the identity) and the property (any rotation by position times a
#: frequency keeps the dot products of shifted positions).
ANGLES = ("positions", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_interleaved_layout": ("interleaved_layout", some("values", *ANGLES)),
    "bug_pair_index_exponent": ("pair_index_exponent", some("values", *ANGLES)),
    "bug_exponent_sign_inverted": ("exponent_sign_inverted", some("values", *ANGLES)),
    # (a cos + b sin, -a sin + b cos) is the rotation by minus the angle: still relative
    "bug_rotates_clockwise": ("rotates_clockwise", some("values", *ANGLES)),
    # not a rotation per pair: the dot products change when every position shifts
    "bug_repeated_frequencies": ("repeated_frequencies", some("values", "properties", *ANGLES)),
    # wrong at position 0 too: no values test passes, so the property and inputs tests are
    # not credited
    "bug_sin_cos_swapped": ("sin_cos_swapped", whole("values", "properties", "inputs",
                                                     *ANGLES)),
    "bug_positions_from_one": ("positions_from_one", whole("values", "properties", "inputs",
                                                           *ANGLES)),
    "bug_ignores_positions": ("ignores_positions", whole("positions")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
    # L, d = x.shape: every batched input raises
    "bug_fails_with_batch_axes": ("fails_with_batch_axes",
                                  some("shapes", "values", "positions", "dtypes", "inputs")),
}
