"""Restore checkpoints into models built from specs; evaluate and predict with them.

Matching is done through the checkpoint's object graph: every object path that reaches a
saved tensor is followed in the freshly built objects (``tf.train.TrackableView``), so the
report says exactly which keys matched, which did not fit and which model variables stayed
untouched. A checkpoint from someone else's script (``tf.train.Checkpoint(myModel=model)``)
is matched the same way, with an optional fallback that pairs the remaining tensors with
the remaining variables in order when their shapes agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore.errors import CheckpointError, RunError
from tfcore.jsonio import read_json
from tfcore.rundir import RunPaths, read_metrics
from tfcore.runs.checkpoints import list_checkpoints, resolve_prefix
from tfcore.runs.ckpt_variables import OBJECT_GRAPH_KEY, object_graph_aliases

IGNORED_ROOTS = ("save_counter",)


@dataclass(frozen=True)
class MatchReport:
    """Which checkpoint keys went into which variables, and what did not."""

    matched: tuple[tuple[str, str], ...] = ()            # (key, variable path)
    by_order: tuple[tuple[str, str], ...] = ()           # fallback pairs, same shape
    shape_mismatch: tuple[tuple[str, str, tuple, tuple], ...] = ()  # key, var, ckpt, model
    missing: tuple[str, ...] = ()                        # variables nothing was loaded into
    unused: tuple[str, ...] = ()                         # keys no variable took
    ignored: int = 0                                     # keys under roots not asked for
    problems: tuple[str, ...] = ()                       # unreadable tensors and the like

    @property
    def complete(self) -> bool:
        """Every variable of the model got a value and nothing failed."""
        return not (self.missing or self.shape_mismatch or self.problems)

    def to_dict(self) -> dict:
        return {"complete": self.complete, "matched": [list(p) for p in self.matched],
                "by_order": [list(p) for p in self.by_order],
                "shape_mismatch": [[k, v, list(a), list(b)] for k, v, a, b in self.shape_mismatch],
                "missing": list(self.missing), "unused": list(self.unused),
                "ignored": self.ignored, "problems": list(self.problems)}


@dataclass(frozen=True)
class Restored:
    """A model (and optimizer) with a checkpoint's values, and how well it fit."""

    model: Any
    optimizer: Any
    prefix: Path
    step: int | None
    report: MatchReport


@dataclass(frozen=True)
class EvalResult:
    """Metrics of a restored checkpoint on one split; ``reported`` = what the worker wrote."""

    run_id: str
    checkpoint: str
    step: int | None
    split: str
    examples: int
    metrics: Mapping[str, float]
    reported: Mapping[str, float] | None = None
    report: MatchReport = field(default_factory=MatchReport)

    def to_dict(self) -> dict:
        return {"run": self.run_id, "checkpoint": self.checkpoint, "step": self.step,
                "split": self.split, "examples": self.examples,
                "metrics": dict(self.metrics),
                "reported": dict(self.reported) if self.reported is not None else None,
                "complete": self.report.complete, "problems": self.problem_lines()}

    def problem_lines(self) -> list[str]:
        r = self.report
        return (list(r.problems) + [f"missing: {v}" for v in r.missing]
                + [f"shape mismatch: {k} {list(a)} vs {v} {list(b)}"
                   for k, v, a, b in r.shape_mismatch])


# ------------------------------------------------------------- matching ----------------


def _follow(root: Any, path: str) -> Any:
    import tensorflow as tf

    obj = root
    for part in path.split("/"):
        children = tf.train.TrackableView(obj).children(obj)
        if part not in children:
            return None
        obj = children[part]
    return obj


def _var_path(var: Any) -> str:
    return str(getattr(var, "path", None) or getattr(var, "name", "variable"))


def is_rng_state(var: Any) -> bool:
    """Whether ``var`` is a Keras seed generator's state (may be absent from or extra in
    a checkpoint)."""
    return _var_path(var).rsplit("/", 1)[-1].startswith("seed_generator_state")


def restore_objects(prefix: Path | str, roots: Mapping[str, Any], variables: list[Any],
                    by_order: bool = False) -> MatchReport:
    """Load a checkpoint into ``roots`` (name -> trackable) and report the match.

    Args:
        variables: the variables that should all get a value (for ``missing``).
        by_order: pair leftover tensors with leftover variables in order when shapes agree.
    """
    from tfcore.runs.ckpt_checks import check_files

    check_files(prefix)             # a FIFO in place of a file: refused, never waited on
    import tensorflow as tf

    try:
        reader = tf.train.load_checkpoint(str(prefix))
        shapes = reader.get_variable_to_shape_map()
    except Exception as exc:  # noqa: BLE001 - damage is data
        return MatchReport(missing=tuple(_var_path(v) for v in variables),
                           problems=(f"cannot open {Path(prefix).name}: {exc}".splitlines()[0],))
    root = tf.train.Checkpoint(**roots)
    aliases = object_graph_aliases(reader)
    problems: list[str] = []
    if OBJECT_GRAPH_KEY in shapes and not aliases:
        problems.append(_assign(reader, OBJECT_GRAPH_KEY, None) or
                        f"{OBJECT_GRAPH_KEY}: the object graph is empty")
    # Random-number state (Dropout, noise, random augmentation layers) is not learned and
    # tf.train.Checkpoint does not save Keras seed generators: never "missing".
    wanted = {id(v): v for v in variables if not is_rng_state(v)}
    loaded: set[int] = set()
    matched, mismatch, unused = [], [], []
    ignored = 0
    for key in sorted(shapes):
        if key == OBJECT_GRAPH_KEY:
            continue
        paths = aliases.get(key) or (key.split("/.ATTRIBUTES")[0],)
        if all(p.split("/")[0] in IGNORED_ROOTS or p.split("/")[0] not in roots for p in paths):
            ignored += 1
            continue
        target = next((t for p in paths if (t := _follow(root, p)) is not None
                       and hasattr(t, "assign")), None)
        if target is None:
            unused.append(key)
            continue
        model_shape = tuple(int(d) for d in target.shape)
        if tuple(shapes[key]) != model_shape:
            mismatch.append((key, _var_path(target), tuple(shapes[key]), model_shape))
            continue
        problem = _assign(reader, key, target)
        if problem:
            problems.append(problem)
            continue
        loaded.add(id(target))
        matched.append((key, _var_path(target)))
    pairs: list[tuple[str, str]] = []
    leftover = [v for i, v in wanted.items() if i not in loaded]
    if by_order and unused and leftover:
        pairs, unused, leftover = _pair_by_order(reader, shapes, unused, leftover, problems)
        loaded.update(id(v) for v in wanted.values() if _var_path(v) in {p for _, p in pairs})
    missing = tuple(_var_path(v) for i, v in wanted.items() if i not in loaded)
    return MatchReport(matched=tuple(matched), by_order=tuple(pairs),
                       shape_mismatch=tuple(mismatch), missing=missing, unused=tuple(unused),
                       ignored=ignored, problems=tuple(problems))


def _assign(reader: Any, key: str, target: Any) -> str | None:
    try:
        value = reader.get_tensor(key)
        if target is not None:
            target.assign(value)
    except Exception as exc:  # noqa: BLE001 - a truncated data file surfaces here
        return f"{key}: cannot be read ({str(exc).strip().splitlines()[0][:160]})"
    return None


def _pair_by_order(reader, shapes, unused, leftover, problems):
    keys = [k for k in unused if shapes[k]]
    pairs, used_keys, used_vars = [], set(), set()
    for key, var in zip(keys, leftover):
        if tuple(shapes[key]) != tuple(int(d) for d in var.shape):
            break
        problem = _assign(reader, key, var)
        if problem:
            problems.append(problem)
            break
        pairs.append((key, _var_path(var)))
        used_keys.add(key)
        used_vars.add(id(var))
    return (pairs, [k for k in unused if k not in used_keys],
            [v for v in leftover if id(v) not in used_vars])


def guess_root(prefix: Path | str) -> str:
    """The top-level name most saved tensors sit under (``myModel`` in the tutorial)."""
    import tensorflow as tf

    counts: dict[str, int] = {}
    for key, _ in tf.train.list_variables(str(prefix)):
        head = key.split("/")[0]
        if key != OBJECT_GRAPH_KEY and head not in IGNORED_ROOTS + ("step", "optimizer"):
            counts[head] = counts.get(head, 0) + 1
    return max(counts, key=counts.get) if counts else "model"


def restore_spec(prefix: Path | str, spec: Any, root: str | None = None,
                 by_order: bool = True) -> Restored:
    """Build ``spec`` and load a (possibly foreign) checkpoint into it, with a match report."""
    from tfcore.model import build_model

    prefix = resolve_prefix(prefix)
    model = build_model(spec)
    root = root or guess_root(prefix)
    report = restore_objects(prefix, {root: model}, list(model.variables), by_order=by_order)
    return Restored(model=model, optimizer=None, prefix=prefix, step=None, report=report)


# ---------------------------------------------------------------- runs -----------------


def run_request(run_dir: Path | str) -> dict:
    """The run's ``run.json``.

    Raises:
        RunError: missing or unreadable (a run without ``run.json`` cannot be rebuilt).
    """
    paths = RunPaths(Path(run_dir))
    request = read_json(paths.run_json)
    if not isinstance(request, dict) or "spec" not in request:
        raise RunError(key="runs.err.no_run_json", params={"run": paths.run_id})
    return request


def train_config(training: Mapping[str, Any] | None) -> Any:
    """The run's TrainConfig (the worker's own registry of optimizers, losses, metrics)."""
    from tfcore.training import TrainConfig

    return TrainConfig.from_dict(training)


def make_optimizer(training: Mapping[str, Any] | None) -> Any:
    """An optimizer of the run's type, built the way the worker builds it."""
    from tfcore.training import make_optimizer as worker_optimizer

    config = train_config(training)
    return worker_optimizer(config, max(1, config.steps or 1000), 1)


def restore_run(run_dir: Path | str, number: int | None = None,
                with_optimizer: bool = False, require_complete: bool = False) -> Restored:
    """Rebuild the run's model from its spec and load checkpoint ``number`` (latest: None).

    Args:
        require_complete: raise instead of returning a partial restore.

    Raises:
        RunError: the run has no run.json; CheckpointError: no such checkpoint, or (with
            ``require_complete``) a checkpoint that does not fit the model.
    """
    from tfcore.model import build_model, from_dict
    from tfcore.runs.ckpt_checks import check_files

    request = run_request(run_dir)
    entry = list_checkpoints(run_dir, verify=False).get(number)
    check_files(entry.prefix)       # refused before TensorFlow is even imported
    import tensorflow as tf

    model = build_model(from_dict(request["spec"]))
    roots: dict[str, Any] = {"step": tf.Variable(0, dtype=tf.int64), "model": model}
    variables = list(model.variables)
    optimizer = None
    if with_optimizer:
        optimizer = make_optimizer(request.get("training") or {})
        optimizer.build(model.trainable_variables)
        roots["optimizer"] = optimizer
        variables += list(optimizer.variables)
    report = restore_objects(entry.prefix, roots, variables)
    step = int(roots["step"].numpy()) if any(k.startswith("step/") for k, _ in report.matched) \
        else entry.number
    if require_complete and not report.complete:
        raise CheckpointError(key="runs.err.incomplete", params={"ckpt": entry.prefix.name},
                              details=list(report.problems) + list(report.missing))
    return Restored(model=model, optimizer=optimizer, prefix=entry.prefix, step=step,
                    report=report)


def variable_labels(run_dir: Path | str, number: int | None = None) -> dict[str, str]:
    """Checkpoint key -> the run model's (or optimizer's) variable path, e.g.
    ``optimizer/_trainable_variables/0/...`` -> ``dense/kernel``; ``{}`` when the run's
    model cannot be rebuilt."""
    try:
        restored = restore_run(run_dir, number, with_optimizer=True)
    except Exception:  # noqa: BLE001 - labels are a convenience; damage is shown elsewhere
        return {}
    pairs = restored.report.matched + restored.report.by_order
    return {key: ("step" if key.startswith("step/") else path) for key, path in pairs}


def reported_test_metrics(run_dir: Path | str, step: int | None) -> dict[str, float] | None:
    """The ``test`` record the worker wrote at ``step`` (None when there is none)."""
    records = read_metrics(RunPaths(Path(run_dir)).metrics).records
    found = [r for r in records
             if r.get("split") == "test" and (step is None or r.get("step") == step)]
    if not found:
        return None
    skip = {"step", "epoch", "time", "elapsed", "split", "samples_per_sec"}
    return {k: float(v) for k, v in found[-1].items()
            if k not in skip and isinstance(v, (int, float))}


def evaluate_run(run_dir: Path | str, number: int | None = None, split: str = "test",
                 limit: int | None = None) -> EvalResult:
    """Restore a checkpoint and evaluate it on the run's own split of its dataset.

    A checkpoint that does not fit returns an EvalResult with empty metrics and the
    match report (nothing is raised for damage).
    """
    from tfcore.data import DatasetRequest, load_dataset

    run_dir = Path(run_dir)
    request = run_request(run_dir)
    restored = restore_run(run_dir, number)
    training = request.get("training") or {}
    base = dict(run_id=run_dir.name, checkpoint=restored.prefix.name, step=restored.step,
                split=split, report=restored.report,
                reported=reported_test_metrics(run_dir, restored.step) if split == "test" else None)
    if not restored.report.complete:
        return EvalResult(examples=0, metrics={}, **base)
    bundle = load_dataset(DatasetRequest.from_dict(request["dataset"]))
    x, y = bundle.split(split)
    if limit:
        x, y = x[:limit], y[:limit]
    from tfcore.training import evaluate_split

    values = evaluate_split(restored.model, x, y, train_config(training)).metrics
    return EvalResult(examples=int(len(x)), metrics={k: float(v) for k, v in values.items()},
                      **base)


@dataclass(frozen=True)
class Predictions:
    """A few test examples with true and predicted labels (or values)."""

    x: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    confidence: np.ndarray
    class_names: tuple[str, ...] = ()


def predict_run(run_dir: Path | str, number: int | None = None, count: int = 8) -> Predictions:
    """Predict the first ``count`` test examples with a restored checkpoint.

    Raises:
        CheckpointError: the checkpoint does not fit the run's model.
    """
    from tfcore.data import DatasetRequest, load_dataset

    request = run_request(run_dir)
    restored = restore_run(run_dir, number, require_complete=True)
    bundle = load_dataset(DatasetRequest.from_dict(request["dataset"]))
    x, y = bundle.split("test")
    x, y = np.asarray(x[:count]), np.asarray(y[:count])
    out = np.asarray(restored.model.predict(x, verbose=0))
    if bundle.info.task == "classification" and out.ndim == 2 and out.shape[1] > 1:
        pred, conf = out.argmax(axis=1), out.max(axis=1)
    else:
        pred, conf = out.reshape(len(x), -1)[:, 0], np.full(len(x), np.nan)
    return Predictions(x=x, y_true=y, y_pred=pred, confidence=conf,
                       class_names=tuple(bundle.info.class_names))
