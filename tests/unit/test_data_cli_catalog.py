"""The ``data`` CLI commands, and every dataset error key translated with its params."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tfcore.cli import main
from tfcore.data.loader import DatasetRequest, load_dataset
from tfcore.errors import DatasetError
from ui.common.i18n import catalog


def test_data_list_prints_registry_json(capsys) -> None:
    assert main(["data", "list"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["default"] == "digits28"
    assert [d["name"] for d in out["builtin"]][:3] == ["digits28", "digits8", "house_prices"]
    assert "tfds:" in out["prefixes"] and "upload:images:" in out["prefixes"]
    assert set(out["uploads"]) == {"csv", "npz", "images"}


def test_data_show_prints_info_with_options(capsys) -> None:
    assert main(["data", "show", "blobs", "-o", "classes=4", "-o", "n_samples=200",
                 "--val", "0", "--test", "0.25"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["info"]["num_classes"] == 4 and out["info"]["input_shape"] == [2]
    assert (out["info"]["n_train"], out["info"]["n_val"], out["info"]["n_test"]) == (150, 0, 50)
    assert sum(out["class_counts"]["test"].values()) == 50
    assert out["request"]["options"] == {"classes": 4, "n_samples": 200}


def test_data_show_error_exits_2_with_message(capsys) -> None:
    assert main(["data", "show", "circles", "-o", "noise=7"]) == 2
    assert "noise=7" in capsys.readouterr().err


def test_cli_entry_point_in_a_fresh_process() -> None:
    done = subprocess.run([sys.executable, "-m", "tfcore", "data", "show", "house_prices"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)["info"]
    assert info["task"] == "regression" and info["n_train"] == 5


def _raised_keys() -> set[str]:
    keys = set()
    for path in (ROOT / "tfcore").rglob("*.py"):
        keys |= set(re.findall(r'key="(data\.err\.[a-z_]+)"', path.read_text()))
    return keys


def test_every_raised_error_key_is_in_both_catalogs() -> None:
    keys = _raised_keys()
    assert len(keys) > 30
    for lang in ("en", "zh"):
        missing = keys - set(catalog(lang))
        assert not missing, f"{lang}: {missing}"


@pytest.mark.parametrize("request_", [
    DatasetRequest("nope"),
    DatasetRequest("circles", {"noise": 3}),
    DatasetRequest("circles", {"nosie": 1}),
    DatasetRequest("digits8", val_fraction=0.6, test_fraction=0.6),
    DatasetRequest("tfds:Bad Name"),
    DatasetRequest("upload:csv:../x.csv"),
])
def test_error_params_fill_the_translated_templates(request_) -> None:
    with pytest.raises(DatasetError) as info:
        load_dataset(request_)
    err = info.value
    for lang in ("en", "zh"):
        text = catalog(lang)[err.key].format(**err.params)
        assert "{" not in text
