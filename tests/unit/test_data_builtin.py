"""Offline datasets: shapes, classes, splits, determinism and the M1 numbers."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.data.loader import (
    DEFAULT_DATASET,
    DatasetBundle,
    DatasetRequest,
    dataset_names,
    dataset_title,
    load_dataset,
)
from tfcore.errors import DatasetError

POINT_SETS = ["circles", "xor", "spirals", "moons", "blobs"]


def test_registry_lists_default_first_with_titles_in_both_languages() -> None:
    names = dataset_names()
    assert names[0] == DEFAULT_DATASET == "digits28"
    assert {"digits8", "house_prices", *POINT_SETS} <= set(names)
    for name in names:
        title = dataset_title(name)
        assert title["en"] and title["zh"] and title["en"] != title["zh"]


@pytest.mark.parametrize("name,shape", [("digits28", (28, 28, 1)), ("digits8", (8, 8, 1))])
def test_digits_shapes_range_and_stratified_splits(name: str, shape: tuple) -> None:
    bundle = load_dataset(DatasetRequest(name))
    info = bundle.info
    assert info.input_shape == shape and info.kind == "image"
    assert info.task == "classification" and info.num_classes == 10
    assert info.class_names == tuple(str(i) for i in range(10))
    assert (info.n_train, info.n_val, info.n_test) == (1258, 180, 359)
    assert info.n_train + info.n_val + info.n_test == 1797
    for split in ("train", "val", "test"):
        x, y = bundle.split(split)
        assert x.shape[1:] == shape and x.dtype == np.float32 and y.dtype == np.int32
        assert 0.0 <= x.min() and x.max() <= 1.0
    # stratified: every class is in the test split with about its share
    counts = np.bincount(bundle.y_test, minlength=10)
    assert counts.min() >= 33 and counts.max() <= 38
    assert sum(bundle.class_counts("train").values()) == info.n_train


def test_digits28_is_the_8x8_digits_enlarged() -> None:
    small = load_dataset(DatasetRequest("digits8"))
    big = load_dataset(DatasetRequest("digits28"))
    np.testing.assert_array_equal(small.y_train, big.y_train)
    # the mean brightness survives bilinear resizing to within a few percent
    ratio = big.x_train.mean() / small.x_train.mean()
    assert 0.9 < ratio < 1.1


def test_same_seed_same_split_other_seed_other_split() -> None:
    a = load_dataset(DatasetRequest("digits8", seed=3))
    from tfcore.data.loader import clear_cache
    clear_cache()
    b = load_dataset(DatasetRequest("digits8", seed=3))
    c = load_dataset(DatasetRequest("digits8", seed=4))
    np.testing.assert_array_equal(a.x_test, b.x_test)
    assert not np.array_equal(a.y_test, c.y_test)


def test_test_split_does_not_move_when_val_fraction_changes() -> None:
    a = load_dataset(DatasetRequest("digits8", val_fraction=0.1))
    b = load_dataset(DatasetRequest("digits8", val_fraction=0.3))
    np.testing.assert_array_equal(a.x_test, b.x_test)
    assert b.info.n_val > a.info.n_val


def test_house_prices_are_the_m1_points_min_max_normalized() -> None:
    bundle = load_dataset(DatasetRequest("house_prices"))
    x = np.array([2013, 2014, 2015, 2016, 2017], dtype=np.float64)
    y = np.array([12000, 14000, 15000, 16500, 17500], dtype=np.float64)
    np.testing.assert_allclose(bundle.x_train.ravel(), (x - 2013) / 4, rtol=0, atol=1e-7)
    np.testing.assert_allclose(bundle.y_train.ravel(), (y - 12000) / 5500, atol=1e-7)
    assert bundle.x_train.shape == (5, 1) and bundle.y_train.shape == (5, 1)
    assert bundle.info.task == "regression" and bundle.info.num_classes is None
    # too few to hold out: validation and test reuse all five
    np.testing.assert_array_equal(bundle.x_test, bundle.x_train)
    # full-batch SGD of 0.5*sum of squares reaches the scenario's a and b
    a = b = 0.0
    xs, ys = bundle.x_train.ravel().astype(np.float64), bundle.y_train.ravel()
    for _ in range(10_000):
        err = a * xs + b - ys
        a, b = a - 1e-3 * float(err @ xs), b - 1e-3 * float(err.sum())
    assert round(a, 4) == 0.9764 and round(b, 4) == 0.0576


@pytest.mark.parametrize("name", POINT_SETS)
def test_point_sets_shapes_options_and_determinism(name: str) -> None:
    req = DatasetRequest(name, {"n_samples": 200, "noise": 0.05, "seed": 7},
                         val_fraction=0.1, test_fraction=0.2)
    bundle = load_dataset(req)
    info = bundle.info
    assert info.kind == "points" and info.input_shape == (2,)
    assert (info.n_train, info.n_val, info.n_test) == (140, 20, 40)
    assert info.num_classes == (3 if name == "blobs" else 2)
    assert set(np.unique(bundle.y_train)) == set(range(info.num_classes))
    other = load_dataset(DatasetRequest(name, {"n_samples": 200, "noise": 0.05, "seed": 8}))
    assert not np.array_equal(bundle.x_train, other.x_train)
    from tfcore.data.loader import clear_cache
    clear_cache()
    again = load_dataset(req)
    np.testing.assert_array_equal(bundle.x_train, again.x_train)


def test_noise_spreads_points() -> None:
    calm = load_dataset(DatasetRequest("circles", {"noise": 0.0}))
    noisy = load_dataset(DatasetRequest("circles", {"noise": 0.5}))
    r_calm = np.linalg.norm(calm.x_train, axis=1)
    r_noisy = np.linalg.norm(noisy.x_train, axis=1)
    assert r_calm.max() <= 1.0 + 1e-6 and r_noisy.max() > 1.2
    # without noise the classes are separated by radius 0.5 .. 0.7
    inside = r_calm[calm.y_train == 0]
    outside = r_calm[calm.y_train == 1]
    assert inside.max() <= 0.5 + 1e-6 and outside.min() >= 0.7 - 1e-6


def test_moons_are_two_unit_half_circles_around_the_origin() -> None:
    """Without noise every point lies on its class's half circle of radius 1 (scikit-learn's
    ``make_moons``, centres (0, 0) and (1, 0.5) moved by (-0.5, -0.25)); the upper moon is
    class 0, the lower one class 1."""
    bundle = load_dataset(DatasetRequest("moons", {"noise": 0.0, "n_samples": 300}))
    x, y = bundle.x_train, bundle.y_train
    centres = np.array([[-0.5, -0.25], [0.5, 0.25]])
    np.testing.assert_allclose(np.linalg.norm(x - centres[y], axis=1), 1.0, atol=1e-5)
    assert (x[y == 0, 1] >= -0.25 - 1e-6).all() and (x[y == 1, 1] <= 0.25 + 1e-6).all()
    assert bundle.info.class_names == ("moon A", "moon B")


def test_blobs_classes_option() -> None:
    bundle = load_dataset(DatasetRequest("blobs", {"classes": 5}))
    assert bundle.info.num_classes == 5 and len(bundle.info.class_names) == 5


@pytest.mark.parametrize("request_, fragment", [
    (DatasetRequest("nope"), "Unknown dataset 'nope'"),
    (DatasetRequest("circles", {"noise": 3}), "noise=3"),
    (DatasetRequest("circles", {"n_samples": 0}), "n_samples=0"),
    (DatasetRequest("circles", {"nosie": 0.1}), "'nosie'"),
    (DatasetRequest("digits8", val_fraction=0.5, test_fraction=0.5), "val_fraction=0.5"),
    (DatasetRequest("digits8", test_fraction=-0.1), "test_fraction=-0.1"),
])
def test_bad_requests_raise_dataset_error_echoing_the_value(request_, fragment) -> None:
    with pytest.raises(DatasetError) as info:
        load_dataset(request_)
    assert fragment in info.value.message
    assert info.value.key.startswith("data.err.")


def test_request_json_round_trip_and_cache_returns_read_only_arrays() -> None:
    req = DatasetRequest("xor", {"noise": 0.2}, val_fraction=0.0, test_fraction=0.25, seed=2)
    assert DatasetRequest.from_dict(req.to_dict()) == req
    bundle = load_dataset(req)
    assert bundle.info.n_val == 0 and bundle.x_val.shape == (0, 2)
    assert load_dataset(DatasetRequest.from_dict(req.to_dict())) is bundle
    with pytest.raises(ValueError):
        bundle.x_train[0, 0] = 1.0
    with pytest.raises(DatasetError):
        bundle.split("validation")
    assert isinstance(bundle, DatasetBundle)


@pytest.mark.parametrize("name", POINT_SETS)
def test_point_sets_have_learnable_structure(name: str) -> None:
    """Low noise: a 1-nearest-neighbour rule from train labels the test points."""
    from sklearn.neighbors import KNeighborsClassifier

    bundle = load_dataset(DatasetRequest(name, {"n_samples": 600, "noise": 0.02}))
    knn = KNeighborsClassifier(1).fit(bundle.x_train, bundle.y_train)
    assert knn.score(bundle.x_test, bundle.y_test) > 0.93
    noisy = load_dataset(DatasetRequest(name, {"n_samples": 600, "noise": 1.0}))
    knn = KNeighborsClassifier(1).fit(noisy.x_train, noisy.y_train)
    assert knn.score(noisy.x_test, noisy.y_test) < 0.93   # noise really blurs it
