"""The browser viewer and search page of ``mnote-kr serve``: pages, static files, the shipped CJK font,
relocation and the system's own viewer.

Beside ``server`` (which mounts it), above ``app``.
"""
