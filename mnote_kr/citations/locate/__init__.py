"""Locate stage: the paragraph a citation's evidence came from, the ``locate`` command and the budget
checks before a container is parsed.
"""
