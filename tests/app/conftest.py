"""AppTest pages see TensorFlow loaded, as a server does a few seconds after its first page
(``ui.common.resources.preload_tensorflow``); tests of the moments before that run the app
in a fresh interpreter (tests/app/test_first_page.py). AppTest's per-run costs that do not
depend on the page are paid once (tests/app/apptest_runner.py)."""

from __future__ import annotations

import pytest

from tests.app import apptest_runner

apptest_runner.install()


@pytest.fixture(scope="session", autouse=True)
def tensorflow_loaded() -> None:
    from ui.common.resources import tensorflow_ready

    tensorflow_ready()
