"""Names of LTI 1.3 claims, message types, roles and AGS scopes (1EdTech LTI Core 1.3, Deep
Linking 2.0, Assignment and Grade Services 2.0), and the role mapping the tool applies."""
from __future__ import annotations

from typing import Iterable

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
LAUNCH_PRESENTATION = LTI + "launch_presentation"

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
DEEP_LINKING_SETTINGS = DL + "deep_linking_settings"
DL_CONTENT_ITEMS = DL + "content_items"
DL_DATA = DL + "data"
DL_MSG = DL + "msg"

AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
LTI_VERSION = "1.3.0"

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
#: Context roles that open the instructor view (LTI Core 1.3, A.2.3), with their sub-roles
#: (``membership/Instructor#TeachingAssistant``) and the deprecated short names.
STAFF_ROLES = ("Instructor", "Administrator", "ContentDeveloper")
#: Institution or system administrators (A.2.1, A.2.2) count as staff too.
ADMIN_ROLES = ("http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
               "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
               "http://purl.imsglobal.org/vocab/lis/v2/system/person#SysAdmin")


def context_role(uri: str) -> str | None:
    """``membership#Learner`` -> ``Learner``; ``membership/Instructor#TeachingAssistant`` ->
    ``Instructor``; the short name ``Learner`` -> ``Learner``; anything else -> ``None``."""
    if uri.startswith(MEMBERSHIP + "#"):
        return uri[len(MEMBERSHIP) + 1:]
    if uri.startswith(MEMBERSHIP + "/"):
        return uri[len(MEMBERSHIP) + 1:].split("#", 1)[0]
    if "/" not in uri and "#" not in uri:
        return uri
    return None


def tool_role(roles: Iterable[str]) -> str | None:
    """The tool's role for a launch's ``roles`` claim: ``"instructor"`` when any role is an
    Instructor, Administrator or ContentDeveloper of the context (or an institution/system
    administrator), else ``"learner"`` when any is Learner, else ``None`` (e.g. Observer, Mentor:
    no page of ours fits them)."""
    roles = [r for r in roles if isinstance(r, str)]
    context = {context_role(r) for r in roles}
    if context & set(STAFF_ROLES) or set(roles) & set(ADMIN_ROLES):
        return "instructor"
    if "Learner" in context:
        return "learner"
    return None
