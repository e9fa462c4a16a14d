"""The command line: presets, presets show, spec check (exit 2 located), spec code."""

from __future__ import annotations

import json
from pathlib import Path

from tfcore.cli import main
from tfcore.model.presets import preset_names
from tfcore.model.spec import from_json


def test_presets_lists_names_one_a_line(capsys) -> None:
    assert main(["presets"]) == 0
    assert capsys.readouterr().out.split() == preset_names()


def test_presets_show_prints_spec_json(capsys) -> None:
    assert main(["presets", "show", "cnn"]) == 0
    spec = from_json(capsys.readouterr().out)
    assert spec.name == "cnn" and len(spec.layers) == 8
    assert main(["presets", "show", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_spec_check_prints_summary_or_located_problems(capsys, tmp_path: Path) -> None:
    main(["presets", "show", "mlp"])
    good = tmp_path / "mlp.json"
    good.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["spec", "check", str(good)]) == 0
    out = capsys.readouterr().out
    assert "Total params: 79,510" in out and "dense (Dense)" in out
    data = json.loads(good.read_text())
    data["layers"][1]["config"]["units"] = 0
    data["layers"][2]["type"] = "Dens"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert main(["spec", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "dense.units" in err and "Received: 0" in err and "logits.type" in err
    assert main(["spec", "check", str(good), "--param-limit", "1000"]) == 2
    assert "79,510" in capsys.readouterr().err
    assert main(["spec", "check", str(tmp_path / "missing.json")]) == 2


def test_spec_code_emits_runnable_code(capsys, tmp_path: Path) -> None:
    main(["presets", "show", "tied"])
    path = tmp_path / "tied.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["spec", "code", str(path), "--style", "sequential"]) == 0
    code = capsys.readouterr().out
    namespace: dict = {"__name__": "x"}
    exec(code, namespace)
    model = namespace["build_model"]()
    assert model.count_params() == 25 and len(model.weights) == 4
