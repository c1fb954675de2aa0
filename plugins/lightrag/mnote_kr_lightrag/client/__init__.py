"""Talking to a LightRAG server over HTTP: the client, the provider's hooks, queries, settings, and
what the connector places in LightRAG's input dir.
"""
