"""Look inside a CNN run at any checkpoint: a convolution layer's filters and the feature
maps it makes of one test image.

The run's model is rebuilt and checkpoint ``number`` loaded into it (:func:`restore_run`);
the filters are that layer's kernel as the checkpoint holds it, the feature maps that
layer's output (after its activation) for the chosen image of the run's own test split.
The scale of the filters over *every* checkpoint of the run (``scale``) lets a chart keep
one color scale while a slider moves through the checkpoints, so growing filters show.
Nothing is cached here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tfcore.errors import CheckpointError, DatasetError, RunError
from tfcore.messages import Names, names
from tfcore.runs.checkpoints import CheckpointList, list_checkpoints
from tfcore.runs.ckpt_variables import read_tensor
from tfcore.runs.restore import restore_run, run_request

MAX_SHOWN = 32       # filters and feature maps returned at most


@dataclass(frozen=True)
class ConvView:
    """One convolution layer of a run at one checkpoint, and one test image through it.

    ``filters`` is ``(kh, kw, in, shown)``, the first ``shown`` of the layer's filters;
    ``filter_min``/``filter_max`` are per filter, over its height, width and input channels.
    ``maps`` is ``(h, w, shown)``: the layer's output for ``image``. ``scale`` is the
    largest absolute filter value over every readable checkpoint of the run, ``growth``
    that maximum per checkpoint ``(number, max |w|)``.
    """

    run_id: str
    checkpoint: str
    number: int | None
    step: int | None
    layer: str
    layer_type: str
    conv_layers: tuple[str, ...]
    filters: np.ndarray
    filter_min: np.ndarray
    filter_max: np.ndarray
    filters_total: int
    image_index: int
    image: np.ndarray
    label: Any
    label_name: str
    test_count: int
    maps: np.ndarray
    maps_total: int
    scale: float
    growth: tuple[tuple[int, float], ...]

    @property
    def filters_left_out(self) -> int:
        return self.filters_total - self.filters.shape[-1]

    @property
    def maps_left_out(self) -> int:
        return self.maps_total - self.maps.shape[-1]

    def to_dict(self, values: bool = False, digits: int = 4) -> dict:
        """Shapes and statistics; with ``values`` also the arrays (rounded) as lists."""
        maps = self.maps.reshape(-1, self.maps.shape[-1])
        out = {"run": self.run_id, "checkpoint": self.checkpoint, "number": self.number,
               "step": self.step, "layer": self.layer, "layer_type": self.layer_type,
               "conv_layers": list(self.conv_layers),
               "filters": {"shape": list(self.filters.shape), "total": self.filters_total,
                           "left_out": self.filters_left_out,
                           "min": _rounded(self.filter_min, digits),
                           "max": _rounded(self.filter_max, digits),
                           "scale": round(self.scale, digits),
                           "growth": [[n, round(v, digits)] for n, v in self.growth]},
               "image": {"index": self.image_index, "shape": list(self.image.shape),
                         "label": _plain(self.label), "label_name": self.label_name,
                         "test_count": self.test_count},
               "maps": {"shape": list(self.maps.shape), "total": self.maps_total,
                        "left_out": self.maps_left_out,
                        "min": _rounded(maps.min(axis=0), digits),
                        "max": _rounded(maps.max(axis=0), digits),
                        "mean": _rounded(maps.mean(axis=0), digits)}}
        if values:
            out["filters"]["values"] = _rounded(self.filters, digits)
            out["image"]["values"] = _rounded(self.image, digits)
            out["maps"]["values"] = _rounded(self.maps, digits)
        return out


def _rounded(array: np.ndarray, digits: int) -> list:
    return np.round(np.asarray(array, dtype=np.float64), digits).tolist()


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else (
        np.asarray(value).tolist() if isinstance(value, np.ndarray) else value)


def conv_layers(model: Any) -> list[Any]:
    """The model's own Conv2D layers (subclasses too), in order."""
    import keras

    return [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]


def _layer_types(model: Any) -> Names:
    return names(f"{layer.name} ({type(layer).__name__})" for layer in model.layers)


@dataclass(frozen=True)
class ConvLayers:
    """The convolution layers of a run's model and, to say why there are none, all its
    layers as ``name (Type)`` (names a message joins in the reader's language)."""

    conv: tuple[str, ...]
    layers: Names


def run_conv_layers(run_dir: Path | str) -> ConvLayers:
    """The Conv2D layers of the run's model, built from its spec (no checkpoint is read).

    Raises:
        RunError: the run has no run.json; SpecError: its spec cannot be built.
    """
    from tfcore.model import build_model, from_dict

    model = build_model(from_dict(run_request(run_dir)["spec"]))
    return ConvLayers(conv=tuple(layer.name for layer in conv_layers(model)),
                      layers=_layer_types(model))


def _pick_layer(model: Any, run_id: str, layer: str | None) -> Any:
    found = conv_layers(model)
    if not found:
        raise RunError(key="runs.err.no_conv", params={"run": run_id,
                                                       "layers": _layer_types(model)})
    if layer is None:
        return found[0]
    chosen = next((item for item in found if item.name == layer), None)
    if chosen is None:
        raise RunError(key="runs.err.not_conv", params={
            "layer": layer, "run": run_id, "available": names(item.name for item in found)})
    return chosen


def _feature_maps(model: Any, layer: Any, image: np.ndarray) -> np.ndarray:
    """``layer``'s output (its first application, channels last) for one image."""
    import keras

    inputs = model.inputs[0] if len(model.inputs) == 1 else model.inputs
    output = layer._inbound_nodes[0].output_tensors[0]   # a shared layer: its first use
    maps = np.asarray(keras.Model(inputs, output)(image[None], training=False))[0]
    if getattr(layer, "data_format", "channels_last") == "channels_first":
        maps = np.moveaxis(maps, 0, -1)
    return maps


def _growth(listing: CheckpointList, key: str | None) -> tuple[tuple[int, float], ...]:
    """max |kernel| at each readable numbered checkpoint (damaged ones are left out)."""
    if key is None:
        return ()
    rows = []
    for entry in listing.entries:
        if entry.number is None:
            continue
        try:
            rows.append((entry.number, float(np.abs(read_tensor(entry.prefix, key)).max())))
        except CheckpointError:
            continue
    return tuple(rows)


@dataclass(frozen=True)
class _TestImage:
    image: np.ndarray
    label: Any
    label_name: str
    count: int


def _test_image(dataset: dict, index: int) -> _TestImage:
    """Image ``index`` of the run's test split, loaded offline like :func:`predict_run`."""
    from tfcore.data import DatasetRequest, load_dataset

    bundle = load_dataset(DatasetRequest.from_dict(dataset))
    x, y = bundle.split("test")
    count = int(len(x))
    if not 0 <= index < count:
        raise DatasetError(key="runs.err.image_index", params={
            "index": index, "count": count, "last": count - 1, "dataset": bundle.info.name})
    label = np.asarray(y[index])
    label = label.item() if label.ndim == 0 else label
    classes = tuple(bundle.info.class_names)
    name = classes[label] if isinstance(label, int) and 0 <= label < len(classes) else ""
    return _TestImage(np.asarray(x[index]), label, str(name), count)


def _restore_whole(run_dir: Path, number: int | None) -> Any:
    """The run's model at checkpoint ``number``; a damaged or partial restore raises."""
    restored = restore_run(run_dir, number)
    report = restored.report
    if report.problems:
        raise CheckpointError(key="runs.err.damaged", params={
            "ckpt": restored.prefix.name, "run": run_dir.name, "problem": report.problems[0]},
            details=list(report.problems))
    if not report.complete:
        raise CheckpointError(key="runs.err.incomplete", params={"ckpt": restored.prefix.name},
                              details=list(report.missing) + [str(m) for m in
                                                              report.shape_mismatch])
    return restored


def conv_view(run_dir: Path | str, number: int | None = None, image_index: int = 0,
              layer: str | None = None, limit: int = MAX_SHOWN) -> ConvView:
    """The filters of ``layer`` (the first Conv2D when None) at checkpoint ``number``
    (latest when None) and its feature maps for test image ``image_index``.

    Raises:
        RunError: the run has no run.json, its model has no Conv2D (naming its layers'
            types), or ``layer`` is not one of its convolution layers;
        CheckpointError: no checkpoint ``number``, or the checkpoint is damaged or does not
            fit the model;
        DatasetError: ``image_index`` is outside the test split.
    """
    run_dir = Path(run_dir)
    request = run_request(run_dir)
    listing = list_checkpoints(run_dir, verify=False)
    number = listing.get(number).number          # no such checkpoint: raised here, early
    test = _test_image(request["dataset"], image_index)
    restored = _restore_whole(run_dir, number)
    chosen = _pick_layer(restored.model, run_dir.name, layer)
    kernel = np.asarray(chosen.kernel.numpy())
    maps = _feature_maps(restored.model, chosen, test.image)
    key = next((k for k, path in restored.report.matched if path == chosen.kernel.path), None)
    growth = _growth(listing, key)
    shown = kernel[..., :limit]
    flat = shown.reshape(-1, shown.shape[-1])
    return ConvView(
        run_id=run_dir.name, checkpoint=restored.prefix.name, number=number,
        step=restored.step, layer=chosen.name, layer_type=type(chosen).__name__,
        conv_layers=tuple(item.name for item in conv_layers(restored.model)), filters=shown,
        filter_min=flat.min(axis=0), filter_max=flat.max(axis=0),
        filters_total=int(kernel.shape[-1]), image_index=image_index, image=test.image,
        label=test.label, label_name=test.label_name, test_count=test.count,
        maps=maps[..., :limit], maps_total=int(maps.shape[-1]),
        scale=max([v for _, v in growth] + [float(np.abs(kernel).max())]), growth=growth)
