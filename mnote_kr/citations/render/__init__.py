"""Render stage: what a citation becomes for a reader (IDs, precision, source cards, open plans, why a
search has no result).
"""
