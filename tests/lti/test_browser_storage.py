"""Canvas's postMessage storage in headless Chromium (issue 27, item 8): the LMS (served as
``localhost``, so the tool on ``127.0.0.1`` is another site and its cookie does not come back on
the launch's cross-site form post) names its storage frame in the login; the tool stores its
secret there, reads it back at the launch, and the learner page opens in the LMS's iframe. And
dynamic registration (item 7) in the LMS's admin frame, closed by the tool's
``org.imsglobal.lti.close``."""
from __future__ import annotations

import pytest
import requests

from tests.lti.flows import learner
from tests.lti.platform import SimulatedPlatform
from tests.lti.test_browser_flow import chrome, wait_for  # noqa: F401 (fixture)
from tests.web.conftest import _chromium  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow


@pytest.fixture
def cross_site_platform(tool, admin_headers):
    platform = SimulatedPlatform(tool[1])
    platform.url = platform.url.replace("127.0.0.1", "localhost")
    resp = requests.post(tool[1] + "/api/v1/lti/platforms", json=platform.registration(),
                         headers=admin_headers, timeout=10)
    assert resp.status_code == 201, resp.text
    yield platform
    platform.close()


def test_the_storage_frame_binds_a_launch_whose_cookie_is_blocked(tool, cross_site_platform,
                                                                   chrome):  # noqa: F811
    from selenium.webdriver.common.by import By

    platform = cross_site_platform
    chrome.get(platform.course_page(learner("learner-95"),
                                    lti_storage_target="post_message_forwarding"))
    chrome.switch_to.frame(chrome.find_element(By.ID, "tool"))
    wait_for(chrome, lambda d: d.find_elements(By.TAG_NAME, "h1")
             and d.execute_script("return document.readyState") == "complete"
             and d.execute_script("return location.pathname").startswith("/learn/"))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Self-attention basics"
    chrome.switch_to.default_content()
    chrome.switch_to.frame(chrome.find_element(By.NAME, "post_message_forwarding"))
    assert chrome.execute_script("return window.log") == ["lti.put_data", "lti.get_data"]
    [key] = chrome.execute_script("return Object.keys(window.stored)")
    assert key.startswith(tool[1] + " lti_state_")
    chrome.switch_to.default_content()


def test_dynamic_registration_in_the_lms_frame_closes_when_done(tool, platform, admin_headers,
                                                                chrome):  # noqa: F811
    """The LMS's admin page opens the registration link in an iframe; the tool registers itself
    and posts ``org.imsglobal.lti.close`` to the LMS, which closes the frame."""
    from urllib.parse import quote

    link = requests.post(tool[1] + "/api/v1/lti/registration-links", headers=admin_headers,
                         json={"course_id": "local"}, timeout=10).json()["url"]
    chrome.get(f"{platform.url}/admin/register?url={quote(link, safe='')}")
    wait_for(chrome, lambda d: d.execute_script("return window.closeMessage")
             == "org.imsglobal.lti.close")
    [row] = requests.get(tool[1] + "/api/v1/lti/platforms", headers=admin_headers,
                         timeout=10).json()
    assert (row["issuer"], row["client_id"], row["deployment_ids"]) == (
        platform.issuer, platform.client_id, [platform.deployment_id])
    assert len(platform.registrations) == 1
