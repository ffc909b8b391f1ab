"""Assignment and Grade Services 2.0: where scores go (grade targets recorded at launch) and
publishing them (a score per grading and per regrade) to the platform."""
from __future__ import annotations

from grader.lti import claims as C


def record_target(store, launch, course_id: str, assignment_id: str, learner_id: str):
    """Record (or refresh) the grade target of a verified resource-link launch. Only a launch
    whose AGS endpoint claim grants the score scope and names a line item (or a line-item
    container we may add to) has one; returns the row or ``None``."""
    endpoint = launch.claim(C.AGS_ENDPOINT)
    if not isinstance(endpoint, dict):
        return None
    scopes = [s for s in endpoint.get("scope") or [] if isinstance(s, str)]
    lineitem = endpoint.get("lineitem") if isinstance(endpoint.get("lineitem"), str) else None
    lineitems = endpoint.get("lineitems") if isinstance(endpoint.get("lineitems"), str) else None
    if C.SCOPE_SCORE not in scopes or not (lineitem or (lineitems and C.SCOPE_LINEITEM in scopes)):
        return None
    return store.lti.record_grade_target(
        platform_id=launch.platform.id, deployment_id=launch.deployment_id,
        resource_link_id=launch.claims[C.RESOURCE_LINK]["id"], user_sub=launch.sub,
        course_id=course_id, assignment_id=assignment_id, learner_id=learner_id,
        lineitem_url=lineitem, lineitems_url=lineitems, scopes=scopes)
