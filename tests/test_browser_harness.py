"""The real-browser harness itself works: a served static site, a link click across pages, the
fragment scrolled into view, and a screenshot saved as an artifact."""

from __future__ import annotations

import pytest
from browser import available, chromium, screenshot, serve

pytestmark = pytest.mark.browser

INDEX = '<!doctype html><title>index</title><p><a href="b.html#x">go</a></p>'
# Space after the target too, or the page could not scroll far enough to bring it to the top.
B = (
    '<!doctype html><title>b</title>'
    '<div style="height: 3000px">top of b</div>'
    '<h1 id="x">target</h1>'
    '<div style="height: 3000px"></div>'
)


def test_link_to_fragment_scrolls_target_into_view(tmp_path):
    if reason := available():
        pytest.skip(reason)
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    (tmp_path / "b.html").write_text(B, encoding="utf-8")

    with serve(tmp_path) as base, chromium() as driver:
        driver.get(base + "index.html")
        driver.find_element(By.LINK_TEXT, "go").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith("b.html#x"))

        def top(d) -> float:
            return d.execute_script("return document.getElementById('x').getBoundingClientRect().top")

        # The scroll to the fragment may land a moment after the load event: wait for it, then say
        # where it ended if it never came.
        try:
            WebDriverWait(driver, 10).until(lambda d: abs(top(d)) < 2)
        except TimeoutException:
            pass
        assert driver.current_url.endswith("b.html#x")
        assert abs(top(driver)) < 2
        assert screenshot(driver, "link_to_fragment").stat().st_size > 0
