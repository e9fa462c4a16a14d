"""TF Lab engine: specs, models, weights, data, training runs, timing and checkpoints.

This package never imports streamlit; pages call into it and render what it returns.
"""

__version__ = "0.1.0"
