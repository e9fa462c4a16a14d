"""Custom code: write your own layers, losses and metrics (trusted servers only)."""

from ui.custom import custom_code_page

custom_code_page()
