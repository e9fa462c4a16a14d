"""Foundations labs from the command line: ``grad``, ``regress``, ``tensor``, ``pipeline``,
``placement``; each prints one JSON document."""

from __future__ import annotations

import argparse

from tfcore.cli import print_json
from tfcore.cli.inputs import int_range
from tfcore.cli.vocabulary import add_flag, command
from tfcore.errors import TFLabError


def _assignments(items: list[str]) -> dict[str, list[float]]:
    """``["x=3", "w=1,2"]`` -> ``{"x": [3.0], "w": [1.0, 2.0]}``."""
    out = {}
    for item in items or []:
        name, _, text = item.partition("=")
        try:
            out[name.strip()] = [float(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise TFLabError(key="cli.err.set_item", params={"item": item}) from None
    return out


def _grad(args: argparse.Namespace) -> int:
    from tfcore.labs import evaluate

    values = {k: (v[0] if len(v) == 1 else v) for k, v in _assignments(args.set).items()}
    print_json(evaluate(args.expression, values).to_dict())
    return 0


def _regress(args: argparse.Namespace) -> int:
    from tfcore.labs import solve

    snap = solve(args.problem, args.steps, args.optimizer, args.lr)
    print_json({**snap.to_dict(), "first_loss": float(snap.loss_history[0])})
    return 0


def _tensor(args: argparse.Namespace) -> int:
    from tfcore.labs import apply_op, create_tensor

    a = create_tensor("constant", text=args.a, dtype=args.dtype)
    inputs, names = [a], ["a"]
    if args.b is not None:
        inputs.append(create_tensor("constant", text=args.b, dtype=args.dtype))
        names.append("b")
    params = {k: v for k, v in (("axis", args.axis), ("shape", args.shape)) if v is not None}
    result = apply_op(args.op, inputs, names, **params)
    print_json(result.to_dict())
    return 0


def _pipeline(args: argparse.Namespace) -> int:
    from tfcore.labs import PipelineSpec, label_order, pipeline_code

    if args.folders is not None:
        return _folder_pipeline(args)
    spec = PipelineSpec(shuffle_buffer=args.buffer, batch_size=args.batch_size,
                        seed=args.seed)
    order = label_order(spec, batches=args.batches)
    print_json({"code": pipeline_code(spec),
                "classes_per_batch": order.classes_per_batch.tolist(),
                "labels": [order.labels[order.batch == i].tolist()
                           for i in range(len(order.classes_per_batch))]})
    return 0


def _folder_pipeline(args: argparse.Namespace) -> int:
    """``pipeline --folders sample|<upload folder>``: tf.data from image files in class
    folders; prints the code, the first batch's shape, dtype and labels."""
    from tfcore.labs import FolderSpec, first_folder_batch
    from tfcore.workspace import default_workspace

    spec = FolderSpec(source=args.folders, image_size=args.image_size,
                      channels=args.channels, shuffle_buffer=args.buffer,
                      batch_size=args.batch_size, seed=args.seed)
    batch = first_folder_batch(spec, default_workspace())
    print_json({"code": batch.code, "classes": list(batch.scan.classes),
                "files_per_class": list(batch.scan.counts), "shape": list(batch.shape),
                "dtype": batch.dtype, "labels": batch.labels.tolist(),
                "label_names": batch.label_names})
    return 0


def _placement(args: argparse.Namespace) -> int:
    from tfcore.labs import logical_devices, place, try_all_gpus, try_gpu

    placed = place(args.device or try_gpu(0))
    print_json({"devices": logical_devices(), "try_gpu(0)": try_gpu(0),
                "try_all_gpus()": try_all_gpus(), "requested": placed.requested,
                "device": placed.device})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "grad", "value and gradients of a GradientTape lab expression",
                ["python -m tfcore grad t2",
                 "python -m tfcore grad product --set x=1 --set y=5 --set z=2"])
    p.add_argument("expression", help="square, t2, sigmoid, cubic or product")
    p.add_argument("--set", action="append", metavar="NAME=V[,V]",
                   help="a variable's value, e.g. --set x=3 or --set w=1,2")
    p.set_defaults(func=_grad)
    p = command(sub, "regress", "gradient descent on M1 or M2 from zero (JSON)",
                ["python -m tfcore regress m1",
                 "python -m tfcore regress m2 --optimizer adam --lr 0.1 --steps 200"])
    p.add_argument("problem", choices=["m1", "m2"])
    add_flag(p, "steps", type=int, default=None, help="default: the scenario's count")
    add_flag(p, "optimizer", default=None, help="sgd, momentum, adam, rmsprop, adagrad")
    add_flag(p, "lr", type=float, default=None, help="learning rate")
    p.set_defaults(func=_regress)
    p = command(sub, "tensor", "apply one catalog operation to typed matrices",
                ["python -m tfcore tensor matmul '1 2; 3 4' '5 6; 7 8'",
                 "python -m tfcore tensor reduce_sum '1 2; 3 4' --axis 1"])
    p.add_argument("op", help="add, matmul, square, reduce_sum, reduce_mean, reshape, concat, "
                              "transpose, cast")
    p.add_argument("a", help="values, e.g. '1 2; 3 4'")
    p.add_argument("b", nargs="?", default=None, help="second tensor for two-input ops")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--axis", default=None)
    p.add_argument("--shape", default=None)
    p.set_defaults(func=_tensor)
    p = command(sub, "pipeline", "label order per batch of the sorted digits pipeline, or "
                "the first batch of image files read from class folders (--folders)",
                ["python -m tfcore pipeline --buffer 1 --batch-size 8 --batches 2",
                 "python -m tfcore pipeline --folders sample --buffer 1 --batch-size 16"])
    p.add_argument("--buffer", type=int, default=1, help="shuffle buffer (1 keeps order)")
    add_flag(p, "batch_size", type=int, default=32, help="examples per batch (32)")
    p.add_argument("--batches", type=int_range(1, 1000), default=3, metavar="N",
                   help="batches to show (3)")
    add_flag(p, "seed", type=int, default=0, help="shuffle seed (0)")
    p.add_argument("--folders", default=None, metavar="SOURCE",
                   help="read image files from class folders instead: 'sample' (digit PNGs "
                        "written to workspace/samples/digits_folders) or a folder in uploads")
    p.add_argument("--image-size", type=int_range(8, 256), default=28, metavar="N",
                   help="with --folders: resize to N x N (28)")
    p.add_argument("--channels", type=int, choices=[1, 3], default=1,
                   help="with --folders: 1 grayscale or 3 RGB (1)")
    p.set_defaults(func=_pipeline)
    p = command(sub, "placement", "devices, try_gpu, try_all_gpus, where a tensor lands",
                ["python -m tfcore placement",
                 "python -m tfcore placement --device /CPU:0"])
    add_flag(p, "device", default=None, help="e.g. /CPU:0 or /GPU:0")
    p.set_defaults(func=_placement)
