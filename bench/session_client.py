"""One websocket session that behaves like a browser tab, for the classroom bench
(``bench/bench_sessions.py``).

It talks to a Streamlit server the way the browser does, over ``/_stcore/stream`` with
Streamlit's own protobuf messages: a ``BackMsg.rerun_script`` (``ClientState`` with
``page_name`` / ``page_script_hash``) starts a page run, ``ForwardMsg.script_finished`` ends
it, ``ForwardMsg.auto_rerun`` asks the client to rerun a fragment every ``interval`` seconds
(the live panel), which the session then does, as a browser would. It records each page
run's time, when the charts drew new points, and when a lesson's step bar first showed
each step.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from dataclasses import dataclass, field

CHART_TYPES = {"vega_lite_chart", "arrow_vega_lite_chart"}
BAR_STEP = re.compile(r"Step (\d+) of \d+")               # the step bar's "Step k of n"


def page_cookie(stream_url: str) -> str:
    """The ``Cookie`` header a browser would send after loading the page's HTML from the
    server behind ``stream_url`` (``ws://host:port/_stcore/stream``); "" when none is set."""
    import urllib.request

    http = "http" + stream_url[2:].split("/_stcore/", 1)[0] + "/"
    with urllib.request.urlopen(http, timeout=30) as reply:
        reply.read()
        cookies = [v.split(";", 1)[0] for k, v in reply.headers.items()
                   if k.lower() == "set-cookie"]
    return "; ".join(cookies)


@dataclass
class Session:
    """One websocket session that behaves like a browser tab."""

    url: str
    name: str
    page_hash: str = ""
    runs: list[tuple[str, float]] = field(default_factory=list)   # (page, seconds)
    errors: int = 0
    received: int = 0                                              # bytes
    chart_events: list[float] = field(default_factory=list)       # new points arrived
    _ws: object = None
    _reader: asyncio.Task | None = None
    _timers: dict = field(default_factory=dict)
    _done: asyncio.Future | None = None
    _charts: list = field(default_factory=list)
    _last_charts: str = ""
    _page_started: bool = False          # the requested page's full run has begun
    query: str = ""                      # the address's query, as the browser keeps it
    steps_seen: dict = field(default_factory=dict)                # lesson step -> first seen

    async def open(self) -> None:
        """Load the page's HTML first, as a browser does, and keep the cookies it sets:
        behind the class setup's proxy that cookie pins the session to one server
        process, so the websocket must carry it."""
        from websockets.asyncio.client import connect

        cookie = await asyncio.to_thread(page_cookie, self.url)
        self._ws = await connect(self.url, subprotocols=["streamlit"], max_size=None,
                                 open_timeout=30, ping_interval=None,
                                 additional_headers={"Cookie": cookie} if cookie else None)
        self._reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()

    async def _send(self, page: str | None, fragment_id: str = "") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        if page is not None:
            state.page_name = page
        else:
            state.page_script_hash = self.page_hash
        if fragment_id:
            state.fragment_id = fragment_id
            state.is_auto_rerun = True
        await self._ws.send(msg.SerializeToString())

    async def page_run(self, page: str, timeout: float) -> float:
        """Run ``page`` as a click would; seconds until ``script_finished``."""
        self._done = asyncio.get_running_loop().create_future()
        self._page_started = False
        start = time.monotonic()
        await self._send(page)
        try:
            await asyncio.wait_for(self._done, timeout)
        except asyncio.TimeoutError:
            self.errors += 1
        seconds = time.monotonic() - start
        self.runs.append((page, seconds))
        return seconds

    async def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        while True:           # the browser's setInterval; ends when cancelled
            await asyncio.sleep(interval)
            await self._send(None, fragment_id)

    async def _read(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        async for data in self._ws:
            self.received += len(data)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = msg.new_session.page_script_hash
                self._charts = []
                if not msg.metadata.run.fragment_ids:        # a full run: timers restart
                    self._page_started = True
                    for timer in self._timers.values():
                        timer.cancel()
                    self._timers.clear()
            elif kind == "navigation":
                # The page this run shows (new_session names the entry script under
                # st.navigation): the hash a fragment's rerun and an st.rerun() keep, as
                # the browser keeps it; with the entry script's hash a rerun of the app
                # that a fragment asks for would draw the default page.
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "page_info_changed":      # st.switch_page, query params set
                self.query = msg.page_info_changed.query_string
            elif kind == "auto_rerun":
                fid = msg.auto_rerun.fragment_id
                if fid in self._timers:
                    self._timers[fid].cancel()
                self._timers[fid] = asyncio.create_task(
                    self._auto_rerun(fid, msg.auto_rerun.interval))
            elif kind == "stop_auto_rerun":
                for fid in msg.stop_auto_rerun.fragment_ids:
                    timer = self._timers.pop(fid, None)
                    if timer:
                        timer.cancel()
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "html":
                    found = BAR_STEP.search(element.html.body)
                    if found and "lesson-name" in element.html.body:
                        self.steps_seen.setdefault(int(found.group(1)), time.monotonic())
                if etype in CHART_TYPES:
                    self._charts.append(getattr(element, etype).SerializeToString())
                elif etype == "exception":
                    self.errors += 1
            elif kind == "script_finished":
                self._finished(msg.script_finished)

    def _finished(self, status: int) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if self._charts:
            digest = hashlib.sha1(b"".join(self._charts)).hexdigest()
            if digest != self._last_charts:
                self._last_charts = digest
                self.chart_events.append(time.monotonic())
        if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
            self.errors += 1
        # A fragment rerun the tab asked for just before the click is queued behind the
        # page's full run, which then reports "finished early for rerun"; the fragment
        # run that follows ends the exchange, as the browser sees it.
        done = status in (ForwardMsg.FINISHED_SUCCESSFULLY,
                          ForwardMsg.FINISHED_WITH_COMPILE_ERROR) or (
            status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY and self._page_started)
        if done and self._done is not None and not self._done.done():
            self._done.set_result(status)
