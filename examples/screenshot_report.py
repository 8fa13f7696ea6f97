"""Open a rankframe HTML report in headless Chromium, check it, and save a screenshot.

    python examples/screenshot_report.py report.html report.png

Uses playwright's Python API with Debian's Chromium (``/usr/bin/chromium``; ``apt-get install chromium``,
or set ``CHROMIUM``). Fails (exit 1) when the page logs a console error, requests anything but the file itself
and its inline ``data:`` images, or shows an image that did not decode. tests/pictures/test_report.py runs the same
check (:func:`check`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def check(html_path: Path, png_path: Path, width: int = 1200, height: int = 900, browser=None) -> dict:
    """Load the report, screenshot it; return what was seen: errors, requests, tables, images (w, h, complete).

    ``browser``: a playwright Chromium already launched (a test module's one browser; the page is opened and closed
    in it); by default one is launched for this check and closed after it.
    """
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                return check(html_path, png_path, width, height, browser=launched)
            finally:
                launched.close()
    seen: dict = {"errors": [], "requests": []}
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen["errors"].append(str(e)))
        page.on("request", lambda r: seen["requests"].append(r.url))
        page.goto(Path(html_path).resolve().as_uri(), wait_until="load")
        seen["title"] = page.title()
        seen["tables"] = page.evaluate("document.querySelectorAll('table.rankframe').length")
        seen["captions"] = page.evaluate(
            "[...document.querySelectorAll('table.rankframe caption')].map(c => c.innerText)"
        )
        seen["images"] = page.evaluate(
            "[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.alt])"
        )
        # the page itself never scrolls sideways: wide tables scroll inside their own box
        seen["scroll_width"], seen["inner_width"] = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]"
        )
        # where each header of the comparison over all queries ends (px from the left; 0 when hidden)
        seen["headers"] = page.evaluate(
            "Object.fromEntries([...document.querySelector('#overall table.rankframe')?.querySelectorAll('th') "
            "?? []].map(h => [h.innerText, h.getBoundingClientRect().right]))"
        )
        # the layout: the sections in page order (the summary first), the grid's columns and figures' places
        seen["sections"] = page.evaluate("[...document.querySelectorAll('body > section')].map(s => s.id)")
        seen["grid_columns"] = page.evaluate(
            "(g => g && getComputedStyle(g).display === 'grid' ? getComputedStyle(g).gridTemplateColumns"
            ".split(' ').length : 0)"
            "(document.querySelector('div.grid'))"
        )
        seen["figures"] = page.evaluate(
            "[...document.querySelectorAll('div.grid figure')].map(f => {const r = f.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]})"
        )
        page.screenshot(path=str(png_path), full_page=False)
    finally:
        page.close()
    return seen


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    seen = check(Path(argv[0]), Path(argv[1]))
    external = [u for u in seen["requests"] if not u.startswith(("file:", "data:"))]
    broken = [alt for ok, w, h, alt in seen["images"] if not (ok and w > 0 and h > 0)]
    print(f"{seen['title']}: {seen['tables']} tables, {len(seen['images'])} images; screenshot {argv[1]}")
    for problem, items in (
        ("console errors", seen["errors"]),
        ("external requests", external),
        ("broken images", broken),
    ):
        if items:
            print(f"{problem}: {items}")
    return 1 if seen["errors"] or external or broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
