"""Every ``keras.applications`` constructor through import -> spec -> build -> code.

For each model (``weights=None``, a small square input of ``--size`` pixels where the
constructor takes one, else its own) prints the parameter count of the original and of the
model rebuilt from its spec, whether the Keras configs are equal, then the generated code
in every style that can express the model (functional and subclass always; sequential and
container for a chain), each run in a fresh namespace: its parameter count, and with the
original's weights loaded the largest absolute difference of the outputs on a fixed input
(must be 0). Exits 1 when any fails. ``--keras-file`` goes through a saved ``.keras`` file
(slower: writes every model to disk); ``--only NAME`` checks some models.

The workspace's model limits (50 million parameters, 2 GiB: a shared classroom server's
defaults) would refuse a dozen of the 40 (VGG16, ConvNeXtBase ... ConvNeXtXLarge at 350
million), so this bench raises them for its own process to ``--max-params`` and
``--max-model-mb`` unless the environment sets them, as a GPU server's owner would.

    .venv/bin/python bench/bench_import_apps.py
    .venv/bin/python bench/bench_import_apps.py --keras-file --only MobileNetV2 ResNet50
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tfcore import settings
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()
APP_PARAMS, APP_MB = 400_000_000, 16_384          # ConvNeXtXLarge: 350 million, 1.4 GB


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keras-file", action="store_true", help="save and load a .keras file")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--size", type=int, default=96, help="input pixels (default 96)")
    parser.add_argument("--max-params", type=int, default=APP_PARAMS,
                        help=f"the parameter limit for this run (default {APP_PARAMS:,})")
    parser.add_argument("--max-model-mb", type=int, default=APP_MB,
                        help=f"the model size limit in MiB for this run (default {APP_MB:,})")
    return parser


ARGS = _parser().parse_args()
# Before the model package reads its limits (at import): the bench's own, unless the
# environment names them.
os.environ.setdefault(settings.PARAM_LIMIT.name, str(ARGS.max_params))
os.environ.setdefault(settings.MAX_MODEL_MB.name, str(ARGS.max_model_mb))

from tfcore.model.codegen import STYLES, generate  # noqa: E402 - after the limits are set
from tfcore.model.roundtrip import app_constructors, code_round_trip, round_trip  # noqa: E402


def _make(make, size: int):
    """The model at ``size`` x ``size`` pixels with logits out (a softmax of random weights
    is flat, which would hide a difference), or what the constructor accepts of that."""
    for kwargs in ({"input_shape": (size, size, 3), "classifier_activation": None},
                   {"input_shape": (size, size, 3)}, {}):
        try:
            return make(weights=None, **kwargs)
        except (ValueError, TypeError):
            continue
    return make(weights=None)


def _styles(spec) -> list[str]:
    out = []
    for style in STYLES:
        try:
            generate(spec, style)
        except Exception:  # noqa: BLE001 - a style that cannot express the model
            continue
        out.append(style)
    return out


def _check(name: str, make, via_file: bool, folder: Path, size: int):
    import keras

    model = _make(make, size)
    if via_file:
        from tfcore.model.keras_import import load_keras_file

        path = folder / f"{name}.keras"
        model.save(path)
        model = load_keras_file(path)
        path.unlink()
    result = round_trip(model)
    codes = [code_round_trip(model, result.spec, style) for style in _styles(result.spec)]
    del model
    keras.backend.clear_session()
    gc.collect()
    return result, codes


def main() -> int:
    args = ARGS
    apps = app_constructors()
    names = [n for n in apps if not args.only or n in args.only]
    print(f"{len(apps)} keras.applications constructors; checking {len(names)}"
          f"{' through .keras files' if args.keras_file else ''}; model limits "
          f"{settings.param_limit():,} parameters, {settings.max_model_mb():,} MiB")
    print(f"{'model':<20}{'original':>14}{'round trip':>14}  config  "
          f"{'code (styles)':<16}{'code params':>13}{'outputs max diff':>18}  seconds  result")
    failed = []
    counts = {"code": 0, "counts": 0, "outputs": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            start = time.perf_counter()
            try:
                result, codes = _check(name, apps[name], args.keras_file, Path(tmp),
                                       args.size)
            except Exception as exc:  # noqa: BLE001 - a failure is a result here
                failed.append(name)
                print(f"{name:<20}{'-':>14}{'-':>14}  -       "
                      f"{time.perf_counter() - start:7.1f}  FAIL {type(exc).__name__}: "
                      f"{str(exc).splitlines()[0][:120] if str(exc) else ''}")
                continue
            seconds = time.perf_counter() - start
            same = "same" if not result.diffs else "DIFF"
            code_ok = bool(codes) and len(codes) >= 2
            counts_ok = all(c.rebuilt == c.original for c in codes)
            diff = max((c.max_diff for c in codes), default=float("nan"))
            outputs_ok = bool(codes) and diff == 0.0
            counts["code"] += code_ok
            counts["counts"] += counts_ok and result.original == result.rebuilt
            counts["outputs"] += outputs_ok
            ok = result.ok and code_ok and counts_ok and outputs_ok
            verdict = "OK" if ok else "FAIL"
            if not ok:
                failed.append(name)
            styles = "+".join(c.style[:3] for c in codes)
            params = "same" if counts_ok else ",".join(f"{c.rebuilt:,}" for c in codes)
            print(f"{name:<20}{result.original:>14,}{result.rebuilt:>14,}  {same:<6}  "
                  f"{styles:<16}{params:>13}{diff:>18g}{seconds:9.1f}  {verdict}", flush=True)
            for line in result.diffs[:3]:
                print(f"    {line}")
    total = len(names)
    print(f"code runs {counts['code']}/{total}, parameter counts {counts['counts']}/{total}, "
          f"outputs equal {counts['outputs']}/{total}")
    print(f"{total - len(failed)}/{total} OK" + (f"; FAIL: {', '.join(failed)}"
                                               if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
