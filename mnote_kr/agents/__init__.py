"""Agent tools: the three read-only knowledge tools (query, open a reference, status), over MCP.

A face like ``cli`` and ``server``: built on ``Host``, never imported by the core.
``contracts`` holds what an agent sees (compact msgspec shapes and their JSON Schemas),
``tools`` runs a tool call against a ``Host``, ``mcp_server`` wires both to the ``mcp`` SDK.
"""
