"""Issue 28.4/28.5: how tall and how wide the learner's pages are, in headless Chromium, for
failing SDPA submissions: the result page and the learner page (form and feedback) at 1280 x 800
(a laptop) and 360 px wide (a phone, emulated with ``mobile``), page height and ``scrollWidth``
in CSS pixels. The embedded default in this process (``INLINE_GRADING=threads``), Debian's
chromium and chromedriver (``scripts/install-system-deps.sh``).

    .venv/bin/python benchmarks/page_height.py [--shots DIR]
"""
from __future__ import annotations

import argparse
import html
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGE = "/learn/attention-basics"
CORRECT = (ROOT / "examples" / "sdpa_correct.py").read_text(encoding="utf-8")
#: Failing SDPAs: one mistake (d_k), two (the query axis, no mask), a syntax error, a raise.
SUBMISSIONS = {
    "divides by d_k": (ROOT / "examples" / "sdpa_divides_by_dk.py").read_text(encoding="utf-8"),
    "query axis, no mask": CORRECT.replace("scores.max(axis=-1", "scores.max(axis=-2").replace(
        "weights.sum(axis=-1", "weights.sum(axis=-2").replace(
        "scores = np.where(mask, scores, -np.inf)", "pass"),
    "syntax error": CORRECT.replace("d_k = Q.shape[-1]", "d_k = Q.shape[-1"),
    "raises": CORRECT.replace("return weights @ V", "return weights @ V.T @ np.ones((7, 3, 2))"),
}
SCREENS = (("1280 x 800", 1280, 800, False), ("360 px", 360, 740, True))


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.web.conftest import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def _submit(driver, base: str, code: str) -> str:
    """Submit ``code`` as the browser's practice learner (a plain form post); the result
    page's path once graded."""
    import requests

    http = requests.Session()
    for cookie in driver.get_cookies():
        http.cookies.set(cookie["name"], cookie["value"])
    page = http.get(base + PAGE).text
    fields = {name: html.unescape(value) for name, value in re.findall(
        r'<input type="hidden" name="(csrf_token|form_nonce)" value="([^"]*)"', page)}
    posted = http.post(base + PAGE, data={**fields, "response-sdpa": code},
                       allow_redirects=False)
    location = posted.headers["Location"]
    http.get(base + location, timeout=120)  # waits for the grade
    return location.split("?")[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=Path, help="save a full-page screenshot of each here")
    args = parser.parse_args(argv)
    from grader.app import create_app
    from tests.web.conftest import LiveServer

    folder = Path(tempfile.mkdtemp(prefix="page-height-"))
    app = create_app({"INSTANCE_PATH": str(folder / "instance"),
                      "DATABASE_URL": f"sqlite:///{folder / 'grader.db'}",
                      "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "page-height",
                      "SWEEP_INTERVAL_SECONDS": 3600, "INLINE_GRADING": "threads",
                      "WEB_SUBMIT_RATE_LIMIT": "off", "WEB_SUBMIT_ADDRESS_RATE_LIMIT": "off"})
    server, driver = LiveServer(app), _driver()
    rows = []
    try:
        for name, code in SUBMISSIONS.items():
            driver.delete_all_cookies()
            driver.get(server.url + PAGE)
            result = _submit(driver, server.url, code)
            for screen, width, height, mobile in SCREENS:
                metrics = {"width": width, "height": height, "deviceScaleFactor": 1,
                           "mobile": mobile}
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
                for page, path in (("result page", result), ("learner page", PAGE)):
                    driver.get(server.url + path)
                    wide, tall = driver.execute_script(
                        "return [document.documentElement.scrollWidth, "
                        "document.documentElement.scrollHeight]")
                    rows.append((name, page, screen, tall, wide))
                    if args.shots:
                        args.shots.mkdir(parents=True, exist_ok=True)
                        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                               {**metrics, "height": min(tall, 16000)})
                        slug = re.sub(r"[^a-z0-9]+", "-", f"{name} {page} {width}")
                        driver.save_screenshot(str(args.shots / f"{slug}.png"))
                        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    finally:
        driver.quit()
        server.stop()
    print(f"{'submission':<22}{'page':<14}{'screen':<12}{'height px':>10}{'width px':>10}")
    for name, page, screen, tall, wide in rows:
        print(f"{name:<22}{page:<14}{screen:<12}{tall:>10}{wide:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
