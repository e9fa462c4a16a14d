"""Whether the last layer's output and the loss agree: one rule for the Train page, the
command line and the job manager (which writes the loss actually used into ``run.json``).

A classification loss reads either probabilities (a softmax or sigmoid output) or raw
scores (logits: a linear output), for one value per class (multi-class) or one value
(binary). When the output and the loss disagree only in that reading, the matching loss
is chosen and a one-line note says so; when no loss of the registry matches, the choice
refuses and names the layer and the activation that would fix it. A regression or
user-written loss, or a last layer the rule does not know: no opinion.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.messages import Text

OK, SWITCH, REFUSE = "ok", "switch", "refuse"
LOGITS, PROBS = "logits", "probabilities"
MULTI, BINARY = "multi", "binary"

# activation of the last layer -> what it outputs (others, e.g. relu: no opinion)
OUTPUT_OF = MappingProxyType({None: LOGITS, "linear": LOGITS, "softmax": "softmax",
                              "sigmoid": "sigmoid"})
READS = MappingProxyType({LOGITS: LOGITS, "softmax": PROBS, "sigmoid": PROBS})
# the English words for an output and for how a loss reads it (catalog: train.output.*)
OUTPUT_WORDS = MappingProxyType({LOGITS: "raw scores (no softmax)",
                                 "softmax": "probabilities (softmax)",
                                 "sigmoid": "probabilities (sigmoid)"})
# layers that pass their input's values on unchanged (at prediction time)
PASS_THROUGH = frozenset({"Dropout", "Identity", "ActivityRegularization", "GaussianNoise",
                          "GaussianDropout", "AlphaDropout", "SpatialDropout1D"})


@dataclass(frozen=True)
class LossKind:
    """What a classification loss expects: one value per class or one value, and whether
    it reads probabilities or logits."""

    family: str
    reads: str


LOSS_KINDS: Mapping[str, LossKind] = MappingProxyType({
    "sparse_categorical_crossentropy": LossKind(MULTI, PROBS),
    "sparse_categorical_crossentropy_logits": LossKind(MULTI, LOGITS),
    "categorical_crossentropy": LossKind(MULTI, PROBS),
    "binary_crossentropy": LossKind(BINARY, PROBS),
})
# (family, reads) -> the registry's loss for it (binary from logits: none)
MATCHING = MappingProxyType({(MULTI, PROBS): "sparse_categorical_crossentropy",
                             (MULTI, LOGITS): "sparse_categorical_crossentropy_logits",
                             (BINARY, PROBS): "binary_crossentropy"})
# the accuracy that goes with each family
ACCURACY = MappingProxyType({MULTI: "sparse_categorical_accuracy", BINARY: "binary_accuracy"})
# the activation a refused output needs: (family of the output, its activation)
FIX = MappingProxyType({MULTI: "softmax", BINARY: "sigmoid"})


@dataclass(frozen=True)
class LastLayer:
    """The layer that gives the model's (first) output, its activation and units."""

    name: str
    activation: str | None
    units: int | None


@dataclass(frozen=True)
class LossChoice:
    """The rule's answer: ``ok`` (keep ``asked``), ``switch`` (train with ``loss``, the
    note ``key``/``params`` says why) or ``refuse`` (set layer ``params['layer']``'s
    activation to ``fix``)."""

    verdict: str
    asked: str
    loss: str
    key: str = ""
    params: dict = field(default_factory=dict)
    fix: str | None = None
    metrics: tuple[str, ...] | None = None      # switched family: the matching accuracy

    def message(self) -> str:
        """The English one-line note or refusal (the command line, run.json, errors)."""
        p = self.params
        words = OUTPUT_WORDS[p["output"]]
        if self.verdict == SWITCH:
            return (f"The last layer {p['layer']!r} outputs {words}, so the loss is computed "
                    f"from {READS[p['output']]}: {p['loss']} (instead of {p['asked']}).")
        return (f"The last layer {p['layer']!r} outputs {words} with {p['units']} unit(s), "
                f"which {p['asked']} cannot read; set its activation to {self.fix!r}.")

    def settled(self, training: Mapping[str, Any]) -> dict:
        """``training`` with the chosen loss (a switched family: its accuracy first)."""
        training = dict(training)
        if self.verdict == SWITCH:
            training["loss"] = self.loss
            if self.metrics is not None and training.get("metrics"):
                others = [m for m in training["metrics"] if m not in ACCURACY.values()]
                training["metrics"] = [*self.metrics, *others]
        return training

    def error(self) -> RunError:
        """The refusal as a RunError (``train.err.output_loss``)."""
        return RunError(key="train.err.output_loss", params={
            **self.params, "output": Text(f"train.output.{self.params['output']}"),
            "fix": self.fix})


def _activation(layer: Any) -> tuple[bool, str | None]:
    """(known, activation) of one layer spec; unknown layers: (False, None)."""
    config = dict(layer.config or {})
    if layer.type == "Softmax":
        return True, "softmax"
    if layer.type == "Activation" or "activation" in config:
        act = config.get("activation")
        return True, act if isinstance(act, str) or act is None else "?"
    if layer.type in ("Dense", "EinsumDense"):
        return True, None                        # Keras's default: linear
    return False, None


def last_layer(spec: Any, units: int | None) -> LastLayer | None:
    """The layer whose activation the model's first output carries (Sequential: the last
    that is not a pass-through; Functional: walk back from the output); None: unknown."""
    by_name = {layer.name: layer for layer in spec.layers}
    name = spec.outputs[0] if spec.outputs else (spec.layers[-1].name if spec.layers else None)
    seen: set = set()
    while name in by_name and name not in seen:
        seen.add(name)
        layer = by_name[name]
        known, act = _activation(layer)
        identity = layer.type == "Activation" and act in (None, "linear")
        if layer.type not in PASS_THROUGH and not identity:
            return LastLayer(layer.name, act, units) if known else None
        name = _previous(spec, layer)
    return None


def _previous(spec: Any, layer: Any) -> str | None:
    """The layer feeding ``layer`` (Functional: its first input; Sequential: the one before)."""
    if layer.inputs:
        return layer.inputs[0]
    names = [entry.name for entry in spec.layers]
    index = names.index(layer.name)
    return names[index - 1] if index > 0 else None


def needs_classes(last: LastLayer | None, loss: str | None) -> bool:
    """Whether :func:`choose` needs the dataset's class count: one unit with a multi-class
    loss is a binary output only for two classes (else too few units: the fit check's)."""
    kind = LOSS_KINDS.get(loss or "sparse_categorical_crossentropy")
    return last is not None and last.units == 1 and kind is not None and kind.family == MULTI


def choose(last: LastLayer | None, loss: str | None, classes: int | None = None) -> LossChoice:
    """The rule: last layer (activation, units) + loss (+ the dataset's classes, when
    :func:`needs_classes`) -> ok / switch / refuse (a loss that is not a classification
    loss of the registry, or a last layer the rule does not know: ok)."""
    asked = loss or "sparse_categorical_crossentropy"
    kind = LOSS_KINDS.get(asked)
    output = OUTPUT_OF.get(last.activation, None) if last is not None else None
    if kind is None or output is None or last.units is None or \
            (needs_classes(last, asked) and classes != 2):
        return LossChoice(OK, asked, asked)
    family = BINARY if last.units == 1 else MULTI
    params = {"layer": last.name, "output": output, "units": last.units, "asked": asked,
              "family": family}
    impossible = (output == "softmax" and family == BINARY) or \
                 (output == "sigmoid" and family == MULTI)
    matching = None if impossible else MATCHING.get((family, READS[output]))
    if matching is None:
        return LossChoice(REFUSE, asked, asked, "train.output_refused", params, FIX[family])
    if matching == asked:
        return LossChoice(OK, asked, asked)
    metrics = (ACCURACY[family],) if family != kind.family else None
    return LossChoice(SWITCH, asked, matching, f"train.output_switched.{READS[output]}",
                      {**params, "loss": matching}, metrics=metrics)


def choose_for_spec(spec: Any, loss: str | None, classes: Any = None) -> LossChoice:
    """:func:`choose` for a model spec (its output units inferred without TensorFlow);
    ``classes``: the dataset's class count, or a function that gives it (asked only when
    the rule :func:`needs_classes`)."""
    from tfcore.training.fits import spec_shapes

    last = last_layer(spec, spec_shapes(spec).output_units)
    if callable(classes):
        classes = classes() if needs_classes(last, loss) else None
    return choose(last, loss, classes)


def settle_loss(request: Mapping[str, Any]) -> tuple[dict, LossChoice]:
    """``request`` (a ``run.json`` body) with the loss the rule chose and a ``loss_choice``
    record of why; raises the refusal as a RunError."""
    from tfcore.model import from_dict

    body = dict(request)
    training = dict(body.get("training") or {})
    choice = choose_for_spec(from_dict(dict(body["spec"])), training.get("loss"),
                             lambda: _classes(body))
    if choice.verdict == REFUSE:
        raise choice.error()
    if choice.verdict == SWITCH:
        body["training"] = choice.settled(training)
        body["loss_choice"] = {"asked": choice.asked, "used": choice.loss, "automatic": True,
                               "note": choice.message()}
    return body, choice


def _classes(request: Mapping[str, Any]) -> int | None:
    """The class count of a request's dataset (loaded; cached per request)."""
    from tfcore.data import load_dataset
    from tfcore.training.request import RunRequest

    return load_dataset(RunRequest.from_dict(request).dataset).info.num_classes
