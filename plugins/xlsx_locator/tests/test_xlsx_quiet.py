"""openpyxl's own warnings never reach the person's stderr. A workbook holding a WMF picture (docling's
emf workbook) made openpyxl print ``UserWarning: wmf image format is not supported so the image is being
dropped`` and its ``warn(msg)`` source line on stderr during indexing and on every search citing it, with
``--json`` too (nc17b P9); stderr carries mnote-kr's own lines only. Pictures are no text the locator reads,
so their dropping is nothing to say."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins
from tests.cli_helpers import cli_env

# A placeable WMF header (Pillow names it "WMF"; openpyxl drops it with a warning: it cannot save one).
WMF = (b"\xd7\xcd\xc6\x9a\x00\x00\x00\x00\x00\x00\x10\x00\x10\x00\xe8\x03\x00\x00\x00\x00\x00\x00"
       + b"\x01\x00\x09\x00\x00\x03" + b"\x00" * 12)


def _book_with_a_wmf_picture(path: Path) -> Path:
    from openpyxl import Workbook
    from openpyxl.drawing.image import Image
    from PIL import Image as Pil

    png = path.with_suffix(".png")
    Pil.new("RGB", (4, 4), "red").save(png)
    wb = Workbook()
    ws = wb.active
    ws.title = "Vector in wmf"
    ws.append(["Name", "Objective"])
    ws.append(["Vector", "Test image in WMF format"])
    ws.add_image(Image(str(png)), "D4")
    plain = path.with_suffix(".plain.xlsx")
    wb.save(plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w") as out:
        for item in src.infolist():
            out.writestr(item, WMF if item.filename.startswith("xl/media/") else src.read(item.filename))
    return path


def test_reading_a_workbook_with_a_wmf_picture_warns_nothing(tmp_path: Path) -> None:
    book = _book_with_a_wmf_picture(tmp_path / "pictures.xlsx")
    before = hashlib.sha256(book.read_bytes()).digest()
    plugins = load_plugins(None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = plugins.extract_text(str(book))
        loc = plugins.locate(LocateRequest(file=str(book), evidence="Test image in WMF format", passage=text,
                                           query="what is the objective"))
    assert [str(w.message) for w in caught] == []
    assert "Test image in WMF format" in text and loc.range == "B2"  # the objective asked for
    assert hashlib.sha256(book.read_bytes()).digest() == before


def test_locate_on_the_command_line_prints_nothing_on_stderr(tmp_path: Path) -> None:
    book = _book_with_a_wmf_picture(tmp_path / "pictures.xlsx")
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run([sys.executable, "-m", "mnote_kr", "locate", str(book),
                           "--evidence", "Test image in WMF format", "--json"],
                          cwd=tmp_path, env=cli_env(home, None), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and '"range":"A2:B2"' in proc.stdout
    shutil.rmtree(home)
