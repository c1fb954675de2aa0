"""The application facade: ``Host`` opens a workspace, loads its plugins and drives the citation
pipeline.

Above storage (``core``), plugin loading and ``citations``; the sync of folders, the viewer and the
faces (server, agents, CLI) are built on it.
"""
