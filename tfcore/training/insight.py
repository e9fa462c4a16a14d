"""The insight recorder: a listener that records what a model looks like inside while it
trains, into the run directory's ``insight/`` (format:
:mod:`tfcore.rundir.insight_format`) and as TensorBoard histograms.

When a snapshot is taken (:class:`SnapshotPlan`): at the step an attempt starts from (step 0
of a new run: the initial weights), then every ``insight_every`` steps, or in auto mode
(``insight_every`` 0) spread evenly within :data:`BUDGET` of the training time (a snapshot
that cost ``c`` seconds is followed by ``c / BUDGET`` seconds of training; one is skipped
when it and the last step's would not fit in the budget of the whole run projected at the
rate so far), and at the last step. The probe's first pass pays a one-off warm-up
(TensorFlow's first calls of its ops and the extractor model). At a new start step that
pass is the start snapshot itself (a separate warm-up pass measured the same model a second
time: a third of the CNN bench's insight cost); an attempt whose start step is already
recorded (a resume) runs it alone and drops its results. Its seconds count in the budget
of the whole run, spread over it (the snapshots after it are spaced as if the budget were
smaller by the warm-up's share of the run's projected time), not paid before the next
frame: everything insight costs stays within :data:`BUDGET` of the training time (the
start and last step's snapshots are always taken), and a short run on a 2-D set still
draws frames from its first seconds on.
A snapshot is only
taken at a step whose model the loop has handed back (``TrainState.ahead == 0``): a
multi-step graph call reports its steps after it returns, when the model is already at
the call's last step.

The recorder runs in the chief only. A measurement that fails (a model the probe cannot
read) ends recording for the run with a note in ``status.json``; training goes on.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from tfcore.rundir import InsightWriter, RunPaths
from tfcore.training.callbacks import STOP_NAN, Listener, TrainState
from tfcore.training.insight_probe import (
    Probe,
    is_large,
    layer_infos,
    neuron_layers,
    plane_of,
    probe_batch,
    probe_size,
)
from tfcore.training.recorder import TRAIN_RUN, TBScalars

BUDGET = 0.03          # auto mode: snapshots may cost this share of the training time
# A steady snapshot's cost as a share of the probe's first pass, its estimate until a
# later snapshot measures it. Measured: 0.37 for the MLP bench, 0.8 for the CNN's (its
# pass on 32 examples, summed in float32). At 0.5 a snapshot after the start was taken on
# the CNN bench that left no room for the last one: 3.5 % of the run.
STEADY_SHARE = 1.0
MIN_GAP = 0.25         # auto mode: seconds between snapshots at least (a paced demo)
NOTE_FAILED = "insight recording stopped: {error}"


class SnapshotPlan:
    """When the next snapshot is due: every ``every`` steps, or (``every`` 0) in auto mode,
    spread evenly within ``budget`` of the training time (the time since the start, less
    the snapshots' own and the probe's one-off warm-up, :meth:`warmed`).

    Auto mode: a snapshot that cost ``c`` seconds is followed by ``c / rate`` seconds of
    training before the next (at least ``min_gap`` seconds of the clock), where ``rate`` is
    the budget less the warm-up's share of the run's projected training time: the first
    frame after the start comes as soon as the rate has paid for the start's, not three
    snapshots later, and the frames stay evenly spaced to the end. Given the
    run's last step, a snapshot is also skipped when it and the last step's (always taken,
    reserved as one more like the last) would not fit in the budget of the whole run's
    training time, projected at the rate since the first step was reported (the first
    call, which pays the training graph's trace, is no sample of the rate: projected from
    it, a 1.7 s run looked like 40 s long and took a snapshot it had no budget for); the
    warm-up counts in that cost. No auto snapshot is taken before that rate is known.
    ``clock`` is ``time.perf_counter``
    unless a test gives one; ``first_step`` is the step the attempt started from."""

    def __init__(self, every: int, budget: float | None = None, min_gap: float = MIN_GAP,
                 clock: Callable[[], float] = time.perf_counter, first_step: int = 0) -> None:
        self.every, self.min_gap, self.clock = every, min_gap, clock
        self.budget = BUDGET if budget is None else budget
        self.first_step = first_step
        self.started = clock()
        self.spent = 0.0               # seconds of every snapshot and the warm-up so far
        self.warmup = 0.0              # of which the probe's warm-up
        self.last_cost = 0.0
        self.last_at = float("-inf")
        self.next_at = 0.0             # training time the next auto snapshot waits for
        self.whole: float | None = None    # the run's projected training time, when known
        self.first: tuple[float, int] | None = None   # (training time, step) first reported
        self.taken = 0

    def training_time(self) -> float:
        return max(0.0, self.clock() - self.started - self.spent)

    def projected(self, step: int, last_step: int) -> float | None:
        """The whole attempt's training time: the time so far and the steps left at the
        rate since the first reported step (None until a later step is reported)."""
        if self.first is None or step <= self.first[1] or last_step <= step:
            return None
        now = self.training_time()
        rate = (now - self.first[0]) / (step - self.first[1])
        return now + rate * (last_step - step)

    def due(self, step: int, last_step: int | None = None) -> bool:
        if self.every:
            return step % self.every == 0
        if self.first is None and step > self.first_step:
            self.first = (self.training_time(), step)
        if self.clock() - self.last_at < self.min_gap or self.training_time() < self.next_at:
            return False
        if last_step is None:
            return True
        whole = self.projected(step, last_step)
        if whole is None:
            return False               # the rate is not known yet (or no step is left)
        self.whole = whole
        # room for this snapshot and for the last step's, which is always taken
        return self.spent + 2 * self.last_cost <= self.budget * whole * (1 + 1e-9)

    def warmed(self, seconds: float) -> None:
        """Count the probe's one-off warm-up of ``seconds``: in the whole run's budget (it
        narrows the rate the snapshots after it are spaced at), not a snapshot, not
        training time."""
        self.warmup += seconds
        self.spent += seconds

    def opened(self, seconds: float) -> None:
        """Count the start snapshot that was also the probe's first pass: its ``seconds``
        count like the warm-up (in the whole run's budget, narrowing the rate; they hold no
        frame back). The last step's snapshot, always taken, is reserved at
        :data:`STEADY_SHARE` of them until a later snapshot measures the steady cost."""
        self.warmed(seconds)
        self.last_cost = seconds * STEADY_SHARE
        self.last_at = self.clock()
        self.taken += 1

    def took(self, seconds: float) -> None:
        """Count a snapshot that took ``seconds``."""
        self.spent += seconds
        self.last_cost = seconds
        self.last_at = self.clock()
        self.next_at = self.training_time() + seconds / self.rate()
        self.taken += 1

    def rate(self) -> float:
        """The share of training time the snapshots may cost: the budget less the
        warm-up's share of the run's projected time (before a projection, the budget; at
        least a tenth of it, the whole-run check in :meth:`due` then decides)."""
        if not self.warmup or not self.whole:
            return self.budget
        return max(self.budget / 10, self.budget - self.warmup / self.whole)


class TBHistograms:
    """Histogram summaries in ``tb/train/`` as ``keras.callbacks.TensorBoard``'s
    ``histogram_freq`` writes them (tag ``<variable path>/histogram``, the histograms
    plugin's ``[bins, 3]`` tensor of left edge, right edge, count), serialized here into an
    event file of their own: no TensorFlow op per variable."""

    def __init__(self, tb_dir: Path) -> None:
        from tensorflow.core.framework import summary_pb2

        self.file = TBScalars(Path(tb_dir) / TRAIN_RUN)
        self.metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="histograms"))

    def write(self, step: int, hist: Mapping[str, dict]) -> None:
        from tensorflow.core.framework import summary_pb2, tensor_pb2, tensor_shape_pb2, \
            types_pb2
        from tensorflow.core.util import event_pb2

        values = []
        for path, item in hist.items():
            counts = np.asarray(item["counts"], np.float64)
            edges = np.linspace(item["lo"], item["hi"], len(counts) + 1)
            table = np.stack([edges[:-1], edges[1:], counts], axis=1)
            shape = tensor_shape_pb2.TensorShapeProto(dim=[
                tensor_shape_pb2.TensorShapeProto.Dim(size=len(counts)),
                tensor_shape_pb2.TensorShapeProto.Dim(size=3)])
            tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_shape=shape,
                                            tensor_content=table.astype("<f8").tobytes())
            values.append(summary_pb2.Summary.Value(
                tag=f"{path.replace(':', '_')}/histogram", metadata=self.metadata,
                tensor=tensor))
        event = event_pb2.Event(wall_time=time.time(), step=int(step),
                                summary=summary_pb2.Summary(value=values))
        self.file.write_events([event.SerializeToString()])
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class InsightRecorder(Listener):
    """Records snapshots of ``model`` into the run's ``insight/`` and TensorBoard.

    Args:
        paths: the run directory.
        model: the model to read (for a cluster run, a plain copy that ``refresh`` fills
            with the trained weights before each snapshot).
        bundle: the data set (probe batch, the plane of a 2-D set).
        config: the run's TrainConfig (loss, ``insight_every``).
        start: the step this attempt starts from.
        report: called with a note for ``status.json`` when recording stops.
    """

    def __init__(self, paths: RunPaths, model: Any, bundle: Any, config: Any, start: int,
                 report: Callable[[str], None] = lambda note: None,
                 refresh: Callable[[], None] | None = None) -> None:
        self.paths, self.model, self.refresh, self.report = paths, model, refresh, report
        self.every = int(config.insight_every)
        self.plan = SnapshotPlan(self.every, first_step=start)
        self.writer: InsightWriter | None = None
        self.board: TBHistograms | None = None
        self.last_step = -1
        self.warm = False              # the probe's first pass done (its warm-up)
        try:
            self._open(bundle, config, start)
        except Exception as exc:  # noqa: BLE001 - recording never ends a run
            self._stop(exc)

    def _open(self, bundle: Any, config: Any, start: int) -> None:
        width = int(np.prod(self.model.outputs[0].shape[1:])) if getattr(
            self.model, "outputs", None) else 1
        plane = plane_of(bundle, width)
        neurons, reason = neuron_layers(self.model, plane)
        x, y = probe_batch(bundle.x_train, bundle.y_train,
                           probe_size(config.batch_size, is_large(self.model)))
        self.probe = Probe(self.model, x, y, config.loss, plane, neurons)
        self.writer = InsightWriter(self.paths.root)
        self.recorded = self.writer.rewind(start)
        self.writer.write_meta({"every": self.every, "layers": layer_infos(self.model),
                                "plane": plane, "neurons": neurons,
                                "neurons_reason": reason, "probe": len(x)})
        self.board = TBHistograms(self.paths.tb_dir)

    def _stop(self, exc: BaseException) -> None:
        error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        self.close()
        self.report(NOTE_FAILED.format(error=error))

    @property
    def active(self) -> bool:
        return self.writer is not None

    def snapshot(self, state: TrainState, first: bool = False) -> None:
        """Measure the model now (at ``state.step``) and write the snapshot; ``first``:
        the probe's first pass (its warm-up is in its cost, :meth:`SnapshotPlan.opened`)."""
        began = time.perf_counter()
        try:
            if self.refresh is not None:
                self.refresh()
            probe = self.probe
            hist = probe.weights()
            norms, dead = probe.gradients()
            grid = probe.grid() if probe.plane is not None else None
            if grid is not None:
                self.writer.write_grid(state.step, grid["conf"], grid["cls"],
                                       grid["neurons"], grid["kernels"])
            cost = time.perf_counter() - began
            self.writer.append({"step": state.step, "epoch": state.epoch,
                                "time": round(time.time(), 3), "hist": hist, "grad_norm": norms,
                                "dead": dead, "grid": grid is not None,
                                "cost": round(cost, 4)})
            self.board.write(state.step, hist)
        except Exception as exc:  # noqa: BLE001 - recording never ends a run
            self._stop(exc)
            return
        self.last_step = state.step
        if first:
            self.warm = True
            self.plan.opened(time.perf_counter() - began)
        else:
            self.plan.took(time.perf_counter() - began)

    def warm_up(self) -> None:
        """The probe's first pass, its results dropped (an attempt whose start step is
        already recorded): the one-off cost of TensorFlow's first calls, kept out of the
        snapshots' measured cost (the auto budget pays it)."""
        began = time.perf_counter()
        try:
            if self.refresh is not None:
                self.refresh()
            self.probe.weights()
            self.probe.gradients()
            if self.probe.plane is not None:
                self.probe.grid()
        except Exception as exc:  # noqa: BLE001 - recording never ends a run
            self._stop(exc)
            return
        self.warm = True
        self.plan.warmed(time.perf_counter() - began)

    def on_train_start(self, state: TrainState) -> None:
        self.plan = SnapshotPlan(self.every, first_step=state.step)
        if self.active and state.step not in self.recorded:
            self.snapshot(state, first=not self.warm)
        elif self.active and not self.warm:
            self.warm_up()

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if (self.active and not state.ahead and state.step < state.total_steps
                and state.stop_reason is None
                and self.plan.due(state.step, state.total_steps)):
            self.snapshot(state)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        if self.active and state.stop_reason != STOP_NAN and self.last_step != state.step:
            self.snapshot(state)
        self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.board is not None:
            self.board.close()
            self.board = None
        self.probe = None        # its compiled graphs hold the model: free them with the run
