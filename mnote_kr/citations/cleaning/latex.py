"""LaTeX made readable: ``\\frac{a+b}{2}`` → ``(a+b)/2``, ``{c}^{2}`` → ``c^2``, ``\\alpha`` → ``α``."""

from __future__ import annotations

import functools
import re

from mnote_kr.citations.text.textnorm import lazy_compile

_DISPLAY_MATH_RE = lazy_compile(r"\$\$([^$]{1,4000})\$\$")
_INLINE_MATH_RE = lazy_compile(r"(?<![\\$])\$([^\s$](?:[^$\n]{0,400}?[^\s$\\])?)\$(?![\d$])")
_MATHY_RE = lazy_compile(r"[\\^_{}=]")

# --------------------------------------------------------------------------- LaTeX

_LATEX_TOKEN_RE = lazy_compile(r"\\[A-Za-z]+\*?|\\.|[{}^_~&]|\[|\]|[^\\{}^_~&\[\]]+", re.DOTALL)
_LATEX_SYMBOLS = dict(
    pair.split("=", 1)
    for pair in (
        "alpha=α beta=β gamma=γ delta=δ epsilon=ε varepsilon=ε zeta=ζ eta=η theta=θ vartheta=ϑ iota=ι "
        "kappa=κ lambda=λ mu=μ nu=ν xi=ξ pi=π varpi=ϖ rho=ρ varrho=ϱ sigma=σ varsigma=ς tau=τ upsilon=υ "
        "phi=φ varphi=φ chi=χ psi=ψ omega=ω Gamma=Γ Delta=Δ Theta=Θ Lambda=Λ Xi=Ξ Pi=Π Sigma=Σ Upsilon=Υ "
        "Phi=Φ Psi=Ψ Omega=Ω cdot=· times=× div=÷ pm=± mp=∓ leq=≤ le=≤ geq=≥ ge=≥ neq=≠ ne=≠ approx=≈ "
        "sim=~ simeq=≃ equiv=≡ propto=∝ infty=∞ partial=∂ nabla=∇ sum=∑ prod=∏ int=∫ oint=∮ in=∈ notin=∉ "
        "subset=⊂ subseteq=⊆ cup=∪ cap=∩ forall=∀ exists=∃ neg=¬ wedge=∧ vee=∨ to=→ rightarrow=→ "
        "leftarrow=← leftrightarrow=↔ Rightarrow=⇒ Leftarrow=⇐ Leftrightarrow=⇔ longrightarrow=⟶ "
        "rightleftharpoons=⇌ uparrow=↑ downarrow=↓ circ=∘ degree=° angle=∠ perp=⊥ parallel=∥ ldots=… "
        "cdots=⋯ dots=… prime=′ hbar=ħ ell=ℓ AA=Å langle=⟨ rangle=⟩ lfloor=⌊ rfloor=⌋ lceil=⌈ rceil=⌉ "
    ).split()
)
# Spacing and style commands: a space or nothing.
_LATEX_SPACES = {",": " ", ";": " ", ":": " ", " ": " ", "!": "", "\\": " "}
_LATEX_SPACES.update(dict.fromkeys("quad qquad enspace thinspace medspace thickspace newline".split(), " "))
_LATEX_SPACES.update(dict.fromkeys("displaystyle textstyle scriptstyle limits nolimits nonumber notag".split(), ""))
# Commands whose single argument is kept as it is (font, accents, text).
_LATEX_UNWRAP = frozenset(
    "mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol bm text textrm "
    "textbf textit textsf texttt textup textnormal mbox hbox operatorname overline underline hat "
    "widehat bar vec tilde widetilde dot ddot check breve acute grave mathring overrightarrow "
    "ensuremath emph boxed".split()
)
_LATEX_SIZERS = frozenset("left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr".split())
_LATEX_FRACS = frozenset(("frac", "dfrac", "tfrac", "cfrac"))
_SIMPLE_RE = lazy_compile(r"[\w.′]+|\S")


def _wrap(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    return text if _SIMPLE_RE.fullmatch(text) else f"({text})"


class _LatexReader:
    """A tiny recursive reader over LaTeX tokens; never raises, never loops."""

    __slots__ = ("depth", "pos", "tokens")

    def __init__(self, source: str) -> None:
        self.tokens = _LATEX_TOKEN_RE.findall(source)
        self.pos = 0
        self.depth = 0

    def seq(self, stop: str | None = None) -> str:
        out: list[str] = []
        tokens = self.tokens
        while self.pos < len(tokens):
            tok = tokens[self.pos]
            if tok == stop:
                self.pos += 1
                return "".join(out)
            if tok == "}":  # unbalanced close: drop it
                self.pos += 1
                continue
            out.append(self.item())
        return "".join(out)

    def arg(self) -> str:
        """One argument: a braced group or a single token (skipping spaces)."""
        tokens = self.tokens
        while self.pos < len(tokens) and tokens[self.pos].isspace():
            self.pos += 1
        if self.pos >= len(tokens):
            return ""
        tok = tokens[self.pos]
        if tok == "{":
            self.pos += 1
            return self.group("}")
        if tok[0] not in "\\{}^_~&[]" and len(tok) > 1:
            # A plain run: the argument is its first character only.
            tok = tok.lstrip()
            if len(tok) > 1:
                self.tokens[self.pos] = tok[1:]
            else:
                self.pos += 1
            return tok[0]
        return self.item()

    def group(self, stop: str) -> str:
        if self.depth > 60:  # pathological nesting: keep going flat
            return self.seq(stop)
        self.depth += 1
        try:
            return self.seq(stop)
        finally:
            self.depth -= 1

    def optional(self) -> str | None:
        tokens = self.tokens
        if self.pos < len(tokens) and tokens[self.pos] == "[":
            self.pos += 1
            return self.group("]")
        return None

    def item(self) -> str:
        tok = self.tokens[self.pos]
        self.pos += 1
        if tok == "{":
            return self.group("}")
        if tok in ("^", "_"):
            return tok + _wrap(self.arg()) if self.pos < len(self.tokens) else ""
        if tok == "~" or tok == "&":
            return " "
        if tok[0] != "\\":
            return tok
        name = tok[1:].rstrip("*") if len(tok) > 2 else tok[1:]
        if name in _LATEX_SPACES:
            return _LATEX_SPACES[name]
        if name in _LATEX_SYMBOLS:
            return _LATEX_SYMBOLS[name]
        if name in _LATEX_FRACS:
            num = self.arg()
            return f"{_wrap(num)}/{_wrap(self.arg())}"
        if name == "sqrt":
            index = self.optional()
            body = _wrap(self.arg())
            return f"{index.strip()}√{body}" if index else f"√{body}"
        if name in _LATEX_UNWRAP:
            return self.arg()
        if name in _LATEX_SIZERS:
            nxt = self.tokens[self.pos] if self.pos < len(self.tokens) else ""
            if nxt == ".":
                self.pos += 1
            elif nxt.startswith("."):
                self.tokens[self.pos] = nxt[1:]
            return ""
        if name in ("begin", "end"):
            self.arg()  # the environment name
            return " "
        if len(name) == 1 and not name.isalpha():
            return name  # \{ \} \$ \# \_ \&
        return name  # unknown command: keep its name (\sin → sin), never lose a word


_STRIP_DELIMS_RE = lazy_compile(r"\A\s*(?:\$\$|\$|\\\[|\\\()(.*?)(?:\$\$|\$|\\\]|\\\))\s*\Z", re.DOTALL)


@functools.lru_cache(maxsize=4096)  # a block and its chunks share their equations
def latex_to_plain(source: str) -> str:
    """Make LaTeX readable as plain text: ``\\frac{a+b}{2}`` → ``(a+b)/2``, ``{c}^{2}`` → ``c^2``."""
    match = _STRIP_DELIMS_RE.match(source)
    if match:
        source = match.group(1)
    if not _MATHY_RE.search(source) and "~" not in source and "&" not in source:
        return source
    return _LatexReader(source).seq()


def _math_in_text(text: str) -> str:
    """``$$…$$`` anywhere and math-looking ``$…$`` (not currency) become plain text."""

    def inline(m: re.Match[str]) -> str:
        body = m.group(1)
        return latex_to_plain(body) if _MATHY_RE.search(body) else m.group(0)

    # Removing one pair can let two outer dollars pair up; settle it now so that cleaning
    # the result again changes nothing. Each round that changes something removes dollars.
    for _ in range(32):
        if "$" not in text:
            break
        new = _DISPLAY_MATH_RE.sub(lambda m: latex_to_plain(m.group(1)), text)
        new = _INLINE_MATH_RE.sub(inline, new)
        if new == text:
            break
        text = new
    return text
