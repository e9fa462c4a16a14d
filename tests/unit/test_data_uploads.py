"""Uploads: CSV (numeric + categorical), NPZ without pickles, zipped class folders."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tfcore.data import images as images_mod
from tfcore.data.loader import DatasetRequest, clear_cache, load_dataset
from tfcore.data.uploads import list_uploads, safe_filename, save_upload
from tfcore.errors import DatasetError
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog


@pytest.fixture()
def uploads() -> Path:
    clear_cache()
    return default_workspace().ensure().uploads


def _png(color: tuple[int, int, int], size=(10, 8)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _error(request: DatasetRequest) -> DatasetError:
    """The error raised, after checking its key fills both catalogs' templates."""
    with pytest.raises(DatasetError) as info:
        load_dataset(request)
    err = info.value
    for lang in ("en", "zh"):
        assert "{" not in catalog(lang)[err.key].format(**err.params)
    return err


CSV = """size,city,rooms,price,label
50,beijing,2,300.5,small
80,shanghai,3,520.0,big
,beijing,1,210.0,small
120,shenzhen,4,880.0,big
60,shanghai,2,350.0,small
95,beijing,3,610.0,big
70,shenzhen,2,400.0,small
110,beijing,4,800.0,big
55,shanghai,1,280.0,small
130,shenzhen,5,950.0,big
"""


def test_csv_numeric_and_categorical_columns_classification(uploads: Path) -> None:
    (uploads / "homes.csv").write_text(CSV)
    bundle = load_dataset(DatasetRequest("upload:csv:homes.csv", {"target": "label"},
                                         val_fraction=0.0, test_fraction=0.2))
    info = bundle.info
    assert info.task == "classification" and info.class_names == ("big", "small")
    assert info.feature_names == ("size", "city=beijing", "city=shanghai",
                                  "city=shenzhen", "rooms", "price")
    assert info.input_shape == (6,) and (info.n_train, info.n_test) == (8, 2)
    x = np.concatenate([bundle.x_train, bundle.x_test])
    np.testing.assert_allclose(x[:, 1:4].sum(axis=1), 1.0)     # one-hot rows
    np.testing.assert_allclose(x[:, [0, 4, 5]].mean(axis=0), 0.0, atol=1e-6)  # z-scored
    assert np.isfinite(x).all()                                 # the missing size filled
    assert sorted(bundle.class_counts("test").values()) == [1, 1]  # stratified


def test_csv_regression_target_and_feature_choice(uploads: Path) -> None:
    (uploads / "homes.csv").write_text(CSV)
    bundle = load_dataset(DatasetRequest(
        "upload:csv:homes.csv", {"target": "price", "features": ["size", "rooms"],
                                 "normalize": False}, val_fraction=0.0, test_fraction=0.0))
    assert bundle.info.task == "regression" and bundle.info.kind == "points"
    assert bundle.y_train.shape == (10, 1) and bundle.y_train.dtype == np.float32
    assert sorted(bundle.y_train.ravel().tolist())[0] == 210.0
    assert bundle.x_train[:, 1].max() == 5.0


def test_csv_one_class_label_is_refused(uploads: Path) -> None:
    (uploads / "one.csv").write_text("a,b,label\n1,2,cat\n3,4,cat\n5,6,cat\n")
    err = _error(DatasetRequest("upload:csv:one.csv"))
    assert err.key == "data.err.one_class" and "only one class (cat)" in err.message


def test_csv_missing_target_and_broken_file(uploads: Path) -> None:
    (uploads / "homes.csv").write_text(CSV)
    err = _error(DatasetRequest("upload:csv:homes.csv", {"target": "nope"}))
    assert err.key == "data.err.csv_target" and "size, city" in err.message
    (uploads / "broken.csv").write_bytes(b"a,b\n1,2\n\xff\xfe\x00,3,4,5\n")
    assert _error(DatasetRequest("upload:csv:broken.csv")).key == "data.err.csv_read"
    (uploads / "empty.csv").write_text("")
    assert _error(DatasetRequest("upload:csv:empty.csv")).key == "data.err.csv_read"


def test_upload_paths_stay_inside_uploads(uploads: Path) -> None:
    assert _error(DatasetRequest("upload:csv:../runs/x.csv")).key == "data.err.upload_path"
    assert _error(DatasetRequest("upload:csv:/etc/passwd")).key == "data.err.upload_path"
    assert _error(DatasetRequest("upload:csv:absent.csv")).key == "data.err.upload_missing"


def test_save_upload_sanitizes_names_and_lists(uploads: Path) -> None:
    assert safe_filename("../../evil name.csv") == "evil_name.csv"
    stored = save_upload(b"a,b\n1,0\n2,1\n", "..\\..\\my data.csv")
    assert stored == "my_data.csv" and (uploads / stored).is_file()
    assert "my_data.csv" in list_uploads("csv")


def test_npz_x_y_images_and_presplit_arrays(uploads: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (40, 5, 5), dtype=np.uint8)
    np.savez(uploads / "imgs.npz", x=x, y=np.arange(40) % 4)
    bundle = load_dataset(DatasetRequest("upload:npz:imgs.npz", val_fraction=0.1,
                                         test_fraction=0.25))
    assert bundle.info.kind == "image" and bundle.info.input_shape == (5, 5, 1)
    assert bundle.info.num_classes == 4 and (bundle.info.n_train, bundle.info.n_test) == (26, 10)
    assert bundle.x_train.max() <= 1.0
    np.savez(uploads / "split.npz", x_train=rng.normal(size=(30, 3)),
             y_train=rng.normal(size=30), x_test=rng.normal(size=(7, 3)),
             y_test=rng.normal(size=7))
    bundle = load_dataset(DatasetRequest("upload:npz:split.npz", val_fraction=0.1))
    assert bundle.info.task == "regression" and bundle.info.n_test == 7
    assert (bundle.info.n_train, bundle.info.n_val) == (27, 3)


def test_npz_object_array_is_refused_without_unpickling(uploads: Path) -> None:
    objects = np.empty(3, dtype=object)
    objects[:] = [{"a": 1}, [2], "three"]
    np.savez(uploads / "objects.npz", x=objects, y=np.array([0, 1, 0]))
    err = _error(DatasetRequest("upload:npz:objects.npz"))
    assert err.key == "data.err.npz_objects" and "never unpickled" in err.message


def test_npz_wrong_keys_lengths_and_broken_file(uploads: Path) -> None:
    np.savez(uploads / "keys.npz", a=np.zeros(3), b=np.zeros(3))
    err = _error(DatasetRequest("upload:npz:keys.npz"))
    assert err.key == "data.err.npz_keys" and "Found: a, b" in err.message
    np.savez(uploads / "len.npz", x=np.zeros((4, 2)), y=np.zeros(3, dtype=int))
    assert _error(DatasetRequest("upload:npz:len.npz")).key == "data.err.npz_lengths"
    (uploads / "junk.npz").write_bytes(b"not a zip at all")
    assert _error(DatasetRequest("upload:npz:junk.npz")).key == "data.err.npz_read"
    np.savez(uploads / "one.npz", x=np.zeros((4, 2)), y=np.ones(4, dtype=int))
    assert _error(DatasetRequest("upload:npz:one.npz")).key == "data.err.one_class"


def _cats_dogs(n: int = 6) -> dict[str, bytes]:
    members = {}
    for i in range(n):
        members[f"pets/cats/cat{i}.png"] = _png((250, 10, 10))
        members[f"pets/dogs/dog{i}.png"] = _png((10, 10, 250))
    return members


def test_zip_of_class_folders_decodes_and_resizes(uploads: Path) -> None:
    _zip(uploads / "pets.zip", _cats_dogs())
    bundle = load_dataset(DatasetRequest("upload:images:pets.zip", {"image_size": 16},
                                         val_fraction=0.0, test_fraction=0.25))
    info = bundle.info
    assert info.class_names == ("cats", "dogs") and info.input_shape == (16, 16, 3)
    assert (info.n_train, info.n_test) == (9, 3)
    x = np.concatenate([bundle.x_train, bundle.x_test])
    y = np.concatenate([bundle.y_train, bundle.y_test])
    assert x.dtype == np.float32 and x.max() <= 1.0
    red = x[..., 0].mean(axis=(1, 2))
    assert (red[y == 0] > 0.9).all() and (red[y == 1] < 0.1).all()   # labels match pixels


def test_zip_with_train_and_test_folders_and_grayscale(uploads: Path) -> None:
    members = {}
    for split, n in (("train", 4), ("test", 2)):
        for cls, color in (("cats", (200, 0, 0)), ("dogs", (0, 0, 200))):
            for i in range(n):
                members[f"{split}/{cls}/{i}.png"] = _png(color)
    _zip(uploads / "split.zip", members)
    bundle = load_dataset(DatasetRequest("upload:images:split.zip",
                                         {"image_size": 8, "channels": 1}, val_fraction=0.0))
    assert bundle.info.n_test == 4 and bundle.info.n_train == 8
    assert bundle.info.input_shape == (8, 8, 1)


def test_zip_slip_is_refused(uploads: Path) -> None:
    members = _cats_dogs(2)
    members["../../evil.png"] = _png((0, 0, 0))
    _zip(uploads / "slip.zip", members)
    err = _error(DatasetRequest("upload:images:slip.zip"))
    assert err.key == "data.err.zip_unsafe" and "../../evil.png" in err.message
    _zip(uploads / "abs.zip", {**_cats_dogs(2), "/etc/cron.png": b"x"})
    assert _error(DatasetRequest("upload:images:abs.zip")).key == "data.err.zip_unsafe"


def test_zip_symlink_member_is_refused(uploads: Path) -> None:
    with zipfile.ZipFile(uploads / "link.zip", "w") as archive:
        for name, data in _cats_dogs(2).items():
            archive.writestr(name, data)
        info = zipfile.ZipInfo("pets/cats/link.png")
        info.external_attr = (0o120777 << 16)
        archive.writestr(info, "/etc/passwd")
    assert _error(DatasetRequest("upload:images:link.zip")).key == "data.err.zip_unsafe"


def test_oversize_archives_are_refused(uploads: Path, monkeypatch) -> None:
    _zip(uploads / "big.zip", {**_cats_dogs(2), "pets/cats/zeros.png": b"\0" * 300_000})
    monkeypatch.setattr(images_mod, "MAX_UNCOMPRESSED", 200_000)
    err = _error(DatasetRequest("upload:images:big.zip"))
    assert err.key == "data.err.too_big" and "the limit is" in err.message
    monkeypatch.setattr(images_mod, "MAX_UNCOMPRESSED", 10**9)
    monkeypatch.setattr(images_mod, "MAX_FILES", 3)
    clear_cache()
    err = _error(DatasetRequest("upload:images:big.zip"))
    assert err.key == "data.err.too_many_files" and "5 files" in err.message


def test_broken_image_is_named(uploads: Path) -> None:
    members = _cats_dogs(3)
    members["pets/dogs/broken.png"] = b"\x89PNG\r\n\x1a\n this is not really a png"
    _zip(uploads / "broken.zip", members)
    err = _error(DatasetRequest("upload:images:broken.zip", {"image_size": 8}))
    assert err.key == "data.err.broken_images" and "dogs/broken.png" in err.message


def test_one_class_loose_files_and_not_a_zip(uploads: Path) -> None:
    _zip(uploads / "cats.zip", {f"cats/{i}.png": _png((1, 2, 3)) for i in range(3)})
    assert _error(DatasetRequest("upload:images:cats.zip")).key == "data.err.one_class"
    _zip(uploads / "loose.zip", {"a.png": _png((1, 2, 3)), "cats/b.png": _png((1, 2, 3))})
    assert _error(DatasetRequest("upload:images:loose.zip")).key == "data.err.class_folders"
    (uploads / "fake.zip").write_bytes(b"PK but not really")
    assert _error(DatasetRequest("upload:images:fake.zip")).key == "data.err.zip_read"


def test_folder_of_class_folders_and_links_refused(uploads: Path) -> None:
    root = uploads / "petsdir"
    for cls, color in (("cats", (255, 0, 0)), ("dogs", (0, 255, 0))):
        (root / cls).mkdir(parents=True, exist_ok=True)
        for i in range(3):
            (root / cls / f"{i}.png").write_bytes(_png(color))
    bundle = load_dataset(DatasetRequest("upload:images:petsdir", {"image_size": 8},
                                         val_fraction=0.0, test_fraction=0.0))
    assert bundle.info.n_train == 6 and "petsdir" in list_uploads("images")
    (root / "cats" / "escape.png").symlink_to("/etc/hostname")
    clear_cache()
    assert _error(DatasetRequest("upload:images:petsdir")).key == "data.err.zip_unsafe"
