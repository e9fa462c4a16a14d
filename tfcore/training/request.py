"""The run request (the body of ``run.json``) as one typed value: what the job manager
writes, what a worker and every worker of a cluster read.

``from_dict`` checks the shape of every field and reads old run folders (unknown keys such as
``created``, ``versions`` or ``format`` are ignored, missing optional ones get their
defaults); ``to_dict`` gives back the ``run.json`` layout. The model spec and the training
section stay JSON documents until :meth:`RunRequest.model_spec` / :meth:`train_config`
parse them: both may name user-written code, which a worker loads first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from tfcore.data import DEFAULT_DATASET, DatasetRequest
from tfcore.errors import RunError, TFLabError
from tfcore.jsonio import read_json
from tfcore.training.cluster import ClusterConfig, cluster_section_moved
from tfcore.training.config import TrainConfig
from tfcore.training.devices import CLUSTER, DeviceConfig

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _section(data: Mapping[str, Any], name: str, required: bool = False) -> Mapping[str, Any]:
    """A JSON object field of the request (missing: empty, unless required)."""
    value = data.get(name)
    if value is None and not required:
        return _EMPTY
    if not isinstance(value, Mapping):
        if name == "spec":
            raise RunError(key="train.err.no_spec")
        raise RunError(key="train.err.request_object",
                       params={"field": name, "value": f"{value!r:.60}"})
    return MappingProxyType(dict(value))


def _text(data: Mapping[str, Any], name: str) -> str | None:
    """A text field of the request (missing or empty: None)."""
    value = data.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RunError(key="train.err.request_text",
                       params={"field": name, "value": f"{value!r:.60}"})
    return value


@dataclass(frozen=True)
class RunRequest:
    """What a run was asked to do: model, data, training, devices and where it starts."""

    spec: Mapping[str, Any]
    dataset: DatasetRequest = field(default_factory=lambda: DatasetRequest(DEFAULT_DATASET))
    training: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    device: DeviceConfig = field(default_factory=DeviceConfig)
    cluster: ClusterConfig | None = None        # set when device.kind is "cluster"
    name: str | None = None
    initial_weights: str | None = None          # workspace-relative .weights.h5
    custom_code: Mapping[str, str] | None = None
    resume_of: Any = None                       # what a continued run came from (as written)
    # the dataset and device sections as run.json has them (a sparse one stays sparse)
    written: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: _EMPTY,
                                                     repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "RunRequest":
        """Read and check a request; old ``run.json`` bodies (device.cluster) are moved.

        Raises:
            RunError: a field has the wrong type (``key`` names the problem, ``field`` it).
            DatasetError, DeviceError: the dataset or device section is invalid.
        """
        if not isinstance(data, Mapping):
            raise RunError(key="train.err.no_spec")
        data = cluster_section_moved(data)
        spec = _section(data, "spec", required=True)
        device = DeviceConfig.from_dict(dict(_section(data, "device")))
        cluster = ClusterConfig.from_dict(dict(_section(data, "cluster"))) \
            if device.kind == CLUSTER else None
        code = data.get("custom_code")
        if code is not None and not (isinstance(code, Mapping) and all(
                isinstance(v, str) for v in code.values())):
            raise RunError(key="train.err.custom_code_map")
        dataset = _section(data, "dataset")
        written = {k: _section(data, k) for k in ("dataset", "device") if data.get(k)}
        return cls(spec=spec,
                   dataset=DatasetRequest.from_dict(dict(dataset or {"name": DEFAULT_DATASET})),
                   training=_section(data, "training"), device=device, cluster=cluster,
                   name=_text(data, "name"), initial_weights=_text(data, "initial_weights"),
                   custom_code=MappingProxyType(dict(code)) if code else None,
                   resume_of=data.get("resume_of"), written=MappingProxyType(written))

    def to_dict(self) -> dict:
        """The ``run.json`` body (without ``created`` and ``versions``, which the job
        manager adds); optional fields that are not set are left out."""
        body: dict[str, Any] = {
            "spec": dict(self.spec),
            "dataset": self._as_written("dataset", self.dataset, DatasetRequest.from_dict),
            "training": dict(self.training),
            "device": self._as_written("device", self.device, DeviceConfig.from_dict)}
        optional = {"cluster": self.cluster.to_dict() if self.cluster else None,
                    "name": self.name, "initial_weights": self.initial_weights,
                    "custom_code": dict(self.custom_code) if self.custom_code else None,
                    "resume_of": self.resume_of}
        return body | {k: v for k, v in optional.items() if v is not None}

    def _as_written(self, name: str, value: Any, parse: Any) -> dict:
        """A section as run.json had it while it still says the same, else complete."""
        raw = self.written.get(name)
        return dict(raw) if raw is not None and parse(dict(raw)) == value else value.to_dict()

    @property
    def is_cluster(self) -> bool:
        return self.cluster is not None

    def train_config(self) -> TrainConfig:
        """The checked training settings (after the run's own code is loaded)."""
        return TrainConfig.from_dict(dict(self.training))

    def model_spec(self) -> Any:
        """The checked model spec (``tfcore.model.ModelSpec``)."""
        from tfcore.model import from_dict

        return from_dict(dict(self.spec))

    def check(self) -> None:
        """Parse the spec and the training settings: raise what a worker would raise."""
        self.model_spec()
        self.train_config()


def read_request(paths: Any) -> RunRequest | None:
    """The request in a run folder (``paths``: RunPaths); None when ``run.json`` is missing
    or invalid (its worker reports why)."""
    try:
        return RunRequest.from_dict(read_json(paths.run_json))
    except TFLabError:
        return None
