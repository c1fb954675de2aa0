"""Map stage: the provider's request, and its references read back through sidecars to registry entries
(or to why a file is not citable).
"""
