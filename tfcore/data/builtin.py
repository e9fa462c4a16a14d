"""Offline datasets: scikit-learn's digits (8x8 and 28x28x1), the M1 house prices and
Playground-style 2-D point sets (circles, XOR, spirals, scikit-learn's moons, blobs).
Nothing here touches the network."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from tfcore.data.base import RawData
from tfcore.data.options import check_known, float_option, int_option
from tfcore.messages import Text

# The 2-D sets' class names (stored in runs as they are) and their texts
# (``data.class.<set>.<index>``, ``data.class.blob``: tfcore/locales/<lang>/data.json).
POINT_CLASSES: dict[str, tuple[str, ...]] = {
    "circles": ("inside", "outside"), "xor": ("same sign", "different sign"),
    "spirals": ("arm A", "arm B"), "moons": ("moon A", "moon B")}
BLOB = "blob {index}"

DIGIT_NAMES = tuple(str(i) for i in range(10))
HOUSE_YEARS = (2013, 2014, 2015, 2016, 2017)
HOUSE_PRICES = (12000, 14000, 15000, 16500, 17500)
POINT_OPTIONS = ("n_samples", "noise", "seed")


def _digits_images() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)       # (1797, 8, 8) in [0, 1]
    return images, digits.target.astype(np.int32)


def load_digits8(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """The 1797 scikit-learn digits at their own 8x8, one channel, values in [0, 1]."""
    check_known(name, options, ())
    images, labels = _digits_images()
    return RawData(images[..., None], labels, "classification", "image", DIGIT_NAMES)


def load_digits28(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """The same digits resized (bilinear) to 28x28x1 so the MNIST presets run on them."""
    from PIL import Image

    check_known(name, options, ())
    images, labels = _digits_images()
    big = np.stack([
        np.asarray(Image.fromarray(img).resize((28, 28), Image.Resampling.BILINEAR))
        for img in images])
    big = np.clip(big, 0.0, 1.0).astype(np.float32)[..., None]
    return RawData(big, labels, "classification", "image", DIGIT_NAMES)


def house_prices_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Scenario M1: years and prices, both min-max normalized; x (5, 1), y (5, 1)."""
    years = np.array(HOUSE_YEARS, dtype=np.float64)
    prices = np.array(HOUSE_PRICES, dtype=np.float64)
    x = (years - years.min()) / (years.max() - years.min())
    y = (prices - prices.min()) / (prices.max() - prices.min())
    return x.astype(np.float32)[:, None], y.astype(np.float32)[:, None]


def load_house_prices(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """Five points: too few to hold any out, so val and test reuse all five."""
    check_known(name, options, ())
    x, y = house_prices_arrays()
    return RawData(x, y, "regression", "table", feature_names=("year",),
                   fixed_split=True,
                   notes=("All 5 points train; validation and test reuse them.",))


def _point_options(name: str, options: Mapping[str, Any], default_seed: int,
                   extra: tuple[str, ...] = ()) -> tuple[int, float, np.random.Generator]:
    check_known(name, options, POINT_OPTIONS + extra)
    n = int_option(name, options, "n_samples", 400, 20, 100_000)
    noise = float_option(name, options, "noise", 0.1, 0.0, 1.0)
    seed = int_option(name, options, "seed", default_seed, 0, 2**31 - 1)
    return n, noise, np.random.default_rng(seed)


def _points(x: np.ndarray, y: np.ndarray, names: tuple[str, ...]) -> RawData:
    return RawData(x.astype(np.float32), y.astype(np.int32), "classification", "points",
                   names, feature_names=("x1", "x2"))


def load_circles(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """A ring (class 1) around a disc (class 0); noise is Gaussian jitter."""
    n, noise, rng = _point_options(name, options, seed)
    y = np.arange(n) % 2
    radius = np.where(y == 0, rng.uniform(0.0, 0.5, n), rng.uniform(0.7, 1.0, n))
    angle = rng.uniform(0.0, 2 * np.pi, n)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    x += rng.normal(0.0, noise, x.shape)
    return _points(x, y, POINT_CLASSES["circles"])


def load_xor(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """Uniform points in [-1, 1]^2; class 1 where the signs of x1 and x2 differ."""
    n, noise, rng = _point_options(name, options, seed)
    x = rng.uniform(-1.0, 1.0, (n, 2))
    x += np.sign(x) * 0.05                      # a small margin around the axes
    y = (x[:, 0] * x[:, 1] < 0).astype(np.int32)
    x += rng.normal(0.0, noise, x.shape)
    return _points(x, y, POINT_CLASSES["xor"])


def load_spirals(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """Two interleaved spiral arms (1.25 turns), one per class; jitter is 0.4 * noise."""
    n, noise, rng = _point_options(name, options, seed)
    y = np.arange(n) % 2
    t = np.sqrt(rng.uniform(0.0, 1.0, n))           # even density along the arm
    radius = 0.1 + 0.9 * t
    angle = 1.25 * t * 2 * np.pi + np.pi * y
    x = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    x += rng.normal(0.0, 0.4 * noise, x.shape)     # arms lie ~0.36 apart: gentler noise
    return _points(x, y, POINT_CLASSES["spirals"])


def load_moons(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """scikit-learn's two interleaving half circles (``make_moons``), centred on the
    origin; ``noise`` is scikit-learn's Gaussian jitter."""
    from sklearn.datasets import make_moons

    n, noise, rng = _point_options(name, options, seed)
    x, y = make_moons(n_samples=n, noise=noise, random_state=int(rng.integers(2**31 - 1)))
    return _points(x - np.array([0.5, 0.25]), y, POINT_CLASSES["moons"])


def load_blobs(name: str, options: Mapping[str, Any], seed: int = 0) -> RawData:
    """Gaussian blobs (option ``classes``, 2-8) with centres on a circle of radius 0.7;
    ``noise`` is the blob spread added to a base spread of 0.1."""
    n, noise, rng = _point_options(name, options, seed, ("classes",))
    k = int_option(name, options, "classes", 3, 2, 8)
    y = np.arange(n) % k
    angles = 2 * np.pi * np.arange(k) / k
    centres = 0.7 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    x = centres[y] + rng.normal(0.0, 0.1 + noise, (n, 2))
    return _points(x, y, tuple(BLOB.format(index=i) for i in range(k)))


def class_texts(source: str, names: tuple[str, ...] | list[str]) -> list[Text] | None:
    """The translatable texts of a built-in 2-D set's class ``names`` (None when
    ``source`` is not one, or the names are not the ones it gives: an upload's)."""
    names = [str(n) for n in names]
    if source == "blobs":
        if names == [BLOB.format(index=i) for i in range(len(names))]:
            return [Text("data.class.blob", {"index": i}) for i in range(len(names))]
        return None
    if source in POINT_CLASSES and tuple(names) == POINT_CLASSES[source]:
        return [Text(f"data.class.{source}.{i}") for i in range(len(names))]
    return None


Loader = Callable[..., RawData]
