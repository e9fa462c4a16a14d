"""Every ``keras.applications`` constructor through import -> spec -> build.

For each model (``weights=None``) prints the parameter count of the original and of the
model rebuilt from its spec, whether the Keras configs are equal, and OK or FAIL; exits 1
when any fails. ``--keras-file`` goes through a saved ``.keras`` file (slower: writes every
model to disk); ``--only NAME`` checks some models.

    .venv/bin/python bench/bench_import_apps.py
    .venv/bin/python bench/bench_import_apps.py --keras-file --only MobileNetV2 ResNet50
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()

from tfcore.model.roundtrip import app_constructors, round_trip


def _check(name: str, make, via_file: bool, folder: Path):
    import keras

    model = make(weights=None)
    if via_file:
        from tfcore.model.keras_import import load_keras_file

        path = folder / f"{name}.keras"
        model.save(path)
        model = load_keras_file(path)
        path.unlink()
    result = round_trip(model)
    del model
    keras.backend.clear_session()
    gc.collect()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keras-file", action="store_true", help="save and load a .keras file")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    args = parser.parse_args()
    apps = app_constructors()
    names = [n for n in apps if not args.only or n in args.only]
    print(f"{len(apps)} keras.applications constructors; checking {len(names)}"
          f"{' through .keras files' if args.keras_file else ''}")
    print(f"{'model':<20}{'original':>14}{'round trip':>14}  config  seconds  result")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            start = time.perf_counter()
            try:
                result = _check(name, apps[name], args.keras_file, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - a failure is a result here
                failed.append(name)
                print(f"{name:<20}{'-':>14}{'-':>14}  -       "
                      f"{time.perf_counter() - start:7.1f}  FAIL {type(exc).__name__}: "
                      f"{str(exc).splitlines()[0][:120] if str(exc) else ''}")
                continue
            seconds = time.perf_counter() - start
            same = "same" if not result.diffs else "DIFF"
            verdict = "OK" if result.ok else "FAIL"
            if not result.ok:
                failed.append(name)
            print(f"{name:<20}{result.original:>14,}{result.rebuilt:>14,}  {same:<6}"
                  f"{seconds:9.1f}  {verdict}", flush=True)
            for line in result.diffs[:3]:
                print(f"    {line}")
    print(f"{len(names) - len(failed)}/{len(names)} OK" + (f"; FAIL: {', '.join(failed)}"
                                                         if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
