"""The site `crparse docs` builds, in a real browser (headless Chromium, tests/browser.py): a click
on a reference lands on the cited rule, the search box finds a rule by its number, and the
version switcher lands on the same rule in another release, renumbered or not. Screenshots of
each step are kept as artifacts (build/artifacts/browser/, or $CRPARSE_ARTIFACTS)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import available, chromium, screenshot, serve
from small_releases import write_releases

from crparse.site import build_site

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if reason := available():
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("browser-site")
    build_site([write_releases(base / "releases")], base / "out")
    return base / "out"


@pytest.fixture(scope="module")
def browser(site):
    with serve(site) as base, chromium() as driver:
        yield base, driver


def wait(driver, condition, seconds: float = 15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def target_in_view(driver) -> str | None:
    """The id of the element the URL's fragment targets, if the browser shows it."""
    return driver.execute_script(
        "const t = document.querySelector(':target'); if (!t) return null;"
        "const r = t.getBoundingClientRect();"
        "return (r.top >= -1 && r.top < window.innerHeight) ? t.id : null;")


def test_clicking_a_reference_lands_on_the_cited_rule(browser):
    from selenium.webdriver.common.by import By

    base, driver = browser
    # 101.4 of 2020-10-01 reads "... (see rule 100.3)": a link to another page of the release.
    driver.get(base + "2020-10-01/101.html")
    link = driver.find_element(By.CSS_SELECTOR, '[id="101.4"] a[href$="#100.3"]')
    assert link.text == "rule 100.3" or link.text == "100.3"
    link.click()
    wait(driver, lambda d: d.current_url.endswith("/2020-10-01/100.html#100.3"))
    wait(driver, lambda d: target_in_view(d) == "100.3")
    screenshot(driver, "docs_reference_click")


def test_the_search_box_finds_a_rule_by_number(browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, driver = browser
    driver.get(base + "2020-10-01/index.html")
    box = driver.find_element(By.CSS_SELECTOR, 'input[name="q"]')
    box.send_keys("101.3", Keys.ENTER)
    wait(driver, lambda d: "search.html" in d.current_url)
    found = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#search-results a[href*="#101.3"]'))
    screenshot(driver, "docs_search_results")
    found[0].click()
    wait(driver, lambda d: "101.html" in d.current_url and d.current_url.endswith("#101.3"))
    wait(driver, lambda d: target_in_view(d) == "101.3")
    # The search index holds the rules' words too: a phrase finds the section page.
    driver.get(base + "2020-10-01/search.html?q=precedence")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#search-results a[href*="101.html"]'))


def test_switching_releases_lands_on_the_same_rule_renumbered(browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, driver = browser
    # "Some formats and casual variants ..." is 100.3 in 2020-10-01 and was 100.4 in 2020-04-01.
    driver.get(base + "2020-10-01/100.html#100.3")
    wait(driver, lambda d: d.find_elements(By.ID, "cr-versions"))
    screenshot(driver, "docs_before_switch")
    Select(driver.find_element(By.ID, "cr-versions")).select_by_value("2020-04-01")
    wait(driver, lambda d: d.current_url.endswith("/2020-04-01/100.html#100.4"))
    wait(driver, lambda d: target_in_view(d) == "100.4")
    assert "casual variants" in driver.find_element(By.ID, "100.4").text
    screenshot(driver, "docs_after_switch")
    # A rule the older release lacks: the same number there, else its front page.
    driver.get(base + "2020-04-01/100.html#100.2")  # the commander rule, added in 2020-04-01
    wait(driver, lambda d: d.find_elements(By.ID, "cr-versions"))
    Select(driver.find_element(By.ID, "cr-versions")).select_by_value("2020-01-01")
    wait(driver, lambda d: "/2020-01-01/" in d.current_url and "locate.html" not in d.current_url)


def test_history_link_opens_the_rules_history(browser):
    from selenium.webdriver.common.by import By

    base, driver = browser
    driver.get(base + "2020-10-01/100.html")
    link = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '[id="100.3"] a.cr-history'))[0]
    link.click()
    wait(driver, lambda d: "/history/100.html#" in d.current_url)
    wait(driver, lambda d: target_in_view(d) == "2020-01-01:100.3")
    assert "renumbered as 100.4" in driver.find_element(By.ID, "2020-01-01:100.3").text
    screenshot(driver, "docs_history")
