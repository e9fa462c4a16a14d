"""tf.data from image files in class folders (T6): list files -> label from the folder ->
read, decode, resize, /255 -> shuffle -> batch -> prefetch, on real temp folder trees; the
generated code runs and gives the same batch; bad folders and files are named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tfcore.cli import main
from tfcore.labs import pipeline_folders as pf
from tfcore.labs.pipeline import PipelineLabError
from tfcore.workspace import Workspace


def _tree(ws: Workspace, name: str, per_class: dict[str, int]) -> Path:
    """uploads/<name>/<class>/<class>_<i>.png (or .jpg every third), solid gray levels."""
    root = ws.ensure().uploads / name
    for level, (label, count) in enumerate(per_class.items()):
        (root / label).mkdir(parents=True, exist_ok=True)
        for i in range(count):
            value = 40 * (level + 1)
            pixels = np.full((20 + 3 * i, 24, 3), value, np.uint8)
            suffix = ".jpg" if i % 3 == 2 else ".png"
            Image.fromarray(pixels).save(root / label / f"{label}_{i}{suffix}")
    return root


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "workspace").ensure()


def test_upload_folders_listed_and_batch_in_listed_order(ws: Workspace) -> None:
    _tree(ws, "animals", {"birds": 4, "cats": 5, "dogs": 3})
    (ws.uploads / "pack.zip").write_bytes(b"PK")              # a zip upload is not a folder
    assert pf.folder_sources(ws) == [pf.SAMPLE, "animals"]
    spec = pf.FolderSpec(source="animals", image_size=16, channels=3, shuffle_buffer=1,
                         batch_size=6)
    batch = pf.first_folder_batch(spec, ws)
    assert batch.scan.classes == ("birds", "cats", "dogs") and batch.scan.counts == (4, 5, 3)
    assert batch.scan.extensions == (".jpg", ".png")
    assert batch.shape == (6, 16, 16, 3) and batch.dtype == "float32"
    # list_files(shuffle=False): every match of both patterns in sorted path order
    files = sorted(str(p) for p in (ws.uploads / "animals").rglob("*.*"))
    expected = [batch.scan.classes.index(Path(p).parent.name) for p in files[:6]]
    assert expected == [0, 0, 0, 0, 1, 1]
    assert batch.labels.tolist() == expected
    assert batch.label_names == [batch.scan.classes[i] for i in expected]
    # each image is its class's solid gray level / 255 (resize keeps a flat image flat)
    for image, label in zip(batch.images, batch.labels):
        assert image.min() == pytest.approx(image.max(), abs=2 / 255)
        assert float(image.mean()) == pytest.approx(40 * (label + 1) / 255.0, abs=3 / 255)


def test_generated_code_runs_and_gives_the_same_batch(ws: Workspace) -> None:
    root = _tree(ws, "animals", {"cats": 4, "dogs": 4})
    spec = pf.FolderSpec(source="animals", image_size=12, channels=1, shuffle_buffer=1,
                         batch_size=5, prefetch=True)
    batch = pf.first_folder_batch(spec, ws)
    code = pf.folder_pipeline_code(spec, batch.scan, str(root))
    for step in ("tf.data.Dataset.list_files(", "tf.strings.split(path, os.sep)",
                 "tf.io.read_file(path)", "tf.io.decode_image(image, channels=1",
                 "tf.image.resize(image, (12, 12))", "image = image / 255.0",
                 "ds = ds.batch(5)", "ds = ds.prefetch(tf.data.AUTOTUNE)"):
        assert step in code, step
    assert "ds.shuffle(" not in code                             # buffer 1: no shuffle step
    assert batch.code.startswith("import os") and "'uploads/animals'" in batch.code
    scope: dict = {}
    exec(compile(code, "<pipeline>", "exec"), scope)             # the shown code, run as is
    assert scope["labels"].numpy().tolist() == batch.labels.tolist()
    np.testing.assert_allclose(scope["images"].numpy(), batch.images, atol=1e-6)
    shuffled = pf.folder_pipeline_code(pf.FolderSpec(source="animals", shuffle_buffer=64,
                                                     seed=3, prefetch=False), batch.scan, "d")
    assert "ds = ds.shuffle(64, seed=3)" in shuffled and "prefetch" not in shuffled


def test_builtin_sample_written_on_demand(ws: Workspace) -> None:
    assert not (ws.root / "samples").exists()
    spec = pf.FolderSpec(shuffle_buffer=1, batch_size=16)
    batch = pf.first_folder_batch(spec, ws)
    root = ws.root / "samples" / "digits_folders"
    assert sorted(p.name for p in root.iterdir()) == [str(d) for d in range(10)]
    assert len(list(root.rglob("*.png"))) == 10 * pf.SAMPLE_PER_CLASS == 80
    assert batch.scan.classes == tuple(str(d) for d in range(10))
    assert batch.shape == (16, 28, 28, 1)
    assert batch.labels.tolist() == [0] * 8 + [1] * 8
    assert 0.0 <= batch.images.min() and batch.images.max() <= 1.0
    mixed = pf.first_folder_batch(pf.FolderSpec(shuffle_buffer=1024, batch_size=16), ws)
    assert len(set(mixed.labels.tolist())) >= 5                # a full buffer mixes classes


def _key(exc: pytest.ExceptionInfo) -> str:
    return exc.value.key.rsplit(".", 1)[-1]


def test_bad_folders_and_files_are_named(ws: Workspace, monkeypatch) -> None:
    loose = ws.uploads / "loose"
    loose.mkdir()
    Image.new("L", (8, 8)).save(loose / "a.png")
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(source="loose"), ws)
    assert _key(exc) == "folders_none" and "uploads/loose" in str(exc.value)

    root = _tree(ws, "broken", {"cats": 2, "dogs": 2})
    (root / "dogs" / "bad.jpg").write_bytes(b"this is not a JPEG")
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(source="broken"), ws)
    assert _key(exc) == "folders_decode"
    assert exc.value.params["file"] == "uploads/broken/dogs/bad.jpg"

    root = _tree(ws, "huge", {"cats": 1, "dogs": 1})
    Image.new("L", (4097, 4097)).save(root / "cats" / "big.png")  # 16.8 M pixels > 4096^2
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(source="huge"), ws)
    assert _key(exc) == "folders_pixels"
    assert exc.value.params["file"] == "uploads/huge/cats/big.png"
    assert (exc.value.params["width"], exc.value.params["height"]) == (4097, 4097)
    monkeypatch.setattr(pf, "MAX_FILE_BYTES", 1000)            # big.png is ~16 kB on disk
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(source="huge"), ws)
    assert _key(exc) == "folders_file_big" and exc.value.params["file"].endswith("big.png")

    _tree(ws, "onesided", {"cats": 2}).joinpath("dogs").mkdir()
    monkeypatch.setattr(pf, "MAX_FILE_BYTES", 20 * 1024**2)
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(source="onesided"), ws)
    assert _key(exc) == "folders_empty" and exc.value.params["folder"] == "uploads/onesided/dogs"

    for source in ("../runs", "missing", "", "a/b"):
        with pytest.raises(PipelineLabError) as exc:
            pf.first_folder_batch(pf.FolderSpec(source=source), ws)
        assert _key(exc) == "folders_missing", source
    with pytest.raises(PipelineLabError) as exc:
        pf.first_folder_batch(pf.FolderSpec(channels=2), ws)
    assert exc.value.params["name"] == "channels"


def test_cli_pipeline_folders(capsys: pytest.CaptureFixture) -> None:
    assert main(["pipeline", "--folders", "sample", "--buffer", "1", "--batch-size", "16"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["shape"] == [16, 28, 28, 1] and out["dtype"] == "float32"
    assert out["labels"] == [0] * 8 + [1] * 8 and out["classes"][:2] == ["0", "1"]
    assert "tf.data.Dataset.list_files(" in out["code"]
    assert main(["pipeline", "--folders", "no_such_folder"]) == 2
    assert "no_such_folder" in capsys.readouterr().err
