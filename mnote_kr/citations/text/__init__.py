"""Text primitives every stage's matcher shares: normalisation, CJK ranges, query terms.
"""
