"""A run's insides while it learns (issue 25): the decision boundary and every neuron's
picture over the input plane, the weights and gradients over steps; drawn live on the Train
page and replayed on the Runs page from the run directory's ``insight/`` folder.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.insight.panels import insight_panel

__all__ = ["insight_panel"]
