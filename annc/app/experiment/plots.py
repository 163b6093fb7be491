"""The plots of a sweep: mean test accuracy against depth and against width, one line per
method, with the 85% target (``table1_depth.{png,svg}``, ``table1_width.{png,svg}``).
Needs matplotlib (``pip install 'annc[plot]'``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .definitions import DEPTH_SWEEP_WIDTH, METHOD_NAMES, TARGET, WIDTH_SWEEP_DEPTH, sweep_axes

# method -> (colour, line style, marker): binary MIP solid, ReLU MIP dash-dot, binary SGD dashed, ReLU SGD dotted
STYLES = {
    "binary_mip": ("tab:red", "-", "s"), "greedy_binary_mip": ("tab:orange", "-", "D"),
    "greedy_binary_mip_sgd": ("tab:brown", "-", "^"), "binary_sgd": ("tab:blue", "--", "o"),
    "greedy_binary_sgd": ("tab:cyan", "--", "v"), "greedy_binary_sgd_sgd": ("tab:purple", "--", "<"),
    "relu_sgd": ("tab:green", ":", "o"), "relu_greedy_sgd": ("tab:olive", ":", "v"),
    "relu_greedy_sgd_sgd": ("tab:gray", ":", "<"),
    "relu_mip": ("tab:pink", "-.", "s"), "greedy_relu_mip": ("black", "-.", "D"),
}
# the authors' code as written: the colour and marker of its correct twin, thin and faded
STYLES.update({f"paper_{m}": STYLES[m] for m in ("binary_sgd", "greedy_binary_sgd", "greedy_binary_sgd_sgd",
                                                 "relu_sgd", "relu_greedy_sgd", "relu_greedy_sgd_sgd")})
PAPER_ALPHA = 0.45
XLABELS = {"depth": f"hidden layers ({DEPTH_SWEEP_WIDTH} units each)",
           "width": f"units per hidden layer ({WIDTH_SWEEP_DEPTH} hidden layers)"}


def plot(cells, methods, sweeps, depths, widths, out_dir) -> list[Path]:
    """Mean test accuracy against depth and against width (PNG and SVG); ``cells`` as
    :func:`annc.app.experiment.report.report` computes them."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("plotting needs matplotlib: pip install 'annc[plot]' "
                           "(or pass --no-plot)") from None
    out = Path(out_dir)
    written = []
    for sweep, xs, arch_of in sweep_axes(sweeps, depths, widths):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for m in methods:
            ys = [cells[(m, arch_of(x))].mean if (m, arch_of(x)) in cells else None for x in xs]
            ys = [np.nan if y is None else 100 * y for y in ys]
            if all(np.isnan(ys)):
                continue
            color, ls, marker = STYLES[m]
            paper = m.startswith("paper_")
            ax.plot(xs, ys, ls, color=color, marker=marker, label=METHOD_NAMES[m],
                    alpha=PAPER_ALPHA if paper else 1.0, lw=1.0 if paper else 1.6, markerfacecolor="none" if paper else color)
        ax.axhline(100 * TARGET, color="black", lw=1, ls="-.", label="85% target")
        ax.set_xlabel(XLABELS[sweep])
        ax.set_ylabel("mean test accuracy (%)")
        ax.set_xticks(xs)
        ax.set_title(f"Table 1, {sweep} sweep")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        for ext in ("png", "svg"):
            p = out / f"table1_{sweep}.{ext}"
            fig.savefig(p, dpi=130)
            written.append(p)
        plt.close(fig)
    return written
