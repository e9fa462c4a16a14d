"""Plain-language reading of a timing result, as translation keys with parameters.

The engine decides what the numbers say; the page only translates the sentences
(keys ``timing.explain.*`` in ``ui/common/locales/<lang>/timing.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tfcore.timing.result import TimingResult

NO_GAIN = 1.1  # graph within 10% of eager: "barely helps"
OVERHEAD_BOUND = 0.15  # under 15% of the matmul peak: overhead, not arithmetic


@dataclass(frozen=True)
class Sentence:
    """One sentence of the explanation: a translation key and its parameters."""

    key: str
    params: dict = field(default_factory=dict)


def explain(result: TimingResult) -> list[Sentence]:
    """Sentences that say what the numbers mean for this model."""
    out: list[Sentence] = []
    ok = {m.mode: m for m in result.modes if m.ok}
    eager, graph = ok.get("eager"), ok.get("graph")
    if eager and graph:
        ratio = eager.median_s / graph.median_s
        params = {"ratio": ratio, "eager_ms": eager.median_s * 1e3,
                  "graph_ms": graph.median_s * 1e3}
        if ratio >= NO_GAIN:
            out.append(Sentence("timing.explain.graph_faster", params))
        elif ratio >= 1 / NO_GAIN:
            out.append(Sentence("timing.explain.graph_same", params))
        else:
            out.append(Sentence("timing.explain.graph_slower", params))
        saved = eager.median_s - graph.median_s
        if saved > 0:
            out.append(Sentence("timing.explain.payback", {
                "first_ms": graph.first_call_s * 1e3,
                "steps": max(1, int(round(graph.first_call_s / saved)))}))
    xla = ok.get("xla")
    if xla and graph:
        ratio = graph.median_s / xla.median_s
        out.append(Sentence("timing.explain.xla_faster" if ratio >= NO_GAIN else
                            "timing.explain.xla_same",
                            {"ratio": ratio, "compile_s": xla.first_call_s}))
    fit = ok.get("fit")
    if fit and graph:
        out.append(Sentence("timing.explain.fit", {"ratio": graph.median_s / fit.median_s}))
    fastest = min(ok.values(), key=lambda m: m.median_s, default=None)
    if fastest and fastest.utilization is not None:
        key = ("timing.explain.overhead_bound" if fastest.utilization < OVERHEAD_BOUND
               else "timing.explain.compute_bound")
        out.append(Sentence(key, {"percent": 100 * fastest.utilization,
                                  "gflops": (fastest.achieved_flops or 0) / 1e9,
                                  "peak": (result.peak_flops or 0) / 1e9}))
    failed = [m for m in result.modes if not m.ok]
    for mode in failed:
        out.append(Sentence("timing.explain.failed", {"mode": mode.mode,
                                                      "error": mode.error or ""}))
    return out
