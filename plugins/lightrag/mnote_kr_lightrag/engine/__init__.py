"""The managed local LightRAG engine: its processes, guard, offline model service, embedders and
storage. Imports nothing of ``client``.
"""
