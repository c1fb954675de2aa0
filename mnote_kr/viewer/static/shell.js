// mnote-kr viewer, a shell's side of it (docs/http-api.md, "A shell's viewer").
// A shell that keeps a document open (its webview shows /view/ID as the top-level page) moves it to
// another citation without reloading: it runs, in the page,
//   window.postMessage({type: "mnote-kr.locate", citationId: "[b7k2]", issue: "k3x9", requestId: 1}, location.origin)
// (issue: the citation's own, as its viewerUrl's ?issue= names the search that printed it; without one, the
// latest search's places). The page fetches where that citation is, as that search showed it
// (/view/ID/place.json?from=ID&issue=KEY), and moves its highlight there (a
// paragraph document) or shows the cited page, slide or sheet (a PDF, PPTX, XLSX). It answers by
// posting to itself, for the shell's listener: {source: "mnote-kr-viewer", type: "ready" | "located" |
// "failed", ...}. Messages from any other origin or window are ignored; no data leaves the page.
"use strict";
(function () {
  var match = /^\/view\/([A-Za-z0-9-]{1,40})$/.exec(location.pathname);
  if (!match) { return; }
  var SOURCE = "mnote-kr-viewer";
  var current = match[1];
  var latest = 0; // a newer request supersedes one still being fetched (it is answered "superseded")

  function post(type, fields) {
    var msg = { source: SOURCE, type: type, citationId: "[" + current + "]" };
    for (var key in fields) { if (Object.prototype.hasOwnProperty.call(fields, key)) { msg[key] = fields[key]; } }
    window.postMessage(msg, location.origin);
  }

  function failed(requestId, asked, reason, message, extra) {
    var fields = { requestId: requestId, requested: asked, reason: reason, message: message };
    for (var key in extra || {}) { fields[key] = extra[key]; }
    post("failed", fields);
  }

  function unmark() {
    var marks = document.querySelectorAll("mark.hl");
    for (var i = 0; i < marks.length; i++) {
      var parent = marks[i].parentNode;
      parent.replaceChild(document.createTextNode(marks[i].textContent), marks[i]);
      parent.normalize();
    }
    var cited = document.querySelectorAll(".para.cited");
    for (var j = 0; j < cited.length; j++) { cited[j].classList.remove("cited", "flash"); }
  }

  // The paragraph's own text is its first direct text node (a list marker and text boxes are elements).
  // Highlight offsets count in the model's text; a Markdown line shown without its markup ("## ", "2. ")
  // says where its shown text starts (data-text-start), and a highlight is cut to what is shown.
  function markParagraph(index, highlight) {
    var para = document.querySelector('.para[data-paragraph-index="' + index + '"]');
    if (!para) { return null; }
    para.classList.add("cited");
    var text = null;
    for (var n = para.firstChild; n; n = n.nextSibling) { if (n.nodeType === 3) { text = n; break; } }
    var skip = parseInt(para.dataset.textStart || "0", 10) || 0;
    var start = highlight ? Math.max(highlight.start - skip, 0) : 0;
    var end = highlight && text ? Math.min(highlight.end - skip, text.data.length) : 0;
    if (highlight && text && highlight.start >= 0 && start < end) {
      var range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, end);
      var mark = document.createElement("mark");
      mark.className = "hl";
      mark.id = "hl";
      range.surroundContents(mark);
    }
    return para;
  }

  function fragment(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  function imageReady(root) {
    var img = root.querySelector("img.page-image");
    if (!img || img.complete) { return Promise.resolve(); }
    return new Promise(function (resolve) {
      img.addEventListener("load", resolve, { once: true });
      img.addEventListener("error", resolve, { once: true });
    });
  }

  function bringIntoView() {
    var target = document.getElementById("hl") || document.querySelector(".para.cited");
    if (!target) { window.scrollTo(0, 0); document.body.scrollTo(0, 0); return; } // viewer.css own-scroll
    var holder = target.closest ? (target.closest(".para, .shape") || target) : target;
    target.scrollIntoView({ block: "center", inline: "nearest" });
    if (holder.classList) { holder.classList.remove("flash"); void holder.offsetWidth; holder.classList.add("flash"); }
  }

  // Shows place p (a place.json answer) in this page; resolves false when the page cannot show it.
  function show(p) {
    var main = document.querySelector("main");
    if (typeof p.mainHtml === "string") {
      main.replaceChildren(fragment(p.mainHtml));
      if (typeof layoutSlides === "function") { layoutSlides(); } // viewer.js
      return imageReady(main).then(function () { return true; });
    }
    var head = document.querySelector(".viewer-head");
    var para = null;
    if (p.paragraphIndex !== null) {
      if (!document.querySelector('.para[data-paragraph-index="' + p.paragraphIndex + '"]')) {
        return Promise.resolve(false);
      }
    }
    unmark();
    if (p.paragraphIndex !== null) { para = markParagraph(p.paragraphIndex, p.highlight); }
    if (head && typeof p.headHtml === "string") { head.replaceWith(fragment(p.headHtml)); }
    return Promise.resolve(para !== null || p.paragraphIndex === null);
  }

  function locate(asked, requestId, issue) {
    var bare = typeof asked === "string" ? asked.trim().replace(/^\[/, "").replace(/\]$/, "") : "";
    if (!/^[A-Za-z0-9-]{1,40}$/.test(bare)) {
      failed(requestId, asked, "bad_request", "citationId must be a citation ID such as [b7k2]");
      return;
    }
    if (issue !== undefined && issue !== null && !(typeof issue === "string" && /^[0-9a-z]{1,16}$/.test(issue))) {
      failed(requestId, asked, "bad_request", "issue must be the issue key of the citation (its viewerUrl's ?issue=)");
      return;
    }
    var mine = ++latest;
    function superseded() {
      if (mine === latest) { return false; }
      failed(requestId, asked, "superseded", "a later locate request replaced this one");
      return true;
    }
    fetch("/view/" + bare + "/place.json?from=" + encodeURIComponent(current) +
          (issue ? "&issue=" + encodeURIComponent(issue) : ""),
          { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (body) { return { status: r.status, body: body }; });
      })
      .then(function (got) {
        if (superseded()) { return; }
        if (got.status !== 200) {
          var reasons = { 401: "signed_out", 404: "not_found", 410: "gone" };
          var message = got.body && got.body.error ? got.body.error.message : "HTTP " + got.status;
          failed(requestId, asked, reasons[got.status] || "error", message);
          return;
        }
        var p = got.body;
        if (!p.sameDocument) {
          failed(requestId, asked, "other_document", "the citation is in another file: load its viewerPath",
                 { viewerPath: p.viewerPath, sourceRootRelativePath: p.sourceRootRelativePath });
          return;
        }
        return show(p).then(function (shown) {
          if (superseded()) { return; }
          if (!shown) {
            failed(requestId, asked, "not_shown", "the cited paragraph is not in the document as shown");
            return;
          }
          current = bare;
          document.title = p.title;
          history.replaceState(history.state, "", p.viewerPath); // reload and back keep the new place
          bringIntoView();
          post("located", { requestId: requestId, issue: p.issue, locatorPrecision: p.locatorPrecision,
                            paragraphIndex: p.paragraphIndex, page: p.page,
                            sourceRootRelativePath: p.sourceRootRelativePath });
        });
      })
      .catch(function (err) {
        if (!superseded()) { failed(requestId, asked, "error", String(err)); }
      });
  }

  window.addEventListener("message", function (event) {
    // Only the page's own context (a shell's injected script) may move it: same origin, same window.
    if (event.origin !== location.origin || event.source !== window) { return; }
    var d = event.data;
    if (!d || typeof d !== "object" || d.type !== "mnote-kr.locate") { return; }
    locate(d.citationId, d.requestId === undefined ? null : d.requestId, d.issue);
  });

  function ready() {
    var cited = document.querySelector(".para.cited");
    var file = document.querySelector(".viewer-head .file");
    post("ready", { sourceRootRelativePath: file ? file.textContent : null,
                    paragraphIndex: cited ? parseInt(cited.dataset.paragraphIndex, 10) : null });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", ready); } else { ready(); }
})();
