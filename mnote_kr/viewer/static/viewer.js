// mnote-kr viewer: bring the cited place into view; n / p step to the file's next / previous place.
// No data leaves the page.
"use strict";
// A slide's frame takes its aspect ratio from data-aspect; its shapes are placed from data-box
// ("x0 y0 x1 y1" in percent of the slide). Set through the CSSOM: the CSP allows no inline style.
function layoutSlides() {
  var frames = document.querySelectorAll(".slide[data-aspect]");
  for (var i = 0; i < frames.length; i++) {
    frames[i].style.aspectRatio = frames[i].dataset.aspect;
    frames[i].classList.add("laid-out");
    var shapes = frames[i].querySelectorAll(".shape[data-box]");
    for (var j = 0; j < shapes.length; j++) {
      var b = shapes[j].dataset.box.split(" ").map(parseFloat);
      if (b.length !== 4 || b.some(isNaN)) { continue; }
      var s = shapes[j].style;
      s.left = b[0] + "%"; s.top = b[1] + "%";
      s.width = Math.max(b[2] - b[0], 1) + "%"; s.minHeight = Math.max(b[3] - b[1], 1) + "%";
    }
  }
}
document.addEventListener("DOMContentLoaded", function () {
  layoutSlides();
  var target = document.getElementById("hl") || document.querySelector(".para.cited");
  if (target) {
    // The page scrolls in its body, not the window (viewer.css own-scroll): Chromium's one-shot headless
    // screenshot (chromium --headless --screenshot URL, a shell's thumbnail) paints nothing of a window
    // scrolled on load. The body takes the focus, so the keys scroll it as they scroll a window.
    document.documentElement.classList.add("own-scroll");
    document.body.tabIndex = -1;
    document.body.focus({ preventScroll: true });
    var holder = target.closest ? (target.closest(".para, .shape") || target) : target;
    target.scrollIntoView({ block: "center", inline: "nearest" });
    if (holder.classList) { holder.classList.add("flash"); }
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var el = event.target;
    var tag = el && el.tagName ? el.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (el && el.isContentEditable)) { return; }
    var link = null;
    if (event.key === "n") { link = document.getElementById("place-next") || document.getElementById("place-first"); }
    if (event.key === "p") { link = document.getElementById("place-prev"); }
    if (link) { event.preventDefault(); link.click(); }
  });
});
