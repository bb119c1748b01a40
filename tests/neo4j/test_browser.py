"""Neo4j Browser is served by our runtime and renders in a real headless Chromium."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.db.credentials import read_password_file
from grasp_agent.db.server import LocalServer

pytestmark = [pytest.mark.neo4j, pytest.mark.browser]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium's own background connections would be refused on a machine without internet.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (scripts/ensure-chromium installs it)")
def test_browser_page_renders_and_connects(
    running_server: LocalServer, test_settings: Settings, artifacts_dir: Path
) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="the [test] extra installs playwright")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(test_settings.browser_url, wait_until="networkidle", timeout=60_000)
            assert "Neo4j Browser" in page.title()
            page.get_by_text("Connect to Neo4j").first.wait_for(timeout=30_000)
            page.screenshot(path=str(artifacts_dir / "neo4j-browser-login.png"))

            # Log in the way a user would, then run our plugin's function from the editor.
            page.locator("input[data-testid='username']").fill("neo4j")
            page.locator("input[data-testid='password']").fill(read_password_file(test_settings.password_file))
            page.get_by_test_id("connect").click()
            page.get_by_text("You are connected as user").first.wait_for(timeout=30_000)
            editor = page.locator("#monaco-main-editor, .monaco-editor").first
            editor.click()
            page.keyboard.type("RETURN grasp.version() AS pluginVersion")
            page.keyboard.press("Enter")
            page.get_by_text("pluginVersion").last.wait_for(timeout=30_000)
            page.get_by_text('"0.1.0"').last.wait_for(timeout=30_000)
            page.screenshot(path=str(artifacts_dir / "neo4j-browser.png"))
        finally:
            browser.close()
