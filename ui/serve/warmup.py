"""Run one page in a dashboard server process the way a browser tab does, so the process
has imported the pages' modules before the proxy sends it the first student.

It opens ``/_stcore/stream`` with Streamlit's own protobuf messages: a
``BackMsg.rerun_script`` naming the page starts a script run, and the run ends with a
``ForwardMsg.script_finished``. The websocket client is ``websockets``, which Streamlit
itself depends on, so the class setup needs no package beyond the dashboard's.
"""

from __future__ import annotations

import asyncio
import time


async def _run_page(url: str, page: str, timeout: float) -> float:
    from websockets.asyncio.client import connect

    from ui.common import protocol_messages

    BackMsg, ForwardMsg = protocol_messages()
    start = time.monotonic()
    conn = await connect(url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
                         ping_interval=None)
    try:
        msg = BackMsg()
        msg.rerun_script.query_string = "lang=en"
        msg.rerun_script.page_name = page
        await conn.send(msg.SerializeToString())
        async for data in conn:
            if isinstance(data, str):
                continue
            forward = ForwardMsg()
            forward.ParseFromString(data)
            if forward.WhichOneof("type") == "script_finished":
                return time.monotonic() - start
        raise ConnectionError(f"{url} closed the session before {page!r} finished")
    finally:
        await conn.close()


def run_page(url: str, page: str = "", timeout: float = 180.0) -> float:
    """Run ``page`` (its URL path; "" is the home page) in the server whose websocket is
    ``url`` (``ws://host:port/_stcore/stream``); seconds until the script run finished.

    Raises:
        TimeoutError: it did not finish within ``timeout`` seconds.
        OSError: the server could not be reached or closed the session (``websockets``'
            errors are turned into ConnectionError).
    """
    from websockets.exceptions import WebSocketException

    try:
        return asyncio.run(asyncio.wait_for(_run_page(url, page, timeout), timeout))
    except WebSocketException as exc:
        raise ConnectionError(f"{url}: {exc}") from exc
