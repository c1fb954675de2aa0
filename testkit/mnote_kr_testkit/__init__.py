"""Helpers for mnote-kr's test suite and benchmarks; never shipped with mnote-kr or a plugin.

Its own distribution (``mnote-kr-testkit``, in ``testkit/``), installed by ``requirements.txt``
for development only, so an installed ``mnote-kr`` holds only what users run:

- ``data``: where the repository's test documents and recorded LightRAG payloads live
- ``fakes``: an in-process fake provider and a ``Host`` built on it
- ``engine``: the session fixture that runs the real ``lightrag-server``
- ``replay``: recorded LightRAG responses through ``httpx.MockTransport``
- ``docx_docs``, ``pdfs``, ``pdf_cases``: generated DOCX and PDF documents with known answers
- ``decks``, ``workbooks``: generated PPTX decks and XLSX workbooks
"""
