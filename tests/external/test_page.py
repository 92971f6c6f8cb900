"""The web page of `vericite serve` in a real browser: headless Chromium (Debian's chromium and
chromium-driver, installed by `make setup`) against the service on loopback, backed by the fake LLM
and the real small checker. Screenshots (desktop and a narrow window) go to
build/test-artifacts/ (not in git)."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from vericite.engine.nli.batching import DynamicBatcher  # noqa: E402
from vericite.engine.nli.cache import ScoreCache  # noqa: E402
from vericite.engine.pipeline import VeriCite  # noqa: E402
from vericite.engine.prompts import PromptSet  # noqa: E402
from vericite.engine.service.app import create_app  # noqa: E402
from vericite.engine.service.limits import Limits  # noqa: E402
from vericite.engine.service.server import serve_in_thread  # noqa: E402

from tests.conftest import REPO  # noqa: E402
from tests.serve_fake import FakeLLM  # noqa: E402
from tests.unit.test_pipeline_rules import DOCS, Q  # noqa: E402

ARTIFACTS = REPO / "build" / "test-artifacts"
REPLIES = {
    "answer": "Rush released the song Counterparts in 1993 [2].",
    "gate:1": "Yes", "gate:2": "No", "gate:3": "No",
    "extract:1": "Neil Peart was the drummer of the rock band Rush.",
    "refine": "Rush released the song Counterparts in 1993 [2]. Neil Peart was the drummer of the rock band Rush [1].",
}


@pytest.fixture(scope="module")
def site(checker):
    batcher = DynamicBatcher(checker, cache=ScoreCache(checker.cache_id))
    pipe = VeriCite(FakeLLM(REPLIES), batcher, prompts=PromptSet.load("paper-en"))
    with serve_in_thread(create_app(pipe, limits=Limits(timeout_s=60))) as srv:
        yield srv
    batcher.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (binary and driver):
        pytest.skip("Debian's chromium and chromium-driver are not installed (make setup installs them)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={tmp_path_factory.mktemp('chromium')}", "--window-size=1280,900"):
        opts.add_argument(a)
    b = webdriver.Chrome(service=Service(driver), options=opts)
    yield b
    b.quit()


def fill(browser, docs, question):
    boxes = browser.find_elements(By.CSS_SELECTOR, "#docs .doc")
    while len(boxes) < len(docs):
        browser.find_element(By.ID, "add-doc").click()
        boxes = browser.find_elements(By.CSS_SELECTOR, "#docs .doc")
    for box, d in zip(boxes, docs):
        box.find_element(By.CLASS_NAME, "title").send_keys(d.title)
        box.find_element(By.CLASS_NAME, "text").send_keys(d.text)
    browser.find_element(By.ID, "question").send_keys(question)


def test_the_page_streams_the_stages_and_shows_each_citations_quote(site, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.get(site.url + "/")
    fill(browser, DOCS, Q)
    browser.find_element(By.ID, "ask").click()
    wait = WebDriverWait(browser, 60)
    wait.until(EC.visibility_of_element_located((By.ID, "memo")))
    steps = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#progress li")]
    assert steps[0].startswith("Stage 1: initial answer, 1 of 1 statements verified")
    assert [s.split(":")[0] for s in steps[1:4]] == ["Document [1] Neil Peart", "Document [2] Counterparts (song)",
                                                      "Document [3] Keith Moon"]
    assert steps[-1].startswith("Stage 3")
    answer = browser.find_element(By.ID, "answer")
    assert "Neil Peart was the drummer of the rock band Rush" in answer.text
    cites = answer.find_elements(By.CSS_SELECTOR, ".cite")
    assert [c.get_attribute("data-doc") for c in cites] == ["2", "1"]
    # hover the citation of document 1: its quote shows, and the document is highlighted at the quote
    ActionChains(browser).move_to_element(cites[1]).perform()
    tip = cites[1].find_element(By.CLASS_NAME, "tip")
    wait.until(lambda b: tip.is_displayed())
    assert "He was the drummer of the rock band Rush." in tip.text and "P(entailment)" in tip.text
    mark = browser.find_element(By.CSS_SELECTOR, "#source-1 mark").text
    assert mark.endswith("He was the drummer of the rock band Rush.") and f"“{mark}”" in tip.text
    browser.save_screenshot(str(ARTIFACTS / "page-desktop.png"))
    # the memo: footnotes that resolve to the quoted sources (the quote closes when the pointer leaves)
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "progress")).perform()
    wait.until(lambda b: not tip.is_displayed())
    browser.find_element(By.ID, "memo").click()
    href = wait.until(lambda b: b.find_element(By.ID, "memo-link")).get_attribute("href")
    memo = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(r => r.text()).then(done);", href)
    assert memo.startswith(f"# {Q}") and "[^1]: **[1] Neil Peart**" in memo and "[^2]: **[2] Counterparts (song)**" in memo
    browser.set_window_size(420, 900)
    time.sleep(0.2)
    browser.save_screenshot(str(ARTIFACTS / "page-narrow.png"))
    browser.set_window_size(1280, 900)


@pytest.mark.parametrize("docs, question, words", [
    ([], Q, "at least 1 document"),
    (DOCS, "   ", "question: empty"),
])
def test_bad_input_gets_the_services_message(site, browser, docs, question, words):
    browser.get(site.url + "/")
    for box in browser.find_elements(By.CSS_SELECTOR, "#docs .doc"):
        box.find_element(By.CLASS_NAME, "text").clear()
    fill(browser, docs, question)
    browser.find_element(By.ID, "ask").click()
    err = WebDriverWait(browser, 30).until(lambda b: b.find_element(By.ID, "error").text)
    assert words in err
    assert browser.find_element(By.ID, "answer").text == ""  # nothing half-rendered


def test_files_too_big_or_not_utf8_are_refused_and_a_json_file_fills_the_boxes(site, browser, tmp_path):
    browser.get(site.url + "/")
    upload = browser.find_element(By.ID, "file")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 au lait".encode("latin-1"))
    upload.send_keys(str(bad))
    assert "not UTF-8 text" in WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "error").text)
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b'"x",' * 20 + b'"' + b"a" * (50 * 1024 * 1024) + b'"]')
    upload.send_keys(str(big))
    assert "over the service's 2 MB limit" in WebDriverWait(browser, 10).until(
        lambda b: "MB" in b.find_element(By.ID, "error").text and b.find_element(By.ID, "error").text)
    good = tmp_path / "docs.json"
    good.write_text(json.dumps([{"title": d.title, "text": d.text} for d in DOCS]), encoding="utf-8")
    upload.send_keys(str(good))
    WebDriverWait(browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#docs .doc")) == 3)
    titles = [e.get_attribute("value") for e in browser.find_elements(By.CSS_SELECTOR, "#docs .title")]
    assert titles == [d.title for d in DOCS] and browser.find_element(By.ID, "error").text == ""


def test_the_page_is_served_and_nothing_is_stored(site):
    import httpx

    r = httpx.get(site.url + "/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-store" and "http://" not in r.text.replace(site.url, "")
    assert Path(REPO / "engine" / "service" / "page" / "index.html").read_text(encoding="utf-8") == r.text
