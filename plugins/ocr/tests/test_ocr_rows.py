"""Fragments of one printed line become that line, in reading order (``scan.join_fragments``).

The fragments below are what RapidOCR returned for a plain 900 x 200 PNG of two sentences
(DejaVu Sans, 36 px): the detector cut the first line in four, the tops differ by a few pixels,
and the third fragment starts with a mark its overlap with the second left behind. Before the
join, the image's text reached LightRAG as "logs tides at dawn. / The / lighthouse / ：keeper…".
"""

from __future__ import annotations

from mnote_kr_ocr.scan import Line, join_fragments, paragraphs


def frag(text: str, box: list[float], score: float = 0.99) -> Line:
    return Line(text=text, box=box, score=score)


RECORDED = [
    frag("The", [31, 47, 101, 76], 1.0),
    frag("lighthouse", [91, 46, 302, 81]),
    frag("：keeper", [294, 48, 445, 82], 0.91),
    frag("logs tides at dawn.", [429, 43, 785, 82], 0.98),
    frag("Copper kettles cool faster than", [29, 112, 595, 154], 1.0),
    frag("iron pans.", [594, 117, 777, 153], 0.96),
]


def test_a_line_cut_into_fragments_reads_as_the_printed_line() -> None:
    lines = join_fragments(list(reversed(RECORDED)))  # the engine's order does not matter
    texts = [ln.text for ln in sorted(lines, key=lambda ln: ln.box[1])]
    assert texts == ["The lighthouse keeper logs tides at dawn.", "Copper kettles cool faster than iron pans."]
    first = min(lines, key=lambda ln: ln.box[1])
    assert first.box == [31, 43, 785, 82] and first.score == 0.91  # union of its fragments, weakest confidence
    assert [[lines[i].text[:6] for i in p] for p in paragraphs(lines)] == [["The li", "Copper"]]


def test_columns_side_by_side_stay_apart_and_cjk_joins_without_a_space() -> None:
    left = frag("Left column text", [40, 100, 400, 130])
    right = frag("Right column text", [460, 101, 820, 131])  # a gutter of 2 line heights
    assert sorted(ln.text for ln in join_fragments([left, right])) == ["Left column text", "Right column text"]
    cjk = join_fragments([frag("送到", [40, 100, 100, 130]), frag("哪条街", [104, 99, 190, 131])])
    assert [ln.text for ln in cjk] == ["送到哪条街"]
