"""Server healthy -> first page drawn, first visit vs a second visit, side by side.

Each trial starts a fresh dashboard (``streamlit run app.py`` on 127.0.0.1 and a free
port, a fresh workspace, warm workers on as by default), polls ``/_stcore/health`` until it
answers 200 and then, in headless chromium (``/usr/bin/chromium`` or ``CHROMIUM``) at
1280x800, opens one page and times from the health answer to:

* ``title``: the page's own content is drawn: its title (``h1``) shows in the main block
  with text, and no skeleton (``stSkeleton``) is left there;
* ``done``: the page's script finished its first run (the app is idle: connected, script
  not running, no status widget, nothing stale).

Then a second visit to the same page in a new browser session on the same, now running,
server is timed the same way (from its ``goto``): that is what a page costs once the server
has started. The trials alternate the pages (``--pages``, default the home page and the
Train page) so load drifts hit each; the server, its warm worker and every child are
stopped after each trial. Prints every trial, the medians and first/second ratios, and
the load average before and after.

    .venv/bin/python bench/bench_first_page.py [--trials 3] [--pages / /train] [--lang en]
    .venv/bin/python tests/load/cpu_hog.py --cores 2 -- .venv/bin/python bench/bench_first_page.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live_browser import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}
TITLE_JS = """() => {
  const main = document.querySelector("[data-testid='stMainBlockContainer']");
  if (!main || main.querySelector("[data-testid='stSkeleton']")) return false;
  const title = main.querySelector('h1');
  return !!title && title.innerText.trim().length > 0;
}"""
DONE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector("[data-testid='stStatusWidget']")
    && !document.querySelector("[data-stale='true']");
}"""


def visit(browser, url: str, since: float, timeout_ms: float) -> dict:
    """Open ``url`` in a new browser session; seconds from ``since`` (monotonic) to the
    title drawn and to the first script run done."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(url)
        page.wait_for_function(TITLE_JS, polling=50)
        title = time.monotonic() - since
        page.wait_for_function(DONE_JS, polling=50)
        page.wait_for_function(TITLE_JS, polling=50)      # still drawn once idle
        done = time.monotonic() - since
    finally:
        context.close()
    return {"title": title, "done": done}


def trial(browser, path: str, args: argparse.Namespace) -> dict:
    """One fresh server: its first visit (from healthy) and a second visit of ``path``."""
    with tempfile.TemporaryDirectory(prefix="tflab-bench-first-") as tmp:
        began = time.monotonic()
        server = start_server("warm", Path(tmp))        # returns once /_stcore/health is 200
        healthy = time.monotonic()
        try:
            sep = "&" if "?" in path else "?"
            url = f"{server.url}{path}{sep}lang={args.lang}"
            first = visit(browser, url, healthy, args.timeout * 1000)
            second_at = time.monotonic()
            second = visit(browser, url, second_at, args.timeout * 1000)
        finally:
            stop_server(server)
    return {"path": path, "healthy": healthy - began, "first": first, "second": second}


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3, help="trials per page")
    parser.add_argument("--pages", nargs="+", default=["/", "/train"])
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="at most this long (s) for a page state")
    args = parser.parse_args()
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    from playwright.sync_api import sync_playwright

    print(f"load average before: {_load()} ({os.cpu_count()} cores)", flush=True)
    results: dict[str, list[dict]] = {p: [] for p in args.pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            for number in range(1, args.trials + 1):
                for path in args.pages:
                    r = trial(browser, path, args)
                    results[path].append(r)
                    print(f"trial {number} {path:8s} start -> healthy {r['healthy']:5.2f} s | "
                          f"healthy -> title {r['first']['title']:5.2f} s, -> done "
                          f"{r['first']['done']:5.2f} s | second visit: title "
                          f"{r['second']['title']:5.2f} s, done {r['second']['done']:5.2f} s"
                          f"  (load {_load()})", flush=True)
        finally:
            browser.close()
    for path, rows in results.items():
        def med(visit_: str, part: str) -> float:
            return statistics.median(r[visit_][part] for r in rows)

        title, done = med("first", "title"), med("first", "done")
        title2, done2 = med("second", "title"), med("second", "done")
        print(f"median {path} ({args.lang}): healthy -> first page title {title:.2f} s, "
              f"done {done:.2f} s; second visit title {title2:.2f} s, done {done2:.2f} s; "
              f"first/second title {title / title2:.2f}, done {done / done2:.2f}")
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
