"""The model graph a run's ``tb/train/`` holds, as ``keras.callbacks.TensorBoard`` writes
it: the op graph (TensorBoard's Graphs page, "Graph") and, for a Sequential or Functional
model, its Keras config as a ``graph_keras_model`` summary tagged ``keras`` (the
"Conceptual graph"). Encoded as ``Event`` protos and written into the sub-run's own event
file (:class:`tfcore.training.recorder.TBScalars`), so one attempt writes one file per
sub-run."""

from __future__ import annotations

import sys
import time
from typing import Any

KERAS_TAG, KERAS_PLUGIN = "keras", "graph_keras_model"


def _op_graph(model: Any, sample: Any) -> bytes:
    """The serialized GraphDef of the model's forward pass (inference), traced once for a
    batch shaped like ``sample`` (any batch size)."""
    import numpy as np
    import tensorflow as tf

    specs = tf.nest.map_structure(
        lambda a: tf.TensorSpec((None, *np.shape(a)[1:]), tf.as_dtype(np.asarray(a).dtype)),
        sample)
    forward = tf.function(lambda x: model(x, training=False))
    return forward.get_concrete_function(specs).graph.as_graph_def().SerializeToString()


def _keras_summary(model: Any, wall_time: float) -> Any:
    """The ``keras`` summary event of a Sequential or Functional model (None otherwise:
    Keras writes none for a subclassed model either)."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.util import tensor_util

    if type(model).__name__ not in ("Functional", "Sequential"):
        return None
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=KERAS_PLUGIN,
                                                           content=b"1"))
    value = summary_pb2.Summary.Value(tag=KERAS_TAG, metadata=metadata,
                                      tensor=tensor_util.make_tensor_proto(model.to_json()))
    return event_pb2.Event(wall_time=wall_time, step=0,
                           summary=summary_pb2.Summary(value=[value]))


def graph_events(model: Any, sample: Any) -> list[bytes]:
    """The serialized events of ``model``'s graph; a part that cannot be made is left out
    with a note on stderr (the worker's log), never an error: training goes on without it,
    as Keras' callback does."""
    from tensorboard.compat.proto import event_pb2

    now, events = time.time(), []
    try:
        events.append(event_pb2.Event(wall_time=now, graph_def=_op_graph(model, sample)))
    except Exception as exc:  # noqa: BLE001 - a graph is optional
        print(f"TensorBoard graph left out: {exc}", file=sys.stderr)
    try:
        keras_event = _keras_summary(model, now)
        if keras_event is not None:
            events.append(keras_event)
    except Exception as exc:  # noqa: BLE001
        print(f"TensorBoard conceptual graph left out: {exc}", file=sys.stderr)
    return [event.SerializeToString() for event in events]
