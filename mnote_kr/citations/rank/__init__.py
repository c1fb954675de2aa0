"""Rank stage: which place answers first (words, cues, meaning, the user's reranker), and an answer's
sentences grounded in cited places.
"""
