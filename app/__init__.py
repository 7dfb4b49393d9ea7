"""Streamlit UI: the only package that imports streamlit. Pages are thin scripts over services."""
