"""Hostile uploads (issue 13, items 2, 6, 7): bombs refused from declared sizes and image
headers before any work, readable and distinct upload names, long and NUL paths, size
messages that do not read as equal to the limit."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tfcore.data import limits
from tfcore.data.loader import DatasetRequest, clear_cache, load_dataset
from tfcore.data.uploads import list_uploads, safe_filename, save_upload, uploads_path
from tfcore.errors import DatasetError
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

MIB = 1024**2


@pytest.fixture()
def uploads() -> Path:
    clear_cache()
    return default_workspace().ensure().uploads


def _located(err: DatasetError) -> DatasetError:
    """The message fills both catalogs' templates (it is translated, with its values)."""
    for lang in ("en", "zh"):
        text = catalog(lang)[err.key].format(**err.params)
        assert "{" not in text
    return err


def _error(request: DatasetRequest) -> DatasetError:
    with pytest.raises(DatasetError) as info:
        load_dataset(request)
    return _located(info.value)


def _png(size=(8, 8), color=(200, 0, 0)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def huge_png(width: int, height: int) -> bytes:
    """A valid grayscale PNG of zeros, built row by row (never held decoded)."""
    packer = zlib.compressobj(9)
    row = b"\0" * (width + 1)
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", body)
            + _chunk(b"IEND", b""))


def zeros_member(archive: zipfile.ZipFile, name: str, size: int) -> None:
    """A deflated member of ``size`` zero bytes, streamed (a zip bomb's payload)."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    block = b"\0" * MIB
    with archive.open(info, "w", force_zip64=True) as out:
        for _ in range(size // MIB):
            out.write(block)
        out.write(b"\0" * (size % MIB))


def _pets(archive: zipfile.ZipFile, n: int = 2) -> None:
    for i in range(n):
        archive.writestr(f"pets/cats/{i}.png", _png(color=(250, 0, 0)))
        archive.writestr(f"pets/dogs/{i}.png", _png(color=(0, 0, 250)))


# --- archives and images: refused from what they declare -------------------------------

@pytest.mark.parametrize("megabytes", [210, 300])
def test_member_declared_above_the_per_file_limit(uploads: Path, megabytes: int) -> None:
    path = uploads / f"bomb{megabytes}.zip"
    with zipfile.ZipFile(path, "w") as archive:
        _pets(archive)
        zeros_member(archive, "pets/cats/zeros.png", megabytes * MIB)
    assert path.stat().st_size < MIB
    err = _error(DatasetRequest(f"upload:images:{path.name}"))
    assert err.key in ("data.err.zip_member_big", "data.err.zip_ratio")
    assert "pets/cats/zeros.png" in err.message


@pytest.mark.parametrize("megabytes", [9, 20, 60])
def test_small_bombs_refused_by_ratio(uploads: Path, megabytes: int) -> None:
    path = uploads / f"ratio{megabytes}.zip"
    with zipfile.ZipFile(path, "w") as archive:
        _pets(archive)
        zeros_member(archive, "pets/dogs/zeros.png", megabytes * MIB)
    err = _error(DatasetRequest(f"upload:images:{path.name}"))
    assert err.key == "data.err.zip_ratio"
    assert err.params["member"] == "pets/dogs/zeros.png" and err.params["ratio"] > 100
    assert err.params["limit"] == limits.MAX_RATIO


def test_many_small_members_refused_by_the_archive_ratio(uploads: Path) -> None:
    path = uploads / "spread.zip"
    with zipfile.ZipFile(path, "w") as archive:
        _pets(archive)
        for i in range(12):
            zeros_member(archive, f"pets/cats/z{i}.png", 4 * MIB)   # each under the floor
    err = _error(DatasetRequest("upload:images:spread.zip"))
    assert err.key == "data.err.zip_ratio" and err.params["member"] == "*"


@pytest.mark.parametrize("width,height", [(4097, 4097), (6000, 6000), (12000, 12000),
                                          (20000, 10000), (100_000, 200), (200, 100_000)])
def test_image_pixels_checked_from_the_header(uploads: Path, width: int, height: int) -> None:
    path = uploads / f"wide{width}x{height}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        _pets(archive)
        archive.writestr("pets/dogs/huge.png", huge_png(width, height))
    err = _error(DatasetRequest(f"upload:images:{path.name}", {"image_size": 8}))
    assert err.key == "data.err.image_pixels"
    assert err.params["member"] == "pets/dogs/huge.png"
    assert err.params["width"] * err.params["height"] > limits.MAX_IMAGE_PIXELS


def test_total_pixels_limit(uploads: Path, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_TOTAL_PIXELS", 8 * 8 * 5)
    path = uploads / "many.zip"
    with zipfile.ZipFile(path, "w") as archive:
        _pets(archive, 4)
    err = _error(DatasetRequest("upload:images:many.zip"))
    assert err.key == "data.err.total_pixels" and err.params["limit"] == "320"


def test_image_at_the_pixel_limit_loads(uploads: Path, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_IMAGE_PIXELS", 8 * 8)
    with zipfile.ZipFile(uploads / "edge.zip", "w") as archive:
        _pets(archive, 3)
    bundle = load_dataset(DatasetRequest("upload:images:edge.zip", {"image_size": 8},
                                         val_fraction=0.0, test_fraction=0.0))
    assert bundle.info.n_train == 6 and bundle.x_train.shape == (6, 8, 8, 3)
    assert bundle.x_train[bundle.y_train == 0][..., 0].min() > 0.95   # red cats decoded


def test_folder_images_checked_the_same_way(uploads: Path) -> None:
    root = uploads / "bigdir"
    for cls in ("a", "b"):
        (root / cls).mkdir(parents=True, exist_ok=True)
        (root / cls / "1.png").write_bytes(_png())
    (root / "a" / "huge.png").write_bytes(huge_png(5000, 5000))
    err = _error(DatasetRequest("upload:images:bigdir"))
    assert err.key == "data.err.image_pixels" and err.params["member"] == "a/huge.png"


def _npy_header(shape: tuple, dtype: str = "<f4") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


@pytest.mark.parametrize("megabytes", [12, 210])
def test_npz_bomb_refused_before_reading(uploads: Path, megabytes: int) -> None:
    path = uploads / f"bomb{megabytes}.npz"
    count = megabytes * MIB // 4
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("x.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as out:
            out.write(_npy_header((count,)))
            for _ in range(megabytes):
                out.write(b"\0" * MIB)
        archive.writestr("y.npy", _npy_header((2,), "<i8") + b"\0" * 16)
    err = _error(DatasetRequest(f"upload:npz:{path.name}"))
    assert err.key in ("data.err.zip_ratio", "data.err.zip_member_big")
    assert err.params["member"] == "x.npy"


@pytest.mark.parametrize("shape", [(10**9,), (50_000, 50_000), (10**6, 10**6, 3)])
def test_npz_header_that_lies_about_its_shape(uploads: Path, shape: tuple) -> None:
    path = uploads / f"lie{len(shape)}.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", _npy_header(shape) + b"\0" * 64)
        archive.writestr("y.npy", _npy_header((2,), "<i8") + b"\0" * 16)
    err = _error(DatasetRequest(f"upload:npz:{path.name}"))
    assert err.key == "data.err.npz_read" and "x.npy" in err.params["error"]


def test_npz_float32_copies_above_the_array_limit(uploads: Path, monkeypatch) -> None:
    monkeypatch.setattr("tfcore.data.npz_arrays.MAX_ARRAY_BYTES", 10_000)
    np.savez(uploads / "wide.npz", x=np.zeros((1000, 3), np.uint8),
             y=(np.arange(1000) % 2).astype(np.int8))     # 4 kB stored, 16 kB as float32
    err = _error(DatasetRequest("upload:npz:wide.npz"))
    assert err.key == "data.err.too_big" and "x.npy" in err.params["name"]


@pytest.mark.parametrize("extra,shown", [(1, "1024.1"), (MIB // 10, "1024.1"),
                                         (MIB, "1025.0")])
def test_size_above_the_limit_never_reads_equal(extra: int, shown: str) -> None:
    err = limits.too_big("bomb.zip", 1024 * MIB + extra, 1024 * MIB)
    assert f"{shown} MB; the limit is 1024 MB" in err.message
    assert err.params["mb"] > err.params["limit"]


# --- memory: a subprocess loads each bomb through the engine -----------------------------

MEMORY_SCRIPT = """
import sys, json, threading
from tfcore.data.loader import DatasetRequest, load_dataset
from tfcore.errors import DatasetError
import pandas, PIL.Image, tensorflow  # imported first: their size is not growth
def rss_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
try:   # first use registers the upload sources (imports their modules): not growth either
    load_dataset(DatasetRequest("upload:npz:warm-up-missing.npz"))
except DatasetError:
    pass
before = rss_kb()
peak = [before]
done = threading.Event()
def sample():            # the peak resident size while the bomb is read, every 5 ms
    while not done.is_set():
        peak[0] = max(peak[0], rss_kb())
        done.wait(0.005)
sampler = threading.Thread(target=sample)
sampler.start()
key = None
if sys.argv[1] == "control":
    block = bytearray(300 * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])     # touch every page
    peak[0] = max(peak[0], rss_kb())
else:
    try:
        load_dataset(DatasetRequest(sys.argv[1]))
    except DatasetError as exc:
        key = exc.key
done.set()
sampler.join()
print(json.dumps({"key": key, "growth_kb": peak[0] - before}))
"""


def test_no_bomb_grows_the_process_by_500_mb(uploads: Path, tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    with zipfile.ZipFile(uploads / "mem-zeros.zip", "w", compresslevel=1) as archive:
        _pets(archive)
        zeros_member(archive, "pets/cats/zeros.png", 900 * MIB)
    with zipfile.ZipFile(uploads / "mem-pixels.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        _pets(archive)
        archive.writestr("pets/cats/big.png", huge_png(12000, 12000))
    with zipfile.ZipFile(uploads / "mem-npz.npz", "w", compresslevel=1) as archive:
        info = zipfile.ZipInfo("x.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as out:
            out.write(_npy_header((900 * MIB // 4,)))
            for _ in range(900):
                out.write(b"\0" * MIB)
    assert (uploads / "mem-pixels.zip").stat().st_size < 300_000
    root = Path(__file__).resolve().parents[2]
    growth = {}
    # one process per case, all at once: each measures only its own resident size
    procs = {name: subprocess.Popen([sys.executable, "-c", MEMORY_SCRIPT, name], cwd=root,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
             for name in ("control", "upload:images:mem-zeros.zip",
                          "upload:images:mem-pixels.zip", "upload:npz:mem-npz.npz")}
    try:
        outputs = {name: proc.communicate(timeout=300) for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for name, (stdout, stderr) in outputs.items():
        assert procs[name].returncode == 0, stderr[-2000:]
        result = json.loads(stdout.strip().splitlines()[-1])
        growth[name] = result["growth_kb"] / 1024
        if name != "control":
            assert result["key"] in ("data.err.zip_ratio", "data.err.zip_member_big",
                                     "data.err.image_pixels"), result
    print("memory growth per bomb (MB):", {k: round(v, 1) for k, v in growth.items()})
    assert growth.pop("control") >= 290          # the measurement sees a 300 MB allocation
    assert max(growth.values()) < 500, growth


# --- names -------------------------------------------------------------------------------

READABLE = [
    ("训练数据.csv", "训练数据.csv"),
    ("données été.csv", "données_été.csv"),
    ("..\\..\\my data.csv", "my_data.csv"),
    ("../../etc/passwd.csv", "passwd.csv"),
    ("/abs/path/x.npz", "x.npz"),
    (".csv", "upload.csv"),
    ("...csv", "upload.csv"),
    ("..csv", "upload.csv"),
    ("a\x00b.csv", "a_b.csv"),
    ("\x00.csv", "upload.csv"),
    ("DATA.CSV", "DATA.csv"),
    ("pets.ZIP", "pets.zip"),
    ("a b\tc\nd.txt", "a_b_c_d.txt"),
    ("![x](http:__example.com_a.png).csv", "x_http___example.com_a.png.csv"),
    ("[link](http:example.com).csv", "link_http_example.com.csv"),
    ("<script>alert(1)<_script>.csv", "script_alert_1__script.csv"),
    ("\u202egnp.csv", "gnp.csv"),
    ("-rf.csv", "rf.csv"),
    ("x" * 300 + ".csv", "x" * limits.MAX_NAME_CHARS + ".csv"),
    ("数" * 300 + ".npz", "数" * limits.MAX_NAME_CHARS + ".npz"),
]


@pytest.mark.parametrize("given,expected", READABLE)
def test_upload_names_are_readable(given: str, expected: str) -> None:
    assert safe_filename(given) == expected


@pytest.mark.parametrize("given", ["csv", "data", "", ".", "..", "x.exe", "a.csv.sh",
                                   "noext\x00", "a" * 300, "photo.jpg", "archive.tar.gz"])
def test_names_without_a_known_extension_are_refused(given: str) -> None:
    with pytest.raises(DatasetError) as info:
        save_upload(b"a,b\n1,2\n", given)
    err = _located(info.value)
    assert err.key == "data.err.upload_kind" and len(err.params["name"]) <= 63


def test_colliding_names_never_overwrite(uploads: Path) -> None:
    names = [save_upload(f"a,b\n{i},1\n{i},0\n".encode(), given)
             for i, given in enumerate(["训练数据.csv", ".csv", "...csv", "训练数据.csv"])]
    assert names == ["训练数据.csv", "upload.csv", "upload-2.csv", "训练数据-2.csv"]
    contents = {(uploads / n).read_text() for n in names}
    assert len(contents) == 4                                  # nothing was overwritten
    assert save_upload(b"a,b\n0,1\n0,0\n", "训练数据.csv") == "训练数据.csv"   # same bytes
    listed = list_uploads("csv")
    assert all(n in listed for n in names)


@pytest.mark.parametrize("arg", ["x" * 5000, "a/" * 600, "数" * 200 + ".csv",
                                 "ok.csv\x00", "\x00", "x" * 256 + ".csv"])
def test_long_and_nul_upload_paths_get_a_message(arg: str) -> None:
    for name in (f"upload:csv:{arg}", f"upload:npz:{arg}", f"upload:images:{arg}"):
        err = _error(DatasetRequest(name))
        assert err.key in ("data.err.path_long", "data.err.upload_path")
        assert len(err.message) < 400
    with pytest.raises(DatasetError):
        uploads_path(arg)
