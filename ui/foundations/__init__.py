"""The foundations pages: tensors, gradients, regression, charts and shared widgets.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.foundations.charts import composition_chart, label_order_chart, throughput_chart
from ui.foundations.gradients import gd_tab, tape_tab
from ui.foundations.pipeline_folders import folder_section
from ui.foundations.placement_mirrored import mirrored_section
from ui.foundations.tensors import saving_tab, tensors_tab

__all__ = [
    "composition_chart", "folder_section", "gd_tab", "label_order_chart", "mirrored_section",
    "saving_tab", "tape_tab", "tensors_tab", "throughput_chart",
]
