"""TensorFlow Datasets: on-disk loading, missing data and offline downloads fail fast."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from tfcore.data.loader import DatasetRequest, load_dataset
from tfcore.data.tfds_source import network_reachable, on_disk
from tfcore.errors import DatasetError


@pytest.fixture(scope="module")
def tiny_tfds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real prepared TFDS dataset (generated locally, no network) in a temp data_dir."""
    import tensorflow_datasets as tfds

    class TflabTinyImages(tfds.core.GeneratorBasedBuilder):
        VERSION = tfds.core.Version("1.0.0")

        def _info(self):
            return tfds.core.DatasetInfo(
                builder=self,
                features=tfds.features.FeaturesDict({
                    "image": tfds.features.Image(shape=(6, 6, 1)),
                    "label": tfds.features.ClassLabel(names=["zero", "one", "two"])}),
                supervised_keys=("image", "label"))

        def _split_generators(self, dl_manager):
            return {"train": self._generate_examples(30, 0),
                    "test": self._generate_examples(9, 1)}

        def _generate_examples(self, n, seed):
            rng = np.random.default_rng(seed)
            for i in range(n):
                yield i, {"image": rng.integers(0, 256, (6, 6, 1), dtype=np.uint8),
                          "label": i % 3}

    data_dir = tmp_path_factory.mktemp("tfds")
    TflabTinyImages(data_dir=str(data_dir)).download_and_prepare()
    return data_dir


def test_prepared_dataset_loads_from_disk_with_its_own_test_split(tiny_tfds: Path) -> None:
    assert on_disk(tiny_tfds) == ["tflab_tiny_images"]
    bundle = load_dataset(DatasetRequest("tfds:tflab_tiny_images",
                                         {"data_dir": str(tiny_tfds)}, val_fraction=0.1))
    info = bundle.info
    assert info.kind == "image" and info.task == "classification"
    assert info.input_shape == (6, 6, 1) and info.class_names == ("zero", "one", "two")
    assert (info.n_train, info.n_val, info.n_test) == (27, 3, 9)
    assert bundle.x_train.dtype == np.float32 and 0 <= bundle.x_train.min()
    assert bundle.x_train.max() <= 1.0 and bundle.y_test.dtype == np.int32
    assert sorted(bundle.y_test.tolist()) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_image_size_option_resizes(tiny_tfds: Path) -> None:
    bundle = load_dataset(DatasetRequest("tfds:tflab_tiny_images",
                                         {"data_dir": str(tiny_tfds), "image_size": 12}))
    assert bundle.info.input_shape == (12, 12, 1)


def test_name_not_on_disk_fails_quickly_without_network(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(DatasetError) as info:
        load_dataset(DatasetRequest("tfds:mnist", {"data_dir": str(tmp_path)}))
    assert time.monotonic() - start < 10
    assert info.value.key == "data.err.tfds_missing"
    assert "not on disk" in info.value.message and str(tmp_path) in info.value.message
    assert not any(tmp_path.iterdir()), "nothing was written (no download attempted)"


def test_download_without_network_fails_within_seconds(tmp_path: Path,
                                                       monkeypatch) -> None:
    # 203.0.113.0/24 is TEST-NET-3: never routed, so no TLS handshake can complete
    monkeypatch.setenv("TFLAB_NET_PROBE", "203.0.113.1:443")
    start = time.monotonic()
    with pytest.raises(DatasetError) as info:
        load_dataset(DatasetRequest("tfds:mnist", {"data_dir": str(tmp_path),
                                                   "download": True}))
    assert time.monotonic() - start < 10
    assert info.value.key == "data.err.tfds_offline"
    assert "network is unreachable" in info.value.message


def test_probe_gives_up_within_its_timeout() -> None:
    start = time.monotonic()
    assert network_reachable("203.0.113.1:443", timeout=1.0) is False
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize("name,key", [
    ("tfds:no_such_dataset_xyz", "data.err.tfds_unknown"),
    ("tfds:Not A Name", "data.err.tfds_name"),
    ("tfds:", "data.err.tfds_name"),
])
def test_bad_names_are_refused(name: str, key: str, tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as info:
        load_dataset(DatasetRequest(name, {"data_dir": str(tmp_path)}))
    assert info.value.key == key


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="'downlod'"):
        load_dataset(DatasetRequest("tfds:mnist", {"downlod": True}))
