"""The command that opens a citation's file in the system's own viewer, following its open plan.

A PDF with a known page opens at that page where the viewer takes a page on its command
line (Evince, Okular, Zathura, MuPDF, Xpdf, SumatraPDF); otherwise the desktop's default
opener (``xdg-open``, macOS ``open``, Windows ``start``) opens the file at its start.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable

from mnote_kr.citations.render.precision import page_hint
from mnote_kr.models import OpenPlan

Which = Callable[[str], str | None]

#: (program, argv builder for file and 1-based page), in order of preference.
PDF_AT_PAGE: tuple[tuple[str, Callable[[str, str, int], list[str]]], ...] = (
    ("evince", lambda exe, f, p: [exe, f"--page-index={p}", f]),
    ("okular", lambda exe, f, p: [exe, "-p", str(p), f]),
    ("zathura", lambda exe, f, p: [exe, "-P", str(p), f]),
    ("mupdf", lambda exe, f, p: [exe, f, str(p)]),
    ("xpdf", lambda exe, f, p: [exe, f, str(p)]),
    ("SumatraPDF", lambda exe, f, p: [exe, "-page", str(p), f]),
)


def open_command(plan: OpenPlan, *, which: Which = shutil.which, platform: str = sys.platform) -> list[str] | None:
    """argv that opens ``plan``'s file (at its page when a PDF viewer can), or None when nothing can."""
    path = plan.resource_path
    loc = plan.locator
    # a box's page, or the page a file citation knew without its place (``pageHint``)
    page = loc.page if loc.locator_precision == "bbox" else page_hint(loc)
    if plan.resource_kind == "pdf" and page:
        for program, build in PDF_AT_PAGE:
            exe = which(program)
            if exe:
                return build(exe, path, page)
    if platform == "darwin":
        return ["open", path]
    if platform.startswith("win"):
        return ["cmd", "/c", "start", "", path]
    opener = which("xdg-open")
    return [opener, path] if opener else None
