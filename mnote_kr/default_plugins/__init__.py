"""Built-in fallbacks, registered exactly like third-party plugins (``trylast``)."""
