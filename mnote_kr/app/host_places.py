"""The places a search ranks by meaning, the host's side: prepare each file's located model and
embed its places once ingest has sent it, and again for files a search could place by words only.

``HostPlaces`` is the part of ``Host`` (``mnote_kr.app.host``) that ``HostIngest`` builds on: ingest
and ``sync`` call it; it sends nothing to the provider.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Container, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.core.workspace import Workspace
from mnote_kr.errors import MnoteKrError
from mnote_kr.models import WordsOnlyFiles

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.plugins import Plugins


def placing_runs() -> bool:
    """Whether an ingest's files get placed by meaning after LightRAG indexed them (the model is installed and
    meaning counts in the ranking): a second step an ``ingest --wait`` announces."""
    from mnote_kr.citations.rank import meaning

    return meaning.MEANING_WEIGHT > 0 and meaning.model_installed()


class HostPlaces:
    """Prepare files for locating and embed their places (a part of ``Host``, which defines the
    attributes declared here for the type checker)."""

    if TYPE_CHECKING:
        workspace: Workspace
        progress: Callable[[str], None]

        @property
        def plugins(self) -> Plugins: ...

        def registry(self) -> Registry: ...

    def _prepare_locate(self, files: list[tuple[str, str]], keys: dict[str, list[str]] | None = None) -> None:
        """Let locator plugins cache each file's (absolute path, relative path) parsed model now, so
        a new process's first search does not parse it (the provider is busy indexing meanwhile),
        and queue its places for embedding; ``keys`` gets the places keys each file queued."""
        from mnote_kr.citations.caches import libwords
        from mnote_kr.citations.rank import meaning

        reg = self.registry() if files else None
        # the library's word counts (the weak rule's IDF): each file's words written as it is prepared, the counts
        # at the end (and every few seconds of a long preparation)
        with libwords.Batch(self.workspace.index_dir) as words:
            for path, rel in files:
                token = meaning.collected.set(keys.setdefault(rel, [])) if keys is not None else None
                try:
                    with libwords.collecting() as texts:
                        if self.plugins.prepare_locate(path):
                            self.progress(f"prepared {rel} for locating")
                except MnoteKrError:
                    continue  # unreadable for the locator: the provider's verdict on the file is what counts
                finally:
                    if token is not None:
                        meaning.collected.reset(token)
                entry = reg.entries.get(rel) if reg is not None else None
                texts.extend(self._text_beyond_places(path, texts))
                if any(t.strip() for t in texts):
                    words.put(rel, entry.source_hash if entry is not None else "", texts)

    def recount_words(self) -> int:
        """Count the library's words again from every indexed file on disk when the counts kept are of an older format
        (``libwords.outdated``: a workspace indexed before ``libwords.VERSION`` changed has none a search reads, so no
        library rule judged its searches until ``ingest --force``). Each file is prepared for locating again (its
        parsed model cached, its places queued: those embedded before are not embedded again); nothing is sent to the
        provider. ``sync`` and ``ingest`` call it. The number of files counted (0: the counts were current)."""
        from mnote_kr.citations.caches import libwords

        if not libwords.outdated(self.workspace.index_dir):
            return 0
        reg = self.registry()
        files = [(str(path), rel) for rel, e in reg.entries.items()
                 if e.status == "processed" and not e.stale and (path := self.workspace.rel_to_abs(rel)).is_file()]
        self.progress(f"counting the library's words again ({len(files)} files; their format changed): "
                      "nothing is sent to LightRAG")
        self._prepare_locate(files)
        return len(files)

    def _text_beyond_places(self, path: str, places: list[str]) -> list[str]:
        """The file's text its locator queued no place for, for the library's word counts: its pages read by OCR
        (a scan's, a PDF's scanned pages: recognised when the provider read the file, so the kept recognition is
        read here, and the PDF's own locator queues only its text layer), or, when the locator queued nothing (a
        workbook or deck too large to embed, a PDF whose blocks are not embedded), the text its reader gives (not
        recognised again here: a recognition not kept, cut by its time limit, is not redone). Nothing more for a
        file read already (its places hold its text); [] when it cannot be read."""
        try:
            if (self.plugins.recognized_pages(path) or (0, 0))[0]:
                return [self.plugins.recognize_text(path) or ""]
            if not any(t.strip() for t in places):
                return [self.plugins.extract_text(path, recognize=False) or ""]  # OCR's answered above
        except MnoteKrError:
            pass  # unreadable now: the provider's verdict on the file is what counts
        return []

    def embed_words_only(self, *, again: bool = True) -> dict[str, Any]:
        """Prepare again and embed the places of the files searches placed by words only because their
        places had no vectors (``wordsonly``; nothing sent to the provider), then forget them: ``sync``,
        ``watch`` (``again`` False: only when the record changed since). The summary ({}: none). Once per workspace,
        the indexed files never embedded that no record names are found first (``wordsonly.audit``)."""
        from mnote_kr.citations.rank import wordsonly

        wordsonly.audit(self, self.plugins.prepare_locate, self.progress)
        return self._embed_places(after_wait_s=None, scope=None, again=again)

    def _embed_places(self, *, after_wait_s: float | None, scope: set[str] | None,
                      again: bool = True, announce: bool = False, prepared: Container[str] = ()) -> dict[str, Any]:
        """Embed the queued places (``meaning.embed_queued``), with those of the files of ``scope`` (None:
        any) a search placed by words only, prepared again first (``wordsonly.due``). After a wait that
        ended with files still being indexed (``after_wait_s``), one note first: the step is not bounded
        by the wait (vectors not made now would never be: only ingest queues a file's places). ``prepared``:
        the files this ingest prepared already (their places are queued; preparing them again was twice the
        work). ``announce``
        (after ``waitprogress.steps_note``): the step's first line follows ``PLACING_NOTE``."""
        from mnote_kr.citations.rank import meaning, wordsonly
        from mnote_kr.citations.rank.meaning import embed_queued

        again_due = [f for f in wordsonly.due(self, scope, again=again) if f.source_path not in prepared]
        if again_due and not meaning.model_installed():
            again_due = []
        if again_due:  # the step named, and why these files are in it (nc28c: "since their places changed")
            why = wordsonly.reason(len(again_due), sum(f.not_yet for f in again_due))
            self.progress(f"placing by meaning: {len(again_due)} file(s) placed by words only ({why}), e.g. "
                          f"{again_due[0].source_path}: preparing them again (nothing is sent to LightRAG)")
        self._prepare_locate([(str(self.workspace.rel_to_abs(f.source_path)), f.source_path) for f in again_due])

        progress = self.progress
        step = "step 2 of 2: placing by meaning: " if announce else ""
        if announce and after_wait_s is None:  # after a wait cut short, its note below names the step
            from mnote_kr.app.waitprogress import PLACING_NOTE

            said = progress

            def progress(line: str) -> None:
                nonlocal announce
                if announce:
                    announce = False
                    said(PLACING_NOTE)
                said(line)

        if after_wait_s is not None:
            noted, outer = False, progress

            def progress(line: str) -> None:
                nonlocal noted
                if not noted:
                    noted = True
                    outer(f"note: {step}the wait is over (no progress for {after_wait_s:g} s); embedding the places "
                          "of the files sent for ranking by meaning still runs, not bounded by the wait (the files "
                          "LightRAG has indexed are cited by words meanwhile)")
                outer(line)

        embed_queued(progress)
        if not again_due:
            return {}
        wordsonly.settle(self, again_due, embedded=meaning.embed_problem is None)
        return wordsonly.summary(again_due, meaning.embed_problem)

    @contextlib.contextmanager
    def _remembered_if_cut(self, keys: dict[str, list[str]], sent: list[str]) -> Iterator[None]:
        """An ingest's wait and placing step. The files it ``sent`` are recorded as not placed by meaning yet before
        it begins (``wordsonly.sending``: one atomic write, so a ``kill -9`` in the wait loses none); when it ends,
        however (Ctrl-C, an error, done), the files it prepared whose places have no vectors stay recorded with
        their key (``wordsonly.unembedded``), so ``status`` does not count them as placed by meaning and ``sync``
        embeds them (the queue ends with this process), and the others leave the record."""
        from mnote_kr.citations.rank import wordsonly

        wordsonly.sending(self, sent)
        try:
            yield
        finally:
            wordsonly.unembedded(self, keys, sent)

    def _words_only_left(self, scope: set[str], keys: dict[str, list[str]] | None = None) -> WordsOnlyFiles | None:
        """The files of ``scope`` placed by words only that this ingest, embedding no places, leaves to sync;
        those it prepared (``keys``: the places keys each queued) are remembered so first (``status`` counts
        them, ``sync`` embeds them: the queue itself ends with this process)."""
        from mnote_kr.citations.rank import wordsonly

        if keys:
            wordsonly.unembedded(self, keys)
        left = wordsonly.left(self, scope)
        return None if left is None else msgspec.convert(left, WordsOnlyFiles)
