"""Names and roles (issue 27, item 9; NRPS 2.0): the instructor view lists the course's members
from the platform, over two pages of its member list, including the learners who have not
submitted; a platform that refuses the list is said so on the page."""
from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import urljoin

import requests

from tests.lti.flows import instructor, launch
from tests.lti.platform import LEARNER

NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
INSTRUCTOR_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def _rows(html: str) -> list[list[str]]:
    table = html.split('id="members"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_instructor_view_lists_members_who_have_not_submitted(tool, platform, registered,
                                                                  browser):
    app, base = tool
    platform.members = [
        {"user_id": "learner-72", "name": "Ben Bo", "roles": [LEARNER], "status": "Active"},
        {"user_id": "teacher-1", "name": "Tess", "roles": [INSTRUCTOR_ROLE], "status": "Active"},
        {"user_id": "learner-71", "name": "Amy Adams", "roles": [LEARNER], "status": "Active"},
        {"user_id": "learner-73", "given_name": "Cy", "family_name": "Dee", "roles": [LEARNER],
         "status": "Inactive"},
    ]
    from grader.bootstrap import KEY_FILE

    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    resp = requests.post(base + "/api/v1/assignments/attention-basics/submissions",
                         json={"learner_id": "learner-71",
                               "responses": {"no-positions": {"choice": "B"}}},
                         headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert resp.status_code == 202
    spec = instructor(claims={NRPS: {"context_memberships_url": platform.url + "/memberships",
                                     "service_versions": ["2.0"]}})
    resp = launch(browser, platform, spec)
    assert resp.status_code == 303
    page = browser.get(urljoin(base, resp.headers["Location"]), timeout=30)
    assert page.status_code == 200, page.text
    assert "2 learners of the course have not submitted." in page.text
    assert _rows(page.text) == [
        ["Amy Adams", "learner-71", "Learner", "Active", "yes"],
        ["Ben Bo", "learner-72", "Learner", "Active", "not submitted"],
        ["Cy Dee", "learner-73", "Learner", "Inactive", "not submitted"],
        ["Tess", "teacher-1", "Instructor", "Active", "not submitted"],
    ]
    assert platform.member_pages == 2
    assert platform.token_requests[-1]["scope"] == (
        "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly")


def test_a_refused_member_list_is_said_on_the_page(tool, platform, registered, browser):
    spec = instructor(claims={NRPS: {"context_memberships_url": platform.url + "/no-such-list",
                                     "service_versions": ["2.0"]}})
    resp = launch(browser, platform, spec)
    page = browser.get(urljoin(tool[1], resp.headers["Location"]), timeout=30)
    assert page.status_code == 200
    assert "The LMS's member list could not be read: the member list was refused: HTTP 404" \
        in page.text


def test_without_the_service_the_page_has_no_member_list(tool, platform, registered, browser):
    resp = launch(browser, platform, instructor())
    page = browser.get(urljoin(tool[1], resp.headers["Location"]), timeout=30)
    assert page.status_code == 200 and "Course members (from the LMS)" not in page.text
