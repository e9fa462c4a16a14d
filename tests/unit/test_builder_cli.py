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
    assert "dense.units: 0 is not allowed; use an integer from 1 to 1,000,000." in err
    assert "logits.type: unknown layer type 'Dens'; similar types: Dense" in err
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


def _save_small(path: Path) -> None:
    import keras

    keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d"),
                      keras.layers.ReLU(6.0, name="relu6")], name="small").save(path)


def test_spec_import_turns_a_keras_file_into_a_spec(capsys, tmp_path: Path) -> None:
    _save_small(tmp_path / "small.keras")
    out = tmp_path / "small.json"
    assert main(["spec", "import", str(tmp_path / "small.keras"), "--out", str(out)]) == 0
    assert "small.keras: 2 layers (sequential)" in capsys.readouterr().out
    spec = from_json(out.read_text(encoding="utf-8"))
    assert [(e.name, e.type, dict(e.config)) for e in spec.layers] == \
        [("d", "Dense", {"units": 3}), ("relu6", "ReLU", {"max_value": 6.0})]
    assert main(["spec", "check", str(out)]) == 0
    assert "Total params: 15" in capsys.readouterr().out
    assert main(["spec", "import", str(tmp_path / "small.keras")]) == 0      # to stdout
    assert from_json(capsys.readouterr().out) == spec


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if "error: " in line]
    assert len(lines) == 1, err
    return lines[0]


def test_spec_commands_given_a_keras_or_binary_file_exit_2_with_a_message(capsys,
                                                                          tmp_path: Path) -> None:
    import random

    _save_small(tmp_path / "model.keras")
    (tmp_path / "noise.bin").write_bytes(random.Random(3).randbytes(2048))
    (tmp_path / "latin1.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    for argv in (["spec", "check"], ["spec", "code"], ["train", "--quiet", "--spec"]):
        assert main([*argv, str(tmp_path / "model.keras")]) == 2, argv
        line = _one_error_line(capsys.readouterr().err)
        assert "model.keras" in line and "spec import" in line, line
        for name in ("noise.bin", "latin1.json"):
            assert main([*argv, str(tmp_path / name)]) == 2, (argv, name)
            line = _one_error_line(capsys.readouterr().err)
            assert name in line and "not UTF-8" in line, line


def test_spec_import_refuses_what_is_not_a_keras_model(capsys, tmp_path: Path) -> None:
    import keras

    (tmp_path / "junk.keras").write_bytes(b"PK\x03\x04 truncated")
    (tmp_path / "spec.json").write_text('{"layers": []}', encoding="utf-8")
    keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda x: x + 1)]).save(
        tmp_path / "code.keras")
    cases = {"junk.keras": "damaged", "spec.json": "not a readable .keras",
             "missing.keras": "No such", "code.keras": "Lambda"}
    for name, said in cases.items():
        assert main(["spec", "import", str(tmp_path / name)]) == 2, name
        line = _one_error_line(capsys.readouterr().err)
        assert said in line, line
    _save_small(tmp_path / "good.keras")
    assert main(["spec", "import", str(tmp_path / "good.keras"), "--out", str(tmp_path)]) == 2
    assert "is a folder" in _one_error_line(capsys.readouterr().err)


def test_spec_types_lists_every_family(capsys) -> None:
    from tfcore.model.catalog import layer_types

    assert main(["spec", "types"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(layer_types()) >= 140
    assert any(line.split()[:2] == ["attention", "MultiHeadAttention"] for line in lines)
    assert main(["spec", "types", "--family", "nope"]) == 2
    assert "nope" in _one_error_line(capsys.readouterr().err)
