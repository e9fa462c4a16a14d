"""Streamlit pieces shared by the pages: translation, navigation, errors, charts."""
