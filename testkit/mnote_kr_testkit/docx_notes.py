"""DOCX footnotes, endnotes and comments for tests: reference runs in a ``DocxBuilder`` body, the notes parts.

``note_para(b, "Text", ref("footnote", "2"), " after")`` adds a body paragraph holding a note's mark
(``heading=1`` makes it a heading); ``with_notes(b.build(), footnotes={"2": "Note text"}, ...)``
adds ``word/footnotes.xml``/``word/endnotes.xml`` (with Word's separator notes), their
relationships, and ``word/settings.xml`` when note properties are given. ``commented(before, words, "0")``
is a paragraph's runs with ``words`` commented as Word marks them (the range, then the reference run);
``with_notes(..., comments={"0": ("Jane Smith", "Comment text")})`` adds ``word/comments.xml``.
"""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

from .docx_docs import DocxBuilder, W

_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def ref(kind: str, note_id: str, custom: str | None = None, deleted: bool = False) -> str:
    """A run holding a footnote's or endnote's reference mark (``custom``: its own mark, ``*``)."""
    props = f'<w:rPr><w:rStyle w:val="{kind.capitalize()}Reference"/></w:rPr>'
    follows = ' w:customMarkFollows="1"' if custom is not None else ""
    mark = f"<w:t>{escape(custom)}</w:t>" if custom is not None else ""
    run = f'<w:r>{props}<w:{kind}Reference{follows} w:id="{note_id}"/>{mark}</w:r>'
    return f'<w:del w:id="90" w:author="a">{run}</w:del>' if deleted else run


def commented(before: str, words: str, comment_id: str, after: str = "") -> str:
    """Runs: ``before``, then ``words`` inside comment ``comment_id``'s range, its reference run, then ``after``."""
    def run(text: str) -> str:
        return f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r>' if text else ""

    return (run(before) + f'<w:commentRangeStart w:id="{comment_id}"/>' + run(words)
            + f'<w:commentRangeEnd w:id="{comment_id}"/><w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr>'
            f'<w:commentReference w:id="{comment_id}"/></w:r>' + run(after))


def comment_para(b: DocxBuilder, before: str, words: str, comment_id: str, after: str = "", heading: int = 0) -> int:
    """A paragraph of ``b`` holding :func:`commented` runs; its paragraphIndex."""
    idx = b.count
    ppr = f'<w:pPr><w:pStyle w:val="Heading{heading}"/></w:pPr>' if heading else ""
    b.parts.append(b._p(commented(before, words, comment_id, after), ppr, before + words + after))
    return idx


def _comments(comments: dict[str, tuple[str, str]]) -> bytes:
    body = "".join(
        f'<w:comment w:id="{cid}" w:author="{escape(author)}" w:initials="x">' + "".join(
            f'<w:p><w:r><w:annotationRef/></w:r><w:r><w:t xml:space="preserve">{escape(p)}</w:t></w:r></w:p>'
            for p in text.split("\n")) + "</w:comment>"
        for cid, (author, text) in comments.items())
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="{W}">{body}'
            "</w:comments>").encode()


def note_para(b: DocxBuilder, before: str, mark: str, after: str = "", heading: int = 0) -> int:
    """A paragraph of ``b``: ``before``, the reference run ``mark``, ``after``; its paragraphIndex."""
    idx = b.count
    ppr = f'<w:pPr><w:pStyle w:val="Heading{heading}"/></w:pPr>' if heading else ""
    inner = b.runs(before) + mark + (b.runs(after) if after else "")
    b.parts.append(b._p(inner, ppr, before + after))
    return idx


def _part(kind: str, notes: dict[str, str]) -> bytes:
    sep = "".join(f'<w:{kind} w:type="{t}" w:id="{i}"><w:p><w:r><w:{t}/></w:r></w:p></w:{kind}>'
                  for i, t in ((-1, "separator"), (0, "continuationSeparator")))
    body = "".join(
        f'<w:{kind} w:id="{nid}">' + "".join(
            f'<w:p><w:r><w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> {escape(p)}</w:t></w:r></w:p>'
            for p in text.split("\n")) + f"</w:{kind}>"
        for nid, text in notes.items())
    head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:{kind}s xmlns:w="{W}">'
    return f"{head}{sep}{body}</w:{kind}s>".encode()


def with_notes(docx: bytes, footnotes: dict[str, str] | None = None, endnotes: dict[str, str] | None = None,
               settings: str = "", raw: dict[str, bytes] | None = None,
               comments: dict[str, tuple[str, str]] | None = None) -> bytes:
    """``docx`` with notes parts: each note's paragraphs are its text's lines. ``settings``: XML inside
    ``w:settings`` (``<w:footnotePr><w:numFmt w:val="lowerLetter"/></w:footnotePr>``); ``raw``: parts
    written as given (a hostile notes part); ``comments``: id -> (author, text), ``word/comments.xml``."""
    parts: dict[str, bytes] = {}
    rels = []
    for kind, notes in (("footnote", footnotes), ("endnote", endnotes)):
        if notes is not None:
            parts[f"word/{kind}s.xml"] = _part(kind, notes)
            rels.append((f"{kind}s", f"{kind}s.xml"))
    if comments is not None:
        parts["word/comments.xml"] = _comments(comments)
        rels.append(("comments", "comments.xml"))
    if settings:
        parts["word/settings.xml"] = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                                      f'<w:settings xmlns:w="{W}">{settings}</w:settings>').encode()
        rels.append(("settings", "settings.xml"))
    parts.update(raw or {})
    parts["word/_rels/document.xml.rels"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(f'<Relationship Id="rId{i + 10}" Type="{_RELS}/{t}" Target="{target}"/>'
                  for i, (t, target) in enumerate(rels))
        + "</Relationships>").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx)) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename not in parts:
                out.writestr(info, src.read(info))
        for name, data in parts.items():
            out.writestr(name, data)
    return buf.getvalue()


#: Paragraph styles the DOCX locator calls headings by their names, none with an outline level under 9: Word's
#: Title (no outline level), a Subtitle based on it, a "heading 1" by name only, a "heading 2" whose outline
#: level says body text. LightRAG finds headings by outline level only: to it they are body text.
NAMED_HEADING_STYLES = ("Title", "Subtitle", "NamedOnly", "BodyLevel")
_NAMED_STYLES = (
    '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Subtitle"><w:name w:val="Subtitle"/><w:basedOn w:val="Title"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="NamedOnly"><w:name w:val="heading 1"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="BodyLevel"><w:name w:val="heading 2"/>'
    '<w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>')


def named_styles_docx() -> bytes:
    """A paragraph in each of ``NAMED_HEADING_STYLES`` ("Styled Title words"), footnote ``n`` ("Funded by grant
    n00.") at the end of the n-th."""
    from .docx_docs import STYLES, package

    b = DocxBuilder()
    for n, style in enumerate(NAMED_HEADING_STYLES, 1):
        b.parts.append(b._p(b.runs(f"Styled {style} words") + ref("footnote", str(n)),
                            f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>', f"Styled {style} words"))
    styles = STYLES.replace("</w:styles>", _NAMED_STYLES + "</w:styles>").encode()
    return with_notes(package(b.document_xml(), styles=styles),
                      footnotes={str(n): f"Funded by grant {n}00." for n in range(1, len(NAMED_HEADING_STYLES) + 1)})
