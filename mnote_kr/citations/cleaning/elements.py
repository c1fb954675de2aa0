"""The element names of HTML, SVG and MathML: what a tag in a chunk may be when a document holds markup.

Python's standard library has no such list (``html.parser`` parses any name), so it is written once here,
from the specifications' own indexes:

* HTML: the WHATWG HTML Living Standard, "Index: Elements" (https://html.spec.whatwg.org/multipage/indices.html),
  and its "Non-conforming features" (§16.2, obsolete elements an HTML parser still reads, as old pages use them);
* SVG: SVG 2, "Appendix F: Element Index" (https://www.w3.org/TR/SVG2/eltindex.html), with SVG 1.1's
  elements SVG 2 dropped (https://www.w3.org/TR/SVG11/eltindex.html); names keep their camelCase;
* MathML: MathML Core's elements (https://www.w3.org/TR/mathml-core/) and MathML 3's other presentation
  elements (https://www.w3.org/TR/MathML3/chapter3.html). Content MathML (``<apply>``, ``<plus>``,
  ``<times>``) is left out: its names are everyday words and converters write presentation markup.

The cleaning step (``markup``) decides by a tag's structure whether one of these names is markup or a
person's words in angle brackets (``Put the <title> first``); this module only says which names exist.
"""

from __future__ import annotations

HTML_ELEMENTS = frozenset(
    "a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite "
    "code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li "
    "link main map mark math menu meta meter nav noscript object ol optgroup option output p picture pre "
    "progress q rp rt ruby s samp script search section select selectedcontent slot small source span "
    "strong style sub summary sup svg table tbody td template textarea tfoot th thead time title tr track "
    "u ul var video wbr".split()
)

#: Non-conforming features (§16.2): elements an HTML parser still reads, as old pages and converters write them.
HTML_OBSOLETE_ELEMENTS = frozenset(
    "acronym applet basefont bgsound big blink center dir font frame frameset image isindex keygen listing "
    "marquee menuitem multicol nextid nobr noembed noframes param plaintext rb rtc spacer strike tt xmp".split()
)

SVG_ELEMENTS = frozenset(
    "a animate animateMotion animateTransform circle clipPath defs desc discard ellipse feBlend "
    "feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting feDisplacementMap "
    "feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR feGaussianBlur feImage feMerge "
    "feMergeNode feMorphology feOffset fePointLight feSpecularLighting feSpotLight feTile feTurbulence filter "
    "foreignObject g image line linearGradient marker mask metadata mpath path pattern polygon polyline "
    "radialGradient rect script set stop style svg switch symbol text textPath title tspan use view "
    # SVG 1.1's, dropped by SVG 2
    "altGlyph altGlyphDef altGlyphItem animateColor color-profile cursor font font-face font-face-format "
    "font-face-name font-face-src font-face-uri glyph glyphRef hkern missing-glyph tref vkern".split()
)

MATHML_ELEMENTS = frozenset(
    # MathML Core
    "math annotation annotation-xml maction merror mfrac mi mmultiscripts mn mo mover mpadded mphantom "
    "mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable mtd mtext mtr munder munderover "
    "semantics "
    # MathML 3's other presentation elements
    "maligngroup malignmark menclose mfenced mglyph mlabeledtr mlongdiv mscarries mscarry msgroup msline "
    "msrow mstack none".split()
)

#: Each element name, lower-cased, to the spellings markup writes it in: lower or upper case (HTML reads
#: either), and SVG's own camelCase (``linearGradient``).
ELEMENT_NAMES: dict[str, str] = {
    name.lower(): name for name in sorted(HTML_ELEMENTS | HTML_OBSOLETE_ELEMENTS | SVG_ELEMENTS | MATHML_ELEMENTS)
}


def as_markup_writes_it(name: str) -> bool:
    """``name`` is an element's, spelt as markup writes it: ``br``, ``BR``, ``linearGradient``; not a key
    name in a sentence (``Enter``, ``Option``, ``Del``) nor any word that is no element (``String``)."""
    canonical = ELEMENT_NAMES.get(name.lower())
    return canonical is not None and (name.islower() or name.isupper() or name == canonical)
